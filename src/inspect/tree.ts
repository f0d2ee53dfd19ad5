/**
 * The dependency tree of a solved environment, as `pixi tree` shows it: from each requested spec
 * down through `depends`, each package expanded once (later occurrences are marked `repeated`, as
 * cargo's and pixi's `(*)`), optionally cut at a depth. Inverted (`--invert NAME`), it starts at
 * NAME and goes up through the packages that depend on it to the requested specs.
 */
import type { DependencyGraph, GraphEdge } from './graph.js';

export interface TreeNode {
  readonly name: string;
  /** Null on the request end of an inverted tree (a requested spec, no record). */
  readonly version: string | null;
  readonly build: string | null;
  /** The text that links this node to its parent: the `depends` entry, or the requested spec. */
  readonly spec: string;
  /** True for a requested spec at the top of an inverted tree's branch. */
  readonly requested: boolean;
  /** Shown in full further up; its children are left out here. */
  readonly repeated: boolean;
  /** Has children below the depth limit that are left out. */
  readonly truncated: boolean;
  readonly children: readonly TreeNode[];
}

export interface TreeOptions {
  /** Levels below the top to show (1 = the requested packages' direct dependencies); default all. */
  readonly depth?: number;
}

/** Top-down: one branch per requested package. */
export function dependencyTree(graph: DependencyGraph, options: TreeOptions = {}): TreeNode[] {
  const seen = new Set<string>();
  const maxDepth = options.depth ?? Infinity;
  const visit = (edge: GraphEdge, depth: number): TreeNode => {
    const record = graph.records.get(edge.to)!;
    const out = graph.dependencies.get(edge.to) ?? [];
    const base = { name: record.name, version: record.version, build: record.build, spec: edge.spec, requested: edge.from === null };
    if (seen.has(edge.to)) return { ...base, repeated: out.length > 0, truncated: false, children: [] };
    // Cut by the depth limit, a package is not "shown": a shallower occurrence still expands it.
    if (depth >= maxDepth) return { ...base, repeated: false, truncated: out.length > 0, children: [] };
    seen.add(edge.to);
    return { ...base, repeated: false, truncated: false, children: out.map((child) => visit(child, depth + 1)) };
  };
  return graph.roots.map((edge) => visit(edge, 0));
}

/** Bottom-up from `name`: each child is a package that depends on its parent, up to the requested specs. */
export function invertedTree(graph: DependencyGraph, name: string, options: TreeOptions = {}): TreeNode | null {
  const record = graph.records.get(name);
  if (!record) return null;
  const seen = new Set<string>([name]);
  const maxDepth = options.depth ?? Infinity;
  const up = (of: string, depth: number): TreeNode[] =>
    (graph.dependents.get(of) ?? []).map((edge): TreeNode => {
      if (edge.from === null) {
        return {
          name: edge.spec,
          version: null,
          build: null,
          spec: edge.spec,
          requested: true,
          repeated: false,
          truncated: false,
          children: [],
        };
      }
      const parent = graph.records.get(edge.from)!;
      const more = (graph.dependents.get(edge.from) ?? []).length > 0;
      const base = { name: parent.name, version: parent.version, build: parent.build, spec: edge.spec, requested: false };
      if (seen.has(edge.from)) return { ...base, repeated: more, truncated: false, children: [] };
      if (depth >= maxDepth) return { ...base, repeated: false, truncated: more, children: [] };
      seen.add(edge.from);
      return { ...base, repeated: false, truncated: false, children: up(edge.from, depth + 1) };
    });
  return {
    name: record.name,
    version: record.version,
    build: record.build,
    spec: '',
    requested: false,
    repeated: false,
    truncated: false,
    children: up(name, 1),
  };
}

/**
 * Text, one line per node:
 *   python 3.9.19 h0755675_0_cpython [python=3.9]
 *   ├─ bzip2 1.0.8 hd590300_5 [bzip2 >=1.0.8,<2.0a0]
 *   │  └─ libgcc-ng 13.2.0 h77fa898_7 [libgcc-ng >=12] (*)
 * `(*)`: shown above; `...`: cut by the depth limit. Inverted trees read "needed by" downwards.
 */
export function renderTree(roots: readonly TreeNode[], rootWord: 'requested' | 'top-level' = 'requested'): string[] {
  const lines: string[] = [];
  const walk = (node: TreeNode, prefix: string, branch: string, childPrefix: string): void => {
    lines.push(`${prefix}${branch}${nodeText(node, rootWord)}`);
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      walk(child, childPrefix, last ? '└─ ' : '├─ ', childPrefix + (last ? '   ' : '│  '));
    });
  };
  for (const root of roots) walk(root, '', '', '');
  return lines;
}

function nodeText(node: TreeNode, rootWord: string): string {
  if (node.requested && node.version === null) return `${rootWord} ${node.spec}`;
  const label = `${node.name} ${node.version} ${node.build}`;
  const spec = node.spec === '' ? '' : ` [${node.spec}]`;
  return `${label}${spec}${node.repeated ? ' (*)' : ''}${node.truncated ? ' ...' : ''}`;
}
