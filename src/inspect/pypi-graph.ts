/**
 * PyPI distributions in the dependency graph: one node per solved distribution (keyed by its
 * PEP 503 name, `pypi:NAME` when a conda record has that name), an edge for each name of its
 * `depends` (the Requires-Dist entries that hold on the platform) with the Requires-Dist text as
 * the edge's spec, and root edges from the request's PyPI requirements. The node's build is
 * `pypi`, so `tree` and `why` show which ecosystem a package comes from. A requirement the solve
 * left to a conda package that provides the distribution (the conda-to-PyPI mapping) is an edge
 * to that conda package.
 */
import { tryParseRequirement, type PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { pypiAsRecord } from '../pypi/as-record.js';
import type { CondaPypiMapping } from '../pypi/mapping.js';
import type { DependencyGraph, GraphEdge } from './graph.js';

/** `graph` with the PyPI distributions of the same platform added; `requested` are the root PyPI requirements. */
export function withPypi(
  graph: DependencyGraph,
  pypi: readonly PypiRecord[],
  requested: readonly PypiRequirement[],
  mapping?: CondaPypiMapping,
): DependencyGraph {
  if (pypi.length === 0 && requested.length === 0) return graph;
  // A PyPI name the solve left to a conda package (the mapping says which): the edge goes to it.
  const condaKey = new Map<string, string>();
  for (const [key, record] of graph.records) {
    if (record.build === 'pypi') continue;
    for (const name of mapping?.providedBy(record) ?? []) if (!condaKey.has(name)) condaKey.set(name, key);
  }
  const keyOf = new Map<string, string>(condaKey);
  for (const record of pypi) {
    const name = normalizePypiName(record.name);
    // A node of that name kept from a lock is the same distribution: the solved one replaces it.
    const held = graph.records.get(name);
    keyOf.set(name, held && held.build !== 'pypi' ? `pypi:${name}` : name);
  }
  const records = new Map(graph.records);
  for (const record of pypi) records.set(keyOf.get(normalizePypiName(record.name))!, pypiAsRecord(record));
  const sorted = new Map([...records].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const dependencies = new Map(graph.dependencies);
  const dependents = new Map<string, GraphEdge[]>([...sorted.keys()].map((key) => [key, [...(graph.dependents.get(key) ?? [])]]));
  const roots = [...graph.roots];
  for (const requirement of requested) {
    const key = keyOf.get(requirement.normalizedName);
    if (key === undefined || roots.some((edge) => edge.to === key && edge.spec === String(requirement))) continue;
    if (!sorted.has(key)) continue;
    const edge: GraphEdge = { from: null, to: key, spec: String(requirement) };
    roots.push(edge);
    dependents.get(key)!.unshift(edge);
  }
  for (const record of pypi) {
    const from = keyOf.get(normalizePypiName(record.name))!;
    const out: GraphEdge[] = [];
    for (const name of record.depends ?? []) {
      const to = keyOf.get(name);
      if (to === undefined || to === from) continue;
      const spec = record.requires_dist.find((text) => tryParseRequirement(text)?.normalizedName === name) ?? name;
      const edge: GraphEdge = { from, to, spec };
      out.push(edge);
      dependents.get(to)!.push(edge);
    }
    dependencies.set(from, out);
  }
  return { ...graph, records: sorted, roots, dependencies, dependents };
}
