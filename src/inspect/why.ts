/**
 * Why a package is in a solved environment: every path from a requested spec to it (no package
 * twice on a path), shortest first, each step with the text that pulled it (the requested spec,
 * then each `depends` entry). Paths in a dependency graph can be exponentially many; at most
 * `limit` are returned. The walk deepens one length at a time and prunes with each package's
 * distance from the request, so the paths returned are truly the shortest, whatever the graph.
 */
import type { DependencyGraph, GraphEdge } from './graph.js';

export interface WhyAnswer {
  readonly name: string;
  /** Null when the package is not in the environment. */
  readonly version: string | null;
  readonly build: string | null;
  /** Each path starts with a root edge (`from: null`) and ends at `name`. */
  readonly paths: readonly (readonly GraphEdge[])[];
  /** True when more paths exist than were returned (or the walk hit its bound). */
  readonly truncated: boolean;
}

export const DEFAULT_WHY_PATHS = 50;
/** Steps of the walk at most, over every depth: a bound on the work for any graph. */
const MAX_STEPS = 500_000;

export function whyPaths(graph: DependencyGraph, name: string, limit = DEFAULT_WHY_PATHS): WhyAnswer {
  const record = graph.records.get(name);
  if (!record) return { name, version: null, build: null, paths: [], truncated: false };
  const distance = distancesFromRequest(graph);
  const start = distance.get(name);
  // Not reachable from the request (the solver may keep a package only a constraint names).
  if (start === undefined) return { name, version: record.version, build: record.build, paths: [], truncated: false };
  const found: GraphEdge[][] = [];
  let steps = 0;
  let stopped = false;
  const onPath = new Set<string>([name]);
  // The edges from `name` upwards; a path reads from the request down.
  const reversed: GraphEdge[] = [];
  /** Every simple path of exactly `length` edges (root edge included) up from `at`. */
  const walk = (at: string, length: number): void => {
    for (const edge of graph.dependents.get(at) ?? []) {
      if (found.length > limit || ++steps > MAX_STEPS) {
        stopped ||= steps > MAX_STEPS;
        return;
      }
      if (edge.from === null) {
        if (reversed.length + 1 === length) found.push([edge, ...[...reversed].reverse()]);
        continue;
      }
      const below = distance.get(edge.from);
      // `edge.from` needs at least `below` more steps and its root edge: too long, skip it.
      if (below === undefined || onPath.has(edge.from) || reversed.length + 2 + below > length) continue;
      onPath.add(edge.from);
      reversed.push(edge);
      walk(edge.from, length);
      reversed.pop();
      onPath.delete(edge.from);
    }
  };
  // A simple path visits each package at most once: no longer than the environment has packages.
  for (let length = start + 1; length <= graph.records.size && found.length <= limit && !stopped; length++) {
    const before = found.length;
    walk(name, length);
    found.splice(before, found.length - before, ...found.slice(before).sort((a, b) => key(a).localeCompare(key(b))));
  }
  return { name, version: record.version, build: record.build, paths: found.slice(0, limit), truncated: stopped || found.length > limit };
}

function key(path: readonly GraphEdge[]): string {
  return path.map((edge) => `${edge.from ?? ''}>${edge.to}`).join(' ');
}

/** Steps from the request to each package (breadth first over dependencies). */
function distancesFromRequest(graph: DependencyGraph): Map<string, number> {
  const distance = new Map<string, number>();
  let frontier = [...new Set(graph.roots.map((edge) => edge.to))];
  for (const name of frontier) distance.set(name, 0);
  for (let step = 1; frontier.length > 0; step++) {
    const next: string[] = [];
    for (const name of frontier) {
      for (const edge of graph.dependencies.get(name) ?? []) {
        if (distance.has(edge.to)) continue;
        distance.set(edge.to, step);
        next.push(edge.to);
      }
    }
    frontier = next;
  }
  return distance;
}

/**
 *   openssl 3.3.0 h4ab18f5_3 is needed by 2 paths:
 *   1. requested python=3.9
 *      -> python 3.9.19 h0755675_0_cpython  (requested python=3.9)
 *      -> openssl 3.3.0 h4ab18f5_3  (python depends on openssl >=3.2.1,<4.0a0)
 */
export function renderWhy(answer: WhyAnswer, graph: DependencyGraph): string[] {
  if (answer.version === null) return [`${answer.name} is not in the environment`];
  if (answer.paths.length === 0)
    return [
      `${answer.name} ${answer.version} ${answer.build} is in the environment, but no ${graph.rootWord === 'requested' ? 'requested spec' : 'top-level package'} leads to it through depends`,
    ];
  const count = answer.paths.length;
  const lines = [
    `${answer.name} ${answer.version} ${answer.build} is needed by ${count}${answer.truncated ? '+' : ''} path${count === 1 ? '' : 's'}:`,
  ];
  answer.paths.forEach((path, i) => {
    lines.push(`${i + 1}. ${graph.rootWord} ${path[0]!.spec}`);
    for (const edge of path) {
      const record = graph.records.get(edge.to)!;
      const why = edge.from === null ? `${graph.rootWord} ${edge.spec}` : `${edge.from} depends on ${edge.spec}`;
      lines.push(`   -> ${record.name} ${record.version} ${record.build}  (${why})`);
    }
  });
  if (answer.truncated) lines.push(`(only the ${count} shortest paths are shown)`);
  return lines;
}
