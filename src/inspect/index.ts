/**
 * Inspecting solved environments: the dependency tree, why a package is there, why another is
 * not. The same functions serve the CLI (`tree`, `why`, `why-not`), the HTTP routes, the MCP tools
 * and the library; they take a `Resolution` and answer per platform, as data (each has a text
 * form for people).
 */
import type { MatchSpec } from '../../vocabulary/match-spec.js';
import type { Resolution } from '../resolve.js';
import { buildGraph, type DependencyGraph } from './graph.js';
import { withPypi } from './pypi-graph.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { condaPypiMapping } from '../pypi/mapping.js';
import { pypiRequirementsOn } from '../pypi/request.js';
import type { PlatformResolution } from '../resolve.js';
import { dependencyTree, invertedTree, renderTree, type TreeNode } from './tree.js';
import { renderWhy, whyPaths, type WhyAnswer } from './why.js';

export { buildGraph, dependencyName, type DependencyGraph, type GraphEdge } from './graph.js';
export type { TreeNode } from './tree.js';
export type { WhyAnswer } from './why.js';
export {
  parseExtraSpec,
  whyNot,
  withAddedSpec,
  type PackageChange,
  type Preference,
  type TriedSpec,
  type WhyNotAnswer,
} from './why-not.js';

export interface PlatformTree {
  readonly platform: string;
  /** Why the platform has no tree (it did not solve); null otherwise. */
  readonly error: string | null;
  /** Top-down: one node per requested package; inverted: one node, the package asked about (none when it is absent). */
  readonly roots: readonly TreeNode[];
  /** The tree as text lines. */
  readonly text: string;
}

export interface TreeRequest {
  readonly depth?: number;
  /** Show every path to this package, bottom-up. */
  readonly invert?: string;
}

export function treeOf(resolution: Resolution, options: TreeRequest = {}): PlatformTree[] {
  return resolution.platforms.map((p) => {
    if (p.records === null) return { platform: p.platform, error: p.error, roots: [], text: '' };
    const graph = platformGraph(resolution, p, p.records);
    if (options.invert !== undefined) {
      const name = nodeKey(graph, options.invert);
      const root = invertedTree(graph, name, { depth: options.depth });
      return {
        platform: p.platform,
        error: null,
        roots: root ? [root] : [],
        text: root ? renderTree([root], graph.rootWord).join('\n') : `${name} is not in the environment`,
      };
    }
    const roots = dependencyTree(graph, { depth: options.depth });
    return { platform: p.platform, error: null, roots, text: renderTree(roots).join('\n') };
  });
}

export interface PlatformWhy {
  readonly platform: string;
  readonly error: string | null;
  readonly answer: WhyAnswer | null;
  readonly text: string;
}

export function whyOf(resolution: Resolution, name: string, limit?: number): PlatformWhy[] {
  return resolution.platforms.map((p) => {
    if (p.records === null) return { platform: p.platform, error: p.error, answer: null, text: '' };
    const graph = platformGraph(resolution, p, p.records);
    const answer = whyPaths(graph, nodeKey(graph, name), limit);
    return { platform: p.platform, error: null, answer, text: renderWhy(answer, graph).join('\n') };
  });
}

/** One platform's graph: its conda records, and its PyPI distributions with their own edges. */
function platformGraph(
  resolution: Resolution,
  p: PlatformResolution,
  records: NonNullable<PlatformResolution['records']>,
): DependencyGraph {
  const pypi = resolution.request.locked ? undefined : resolution.request.pypi;
  const graph = buildGraph(records, requestedSpecs(resolution), resolution.request.kept?.pypi.get(p.platform));
  return pypi
    ? withPypi(graph, p.pypi ?? [], pypiRequirementsOn(pypi, p.platform), condaPypiMapping(pypi.mappingOverrides))
    : withPypi(graph, p.pypi ?? [], []);
}

/** The graph's key for a name as a user spells it: a conda name, else a PyPI name in any PEP 503 spelling (`Typing_Extensions`). */
function nodeKey(graph: DependencyGraph, name: string): string {
  const lower = name.trim().toLowerCase();
  if (graph.records.has(lower)) return lower;
  const pypi = normalizePypiName(lower);
  return graph.records.has(pypi) ? pypi : graph.records.has(`pypi:${pypi}`) ? `pypi:${pypi}` : lower;
}

/** The specs the tree starts from; a lock's records have none (their top-level packages are the roots). */
function requestedSpecs(resolution: Resolution): readonly MatchSpec[] {
  return resolution.request.locked ? [] : resolution.request.specs;
}

/** Per-platform texts, headed by the platform when there are several. */
export function joinPlatformTexts(items: readonly { platform: string; text: string; error: string | null }[]): string {
  if (items.length === 1) return items[0]!.error ?? items[0]!.text;
  return items.map((item) => `${item.platform}:\n${item.error ?? item.text}`).join('\n\n');
}
