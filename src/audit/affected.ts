/**
 * Does an OSV `affected` entry cover a version? The evaluation of the OSV schema ("Evaluation"):
 * `ECOSYSTEM` and `SEMVER` ranges walk their events in version order (`introduced` opens,
 * `fixed` closes at that version, `last_affected` closes after it, `limit` bounds the range from
 * above), and the `versions` list names versions outright. `GIT` ranges name commits, which a
 * package version cannot be compared with: they are left to the `versions` list, as OSV does.
 */
import semver from 'semver';
import { comparePypiVersions, tryParsePypiVersion, type PypiVersion } from '../../vocabulary/pypi/index.js';
import type { OsvAffected, OsvEvent } from './osv.js';

/** Orders versions of one ecosystem; undefined for a version it cannot read. */
interface Ordering<V> {
  parse(text: string): V | undefined;
  compare(a: V, b: V): number;
}

const PEP_440: Ordering<PypiVersion> = {
  parse: (text) => tryParsePypiVersion(text) ?? undefined,
  compare: comparePypiVersions,
};

const SEMVER: Ordering<semver.SemVer> = {
  parse: (text) => semver.parse(text.replace(/^v/, '')) ?? undefined,
  compare: (a, b) => a.compare(b),
};

/** The ordering of an ecosystem's `ECOSYSTEM` ranges: PEP 440 for PyPI. */
function ecosystemOrdering(ecosystem: string): Ordering<unknown> | undefined {
  return ecosystem === 'PyPI' ? (PEP_440 as Ordering<unknown>) : undefined;
}

export type AffectedAnswer = 'affected' | 'not-affected' | 'unknown';

/**
 * `unknown` when the version cannot be read in the ecosystem's terms (a conda version that is not
 * PEP 440): the package is then not covered by this record, which the report says.
 */
export function affects(entry: OsvAffected, version: string): AffectedAnswer {
  const ecosystem = entry.package?.ecosystem ?? '';
  let unknown = false;
  for (const listed of entry.versions ?? []) {
    if (listed === version) return 'affected';
  }
  for (const range of entry.ranges ?? []) {
    const ordering =
      range.type === 'SEMVER' ? (SEMVER as Ordering<unknown>) : range.type === 'ECOSYSTEM' ? ecosystemOrdering(ecosystem) : undefined;
    if (!ordering) continue;
    const answer = inRange(ordering, range.events, version);
    if (answer === 'affected') return 'affected';
    if (answer === 'unknown') unknown = true;
  }
  // A listed version equal to ours in the ecosystem's terms (`1.0` and `1.0.0` under PEP 440).
  const ordering = ecosystemOrdering(ecosystem);
  const ours = ordering?.parse(version);
  if (ordering && ours !== undefined) {
    for (const listed of entry.versions ?? []) {
      const other = ordering.parse(listed);
      if (other !== undefined && ordering.compare(ours, other) === 0) return 'affected';
    }
  }
  return unknown ? 'unknown' : 'not-affected';
}

interface Parsed<V> {
  readonly kind: 'introduced' | 'fixed' | 'last_affected' | 'limit';
  /** undefined: `0` (before every version) for introduced, `*` (after every version) for limit. */
  readonly at: V | undefined;
}

function inRange<V>(ordering: Ordering<V>, events: readonly OsvEvent[], text: string): AffectedAnswer {
  const version = ordering.parse(text);
  if (version === undefined) return 'unknown';
  const parsed: Parsed<V>[] = [];
  for (const event of events) {
    const [kind, value] = Object.entries(event)[0] ?? [];
    if (kind !== 'introduced' && kind !== 'fixed' && kind !== 'last_affected' && kind !== 'limit') continue;
    if (typeof value !== 'string') continue;
    if ((kind === 'introduced' && value === '0') || (kind === 'limit' && value === '*')) {
      parsed.push({ kind, at: undefined });
      continue;
    }
    const at = ordering.parse(value);
    if (at === undefined) return 'unknown';
    parsed.push({ kind, at });
  }
  const limits = parsed.filter((e) => e.kind === 'limit' && e.at !== undefined);
  if (limits.length > 0 && limits.every((l) => ordering.compare(version, l.at!) >= 0)) return 'not-affected';
  const key = (e: Parsed<V>) => (e.at === undefined ? (e.kind === 'introduced' ? -1 : 1) : 0);
  parsed.sort((a, b) => key(a) - key(b) || (a.at !== undefined && b.at !== undefined ? ordering.compare(a.at, b.at) : 0));
  let vulnerable = false;
  for (const event of parsed) {
    if (event.kind === 'introduced') {
      if (event.at === undefined || ordering.compare(version, event.at) >= 0) vulnerable = true;
    } else if (event.kind === 'fixed') {
      if (ordering.compare(version, event.at!) >= 0) vulnerable = false;
    } else if (event.kind === 'last_affected') {
      if (ordering.compare(version, event.at!) > 0) vulnerable = false;
    }
  }
  return vulnerable ? 'affected' : 'not-affected';
}

/** The versions that fix it, as the ranges say (for the report's "fixed in"). */
export function fixedVersions(entry: OsvAffected): string[] {
  return (entry.ranges ?? []).flatMap((r) => r.events.flatMap((e) => ('fixed' in e ? [e.fixed] : [])));
}
