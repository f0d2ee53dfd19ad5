/**
 * Why a package is in a solved environment: every path from a requested spec to it, shortest
 * first, each step with the text that pulled it (the requested spec, then each `depends` entry).
 * Paths in a dependency graph can be exponentially many; at most `limit` are returned, and the
 * walk takes short paths first (it follows the dependents closest to the request first).
 */
import type { DependencyGraph, GraphEdge } from './graph.js';

export interface WhyAnswer {
  readonly name: string;
  /** Null when the package is not in the environment. */
  readonly version: string | null;
  readonly build: string | null;
  /** Each path starts with a root edge (`from: null`) and ends at `name`. */
  readonly paths: readonly (readonly GraphEdge[])[];
  /** True when more paths exist than were returned. */
  readonly truncated: boolean;
}

export const DEFAULT_WHY_PATHS = 50;
/** Paths examined at most before the shortest `limit` are picked. */
const MAX_EXAMINED = 5000;
/** Steps of the walk at most: dead ends (every dependent already on the path) count too. */
const MAX_STEPS = 200_000;

export function whyPaths(graph: DependencyGraph, name: string, limit = DEFAULT_WHY_PATHS): WhyAnswer {
  const record = graph.records.get(name);
  if (!record) return { name, version: null, build: null, paths: [], truncated: false };
  const distance = distancesFromRequest(graph);
  const found: GraphEdge[][] = [];
  let stopped = false;
  const onPath = new Set<string>([name]);
  const reversed: GraphEdge[] = [];
  let steps = 0;
  const walk = (at: string): void => {
    if (stopped) return;
    if (++steps > MAX_STEPS) {
      stopped = true;
      return;
    }
    const incoming = [...(graph.dependents.get(at) ?? [])].sort((a, b) => rank(a, distance) - rank(b, distance));
    for (const edge of incoming) {
      if (found.length >= MAX_EXAMINED) {
        stopped = true;
        return;
      }
      if (edge.from === null) {
        // `reversed` holds the edges from `name` upwards; a path reads from the request down.
        found.push([edge, ...[...reversed].reverse()]);
        continue;
      }
      if (onPath.has(edge.from)) continue;
      onPath.add(edge.from);
      reversed.push(edge);
      walk(edge.from);
      reversed.pop();
      onPath.delete(edge.from);
    }
  };
  walk(name);
  const paths = found.sort((a, b) => a.length - b.length || key(a).localeCompare(key(b)));
  return { name, version: record.version, build: record.build, paths: paths.slice(0, limit), truncated: stopped || paths.length > limit };
}

function key(path: readonly GraphEdge[]): string {
  return path.map((edge) => `${edge.from ?? ''}>${edge.to}`).join(' ');
}

function rank(edge: GraphEdge, distance: ReadonlyMap<string, number>): number {
  return edge.from === null ? -1 : (distance.get(edge.from) ?? Infinity);
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
  const count = answer.paths.length;
  const lines = [`${answer.name} ${answer.version} ${answer.build} is needed by ${count}${answer.truncated ? '+' : ''} path${count === 1 ? '' : 's'}:`];
  answer.paths.forEach((path, i) => {
    lines.push(`${i + 1}. requested ${path[0]!.spec}`);
    for (const edge of path) {
      const record = graph.records.get(edge.to)!;
      const why = edge.from === null ? `requested ${edge.spec}` : `${edge.from} depends on ${edge.spec}`;
      lines.push(`   -> ${record.name} ${record.version} ${record.build}  (${why})`);
    }
  });
  if (answer.truncated) lines.push(`(only the ${count} shortest paths are shown)`);
  return lines;
}
