/**
 * A solved environment as a graph: one node per selected record, an edge from a record to each
 * record its `depends` entries select, and root edges from the request to the records the
 * requested specs select. Each edge keeps the exact text that pulled it (the `depends` entry, or
 * the spec as the user wrote it), so every answer built on the graph can be checked against the
 * channel's files. Dependencies on virtual packages (`__glibc`) have no record and no edge.
 */
import { dependencyName, type MatchSpec } from '../../vocabulary/match-spec.js';

export { dependencyName };
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizePypiName, requirementName, requirementNeedsExtra, type PypiRecord } from '../../vocabulary/pypi-record.js';

export interface GraphEdge {
  /** The name of the record whose `depends` entry this is; null for a requested spec. */
  readonly from: string | null;
  readonly to: string;
  /** The `depends` entry, or the requested spec as given. */
  readonly spec: string;
}

export interface DependencyGraph {
  /** Selected records by name, in name order. */
  readonly records: ReadonlyMap<string, PackageRecord>;
  /** Edges from the request, in the order of the requested specs. */
  readonly roots: readonly GraphEdge[];
  /** Out-edges of each record, in its `depends` order. */
  readonly dependencies: ReadonlyMap<string, readonly GraphEdge[]>;
  /** In-edges of each record (who needs it), root edges first, then by name. */
  readonly dependents: ReadonlyMap<string, readonly GraphEdge[]>;
  /** How a root is named in text: `requested` specs, or a lock's `top-level` packages. */
  readonly rootWord: 'requested' | 'top-level';
}

export function buildGraph(
  records: readonly PackageRecord[],
  requested: readonly MatchSpec[],
  pypi: readonly PypiRecord[] = [],
): DependencyGraph {
  // PyPI packages kept from a lock are nodes too, by normalised name, with edges from the
  // `requires_dist` entries that apply without an extra (markers are not evaluated).
  const pypiNodes = new Map(pypi.map((r) => [normalizePypiName(r.name), pypiNode(r)] as const));
  const all = [...records, ...[...pypiNodes.values()].filter((node) => !records.some((r) => r.name === node.name))];
  const byName = new Map(all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((r) => [r.name, r] as const));
  const roots: GraphEdge[] = [];
  for (const spec of requested) {
    for (const record of byName.values()) {
      if (spec.matches(record) && !roots.some((edge) => edge.to === record.name && edge.spec === spec.source))
        roots.push({ from: null, to: record.name, spec: spec.source });
    }
  }
  const dependencies = new Map<string, GraphEdge[]>();
  const dependents = new Map<string, GraphEdge[]>([...byName.keys()].map((name) => [name, roots.filter((edge) => edge.to === name)]));
  for (const record of byName.values()) {
    const out: GraphEdge[] = [];
    const isPypi = pypiNodes.get(record.name) === record;
    for (const entry of record.depends) {
      const requirement = isPypi ? requirementName(entry) : undefined;
      const name = isPypi
        ? requirement === undefined || requirementNeedsExtra(entry)
          ? null
          : normalizePypiName(requirement)
        : dependencyName(entry);
      if (name === null || name === record.name || !byName.has(name)) continue;
      const edge: GraphEdge = { from: record.name, to: name, spec: entry };
      out.push(edge);
      dependents.get(name)!.push(edge);
    }
    dependencies.set(record.name, out);
  }
  if (requested.length === 0) topLevelRoots(byName, dependencies, dependents, roots);
  return { records: byName, roots, dependencies, dependents, rootWord: requested.length === 0 ? 'top-level' : 'requested' };
}

/** A PyPI package as a graph node: its build is `pypi`, its dependencies its `requires_dist`. */
function pypiNode(record: PypiRecord): PackageRecord {
  return {
    name: normalizePypiName(record.name),
    version: record.version ?? record.url,
    build: 'pypi',
    build_number: 0,
    channel: record.index ?? 'pypi',
    subdir: 'pypi',
    fn: record.url.split('/').pop() ?? record.url,
    url: record.url,
    md5: record.md5,
    sha256: record.sha256,
    size: null,
    depends: record.requires_dist,
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
  };
}

/**
 * A lock's records come with no request: its roots are the packages nothing else depends on (what
 * was asked for, in effect). A dependency cycle that nothing outside it reaches (conda-forge's
 * python depends on pip, which depends on python) gives one root too: the member fewest packages
 * depend on (pip rather than python), then the first by name. A root edge's spec is the bare name.
 */
function topLevelRoots(
  records: ReadonlyMap<string, PackageRecord>,
  dependencies: ReadonlyMap<string, readonly GraphEdge[]>,
  dependents: Map<string, GraphEdge[]>,
  roots: GraphEdge[],
): void {
  const walk = (start: string, next: (name: string) => Iterable<string>): Set<string> => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      for (const other of next(name)) stack.push(other);
    }
    return seen;
  };
  const down = (name: string): Iterable<string> => (dependencies.get(name) ?? []).map((edge) => edge.to);
  const up = (name: string): Iterable<string> => (dependents.get(name) ?? []).flatMap((edge) => (edge.from === null ? [] : [edge.from]));
  const reached = new Set<string>();
  const addRoot = (name: string): void => {
    const edge: GraphEdge = { from: null, to: name, spec: name };
    roots.push(edge);
    dependents.get(name)!.unshift(edge);
    for (const below of walk(name, down)) reached.add(below);
  };
  for (const name of records.keys()) if (dependents.get(name)!.length === 0) addRoot(name);
  const candidates = [...records.keys()].sort(
    (a, b) => dependents.get(a)!.length - dependents.get(b)!.length || (a < b ? -1 : a > b ? 1 : 0),
  );
  for (const name of candidates) {
    if (reached.has(name)) continue;
    // A member of a cycle that nothing outside reaches: everything above it is also below it.
    const below = walk(name, down);
    if ([...walk(name, up)].every((above) => below.has(above))) addRoot(name);
  }
}

/** "numpy 2.0.0 py312h..._0": how a record is named in trees and paths. */
export function recordLabel(record: PackageRecord): string {
  return `${record.name} ${record.version} ${record.build}`;
}
