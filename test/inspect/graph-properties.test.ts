/**
 * tree and why on generated environments (fast-check): every why path is a real chain of
 * `depends` edges from a requested spec, no package twice, the paths come shortest first, and
 * with no limit they are every simple path (checked against a brute-force count); the tree shows
 * each reachable package in full exactly once.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { buildGraph, type DependencyGraph, type TreeNode } from '../../src/inspect/index.js';
import { dependencyTree } from '../../src/inspect/tree.js';
import { whyPaths } from '../../src/inspect/why.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { record } from '../vocabulary/helpers.js';

/** Packages p0..pN-1; each depends on a few others (cycles allowed); some are requested. */
const environments = fc.integer({ min: 2, max: 8 }).chain((n) =>
  fc.record({
    depends: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), { minLength: n, maxLength: n }),
    requested: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
  }),
);

function graphOf(env: { depends: number[][]; requested: number[] }): DependencyGraph {
  const records = env.depends.map((deps, i) => record(`p${i}-1.0-h_0`, { depends: deps.filter((d) => d !== i).map((d) => `p${d} >=1`) }));
  return buildGraph(
    records,
    env.requested.map((i) => parseMatchSpec(`p${i}`)),
  );
}

/** Every simple path from a requested package up to `name`, by brute force. */
function allPaths(graph: DependencyGraph, name: string): string[][] {
  const out: string[][] = [];
  const down = (at: string, path: string[]): void => {
    if (at === name) out.push(path);
    for (const edge of graph.dependencies.get(at) ?? []) if (!path.includes(edge.to)) down(edge.to, [...path, edge.to]);
  };
  for (const root of graph.roots) down(root.to, [root.to]);
  return out;
}

it('why: real edges, simple, shortest first, and all of them', () => {
  fc.assert(
    fc.property(environments, (env) => {
      const graph = graphOf(env);
      for (const name of graph.records.keys()) {
        const answer = whyPaths(graph, name, 10_000);
        const expected = allPaths(graph, name);
        expect(answer.paths.length).toBe(expected.length);
        expect(answer.truncated).toBe(false);
        let last = 0;
        for (const path of answer.paths) {
          expect(path[0]!.from).toBeNull();
          expect(path.at(-1)!.to).toBe(name);
          path.slice(1).forEach((edge, i) => {
            expect(edge.from).toBe(path[i]!.to);
            expect(graph.records.get(edge.from!)!.depends).toContain(edge.spec);
          });
          expect(new Set(path.map((e) => e.to)).size).toBe(path.length);
          expect(path.length).toBeGreaterThanOrEqual(last);
          last = path.length;
        }
        // A limit keeps the shortest ones and says more exist.
        if (expected.length > 1) {
          const cut = whyPaths(graph, name, 1);
          expect(cut.truncated).toBe(true);
          expect(cut.paths[0]!.length).toBe(Math.min(...expected.map((p) => p.length)));
        }
      }
    }),
  );
});

it('tree: each package reachable from the request is shown in full exactly once', () => {
  fc.assert(
    fc.property(environments, (env) => {
      const graph = graphOf(env);
      const full = new Map<string, number>();
      const walk = (node: TreeNode): void => {
        if (!node.repeated && !node.truncated) full.set(node.name, (full.get(node.name) ?? 0) + 1);
        node.children.forEach(walk);
      };
      dependencyTree(graph).forEach(walk);
      const reachable = new Set(graph.roots.map((r) => r.to));
      for (const name of reachable) for (const edge of graph.dependencies.get(name) ?? []) reachable.add(edge.to);
      // A package with no dependencies is never "repeated" (nothing is left out), so it may appear often.
      for (const [name, count] of full) if ((graph.dependencies.get(name) ?? []).length > 0) expect(count, name).toBe(1);
      expect([...full.keys()].sort()).toEqual([...reachable].sort());
    }),
  );
});
