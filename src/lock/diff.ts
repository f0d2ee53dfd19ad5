/**
 * What changed between two exact environments, per platform (as `pixi update` reports it): packages
 * added, removed, upgraded, downgraded, rebuilt (same version, another build) and moved (same
 * version and build from another channel or archive). As plain data for `--json`, and as a table
 * for people.
 */
import { parseVersion } from '../../vocabulary/version.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizePypiName, type PypiRecord } from '../../vocabulary/pypi-record.js';
import { comparePypiVersions, tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import type { KeptFromLock } from '../request.js';
import type { PlatformResolution } from '../resolve.js';

export type ChangeKind = 'added' | 'removed' | 'upgraded' | 'downgraded' | 'rebuilt' | 'moved';
export const CHANGE_KINDS: readonly ChangeKind[] = ['added', 'removed', 'upgraded', 'downgraded', 'rebuilt', 'moved'];

export interface PackageSide {
  readonly version: string;
  readonly build: string;
  readonly channel: string;
  readonly url: string;
}

export interface PackageChange {
  readonly name: string;
  readonly kind: ChangeKind;
  /** `pip` for a PyPI package kept from a lock; absent for conda packages. */
  readonly manager?: 'pip';
  /** Absent for an added package. */
  readonly old?: PackageSide;
  /** Absent for a removed package. */
  readonly new?: PackageSide;
}

export interface PlatformDiff {
  readonly platform: string;
  /** Sorted by name. */
  readonly changes: readonly PackageChange[];
}

/** Platform -> its records; a lock's PyPI packages ride along in `pypi` (same platform keys). */
export type ExactEnvironments = ReadonlyMap<string, readonly PackageRecord[]> & {
  readonly pypi?: ReadonlyMap<string, readonly PypiRecord[]>;
};

/** Platforms in OLD's order, then those only NEW has; each platform's conda changes, then its PyPI ones. */
export function diffEnvironments(before: ExactEnvironments, after: ExactEnvironments): PlatformDiff[] {
  const platforms = [...new Set([...before.keys(), ...after.keys()])];
  return platforms.map((platform) => ({
    platform,
    changes: [
      ...diffRecords(before.get(platform) ?? [], after.get(platform) ?? []),
      ...diffPypi(before.pypi?.get(platform) ?? [], after.pypi?.get(platform) ?? []),
    ],
  }));
}

/** The solved platforms as exact environments: records, and the PyPI distributions solved (or kept from a lock). */
export function solvedEnvironments(platforms: readonly PlatformResolution[], kept?: KeptFromLock): ExactEnvironments {
  const records = new Map<string, readonly PackageRecord[]>();
  const pypi = new Map<string, readonly PypiRecord[]>();
  for (const p of platforms) {
    if (!p.records) continue;
    records.set(p.platform, p.records);
    pypi.set(p.platform, p.pypi ?? kept?.pypi.get(p.platform) ?? []);
  }
  return Object.assign(records, { pypi });
}

/** PyPI packages compared by normalised name: a version change, or the same version from another URL (`moved`). */
export function diffPypi(before: readonly PypiRecord[], after: readonly PypiRecord[]): PackageChange[] {
  const oldByName = new Map(before.map((r) => [normalizePypiName(r.name), r]));
  const newByName = new Map(after.map((r) => [normalizePypiName(r.name), r]));
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();
  const changes: PackageChange[] = [];
  for (const key of names) {
    const a = oldByName.get(key);
    const b = newByName.get(key);
    if (a && b && a.url === b.url) continue;
    const name = (b ?? a)!.name;
    if (!a) changes.push({ name, kind: 'added', manager: 'pip', new: pypiSide(b!) });
    else if (!b) changes.push({ name, kind: 'removed', manager: 'pip', old: pypiSide(a) });
    else {
      const order = comparePypiPins(a.version ?? '', b.version ?? '');
      // A lock that names no index (pixi.lock v6 has one list per environment) is not another index.
      const index = { old: a.index ?? b.index, new: b.index ?? a.index };
      changes.push({
        name,
        kind: order < 0 ? 'upgraded' : order > 0 ? 'downgraded' : 'moved',
        manager: 'pip',
        old: pypiSide({ ...a, index: index.old }),
        new: pypiSide({ ...b, index: index.new }),
      });
    }
  }
  return changes;
}

function pypiSide(record: PypiRecord): PackageSide {
  return { version: record.version ?? '', build: '', channel: record.index ?? '', url: record.url };
}

/** PEP 440's order; a version that does not parse (a local tree's path) compares as text. */
function comparePypiPins(a: string, b: string): number {
  const x = tryParsePypiVersion(a);
  const y = tryParsePypiVersion(b);
  if (x && y) return Math.sign(comparePypiVersions(x, y));
  return a === b ? 0 : a < b ? -1 : 1;
}

export function diffRecords(before: readonly PackageRecord[], after: readonly PackageRecord[]): PackageChange[] {
  const oldByName = new Map(before.map((r) => [r.name, r]));
  const newByName = new Map(after.map((r) => [r.name, r]));
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();
  const changes: PackageChange[] = [];
  for (const name of names) {
    const a = oldByName.get(name);
    const b = newByName.get(name);
    if (a && b && a.url === b.url) continue;
    if (!a) changes.push({ name, kind: 'added', new: side(b!) });
    else if (!b) changes.push({ name, kind: 'removed', old: side(a) });
    else changes.push({ name, kind: kindOf(a, b), old: side(a), new: side(b) });
  }
  return changes;
}

function kindOf(a: PackageRecord, b: PackageRecord): ChangeKind {
  const order = parseVersion(b.version).compare(parseVersion(a.version));
  if (order > 0) return 'upgraded';
  if (order < 0) return 'downgraded';
  return a.build !== b.build ? 'rebuilt' : 'moved';
}

function side(record: PackageRecord): PackageSide {
  return { version: record.version, build: record.build, channel: record.channel, url: record.url };
}

/** The `--json` shape: `{platforms: [{platform, changes: [{name, kind, old?, new?}]}]}`. */
export function diffJson(diff: readonly PlatformDiff[]): { platforms: readonly PlatformDiff[] } {
  return { platforms: diff };
}

/** Only the platforms named (all when none is). */
export function onlyPlatforms(diff: PlatformDiff[], platforms: readonly string[] | undefined): PlatformDiff[] {
  return platforms && platforms.length > 0 ? diff.filter((p) => platforms.includes(p.platform)) : diff;
}

export function hasChanges(diff: readonly PlatformDiff[]): boolean {
  return diff.some((p) => p.changes.length > 0);
}

/** The table people read: per platform, a count line, then one aligned line per change. */
export function renderDiff(diff: readonly PlatformDiff[]): string {
  if (!hasChanges(diff)) return 'No changes\n';
  const lines: string[] = [];
  for (const { platform, changes } of diff) {
    if (changes.length === 0) {
      lines.push(`${platform}: no changes`);
      continue;
    }
    const counts = CHANGE_KINDS.map((kind) => [kind, changes.filter((c) => c.kind === kind).length] as const)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind}`);
    lines.push(`${platform}: ${counts.join(', ')}`);
    const rows = changes.map((c) => [
      c.kind,
      c.manager === 'pip' ? `${c.name} (pypi)` : c.name,
      c.old ? describe(c.old, c.new) : '',
      c.new ? describe(c.new, c.old) : '',
    ]);
    const width = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
    for (const row of rows) {
      const arrow = row[2] && row[3] ? '->' : '  ';
      lines.push(
        `  ${row[0]!.padEnd(width[0]!)}  ${row[1]!.padEnd(width[1]!)}  ${row[2]!.padEnd(width[2]!)}  ${arrow}  ${row[3]}`.trimEnd(),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `version build`, with the channel when the other side's differs. */
function describe(sideOf: PackageSide, other: PackageSide | undefined): string {
  const text = sideOf.build === '' ? sideOf.version : `${sideOf.version} ${sideOf.build}`;
  return other && other.channel !== sideOf.channel ? `${text} (${sideOf.channel})` : text;
}
