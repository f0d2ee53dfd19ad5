/**
 * The changes between two exact environments as Markdown a reviewer reads in a pull request or a
 * job summary: per platform, the packages asked for (a lock's top-level packages: nothing else in
 * the environment depends on them) apart from the ones that came with them, each in one table
 * ordered upgrades, downgrades, rebuilds, additions, removals, moves; a table longer than a screen
 * folds into `<details>`. PyPI distributions are rows of the same tables, marked `(PyPI)`.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { buildGraph } from '../inspect/graph.js';
import type { ChangeKind, ExactEnvironments, PackageChange, PackageSide, PlatformDiff } from './diff.js';

const ORDER: readonly ChangeKind[] = ['upgraded', 'downgraded', 'rebuilt', 'added', 'removed', 'moved'];
/** Rows beyond which a table is folded. */
const FOLD_AFTER = 10;

/** The names a lock's environment was asked for, in effect: its top-level packages, PyPI ones by PEP 503 name (none without dependency data). */
function topLevel(records: readonly PackageRecord[], pypi: readonly PypiRecord[]): Set<string> | undefined {
  if (!records.some((r) => r.depends.length > 0) && !pypi.some((r) => r.requires_dist.length > 0)) return undefined;
  return new Set(buildGraph(records, [], pypi).roots.map((edge) => edge.to));
}

/** How a change is looked up among the names asked for: a PyPI name normalised. */
function nameKey(change: PackageChange): string {
  return change.manager === 'pip' ? normalizePypiName(change.name) : change.name;
}

function escape(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function side(change: PackageSide | undefined, other: PackageSide | undefined): string {
  if (!change) return '';
  const channel = other && other.channel !== change.channel ? ` (${change.channel})` : '';
  // A PyPI distribution has no build: its version alone.
  return `${escape(change.version)}${change.build === '' ? '' : ` \`${escape(change.build)}\``}${channel}`;
}

function table(changes: readonly PackageChange[]): string[] {
  const rows = [...changes].sort(
    (a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return [
    '| Package | Change | Before | After |',
    '|---|---|---|---|',
    ...rows.map(
      (c) => `| ${escape(c.name)}${c.manager === 'pip' ? ' (PyPI)' : ''} | ${c.kind} | ${side(c.old, c.new)} | ${side(c.new, c.old)} |`,
    ),
  ];
}

function counts(changes: readonly PackageChange[]): string {
  return ORDER.map((kind) => [kind, changes.filter((c) => c.kind === kind).length] as const)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
}

function section(title: string, changes: readonly PackageChange[]): string[] {
  if (changes.length === 0) return [];
  const rows = table(changes);
  if (changes.length <= FOLD_AFTER) return [`**${title}** (${counts(changes)})`, '', ...rows, ''];
  return ['<details>', `<summary><b>${title}</b> (${counts(changes)})</summary>`, '', ...rows, '', '</details>', ''];
}

/**
 * `requested`: the names the request asked for (a re-lock knows them); otherwise each side's
 * top-level packages stand for them.
 */
export function renderDiffMarkdown(
  diff: readonly PlatformDiff[],
  before: ExactEnvironments,
  after: ExactEnvironments,
  options: { readonly title?: string; readonly requested?: ReadonlySet<string> } = {},
): string {
  const lines: string[] = [`## ${options.title ?? 'Lock changes'}`, ''];
  if (!diff.some((p) => p.changes.length > 0)) return `${[...lines, 'No changes.'].join('\n')}\n`;
  for (const { platform, changes } of diff) {
    if (changes.length === 0) {
      lines.push(`### ${platform}: no changes`, '');
      continue;
    }
    lines.push(`### ${platform}: ${counts(changes)}`, '');
    const asked = options.requested
      ? new Set([...options.requested].flatMap((name) => [name, normalizePypiName(name)]))
      : union(
          topLevel(after.get(platform) ?? [], after.pypi?.get(platform) ?? []),
          topLevel(before.get(platform) ?? [], before.pypi?.get(platform) ?? []),
        );
    if (!asked) {
      lines.push(...section('Packages', changes));
      continue;
    }
    // A removed package was asked for if it was top-level before; the others are judged after.
    const isAsked = (c: PackageChange) => asked.has(nameKey(c));
    lines.push(...section(options.requested ? 'Requested' : 'Requested (top-level)', changes.filter(isAsked)));
    lines.push(
      ...section(
        'Came with them',
        changes.filter((c) => !isAsked(c)),
      ),
    );
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

function union(a: Set<string> | undefined, b: Set<string> | undefined): Set<string> | undefined {
  if (!a && !b) return undefined;
  return new Set([...(a ?? []), ...(b ?? [])]);
}
