/**
 * The unsat core read once into the lookups the explanation walk asks about a record: what it
 * requires, which records it cannot be installed with, who constrains it and whom it constrains,
 * and whether its metadata is unusable. The walk then never decodes a clause itself.
 */
import type { ClauseId, SolvableId, VersionSetId } from '../ids.js';
import type { CoreSolver } from '../solver.js';

/** A `requires` clause of the core: `parent` (null for a requested spec) needs `versionSet`. */
export interface RequirementEdge {
  readonly parent: SolvableId | null;
  readonly versionSet: VersionSetId;
}

export interface CoreIndex {
  /** Version sets each record requires. */
  readonly requiresOf: ReadonlyMap<SolvableId, readonly VersionSetId[]>;
  /** Records each record cannot be installed with (same name, or a `forbid` clause). */
  readonly forbidden: ReadonlyMap<SolvableId, readonly SolvableId[]>;
  /** Who rules each record out through `constrains`, and with which version set. */
  readonly constrainedBy: ReadonlyMap<SolvableId, readonly { parent: SolvableId; versionSet: VersionSetId }[]>;
  /** Whom each record rules out through its own `constrains`, and with which version set. */
  readonly constrainsOf: ReadonlyMap<SolvableId, readonly { target: SolvableId; versionSet: VersionSetId }[]>;
  /** Records whose metadata is unusable, with the provider's reason. */
  readonly unknown: ReadonlyMap<SolvableId, string>;
  /** Requirement edges of the core, root edges first, in clause order. */
  readonly edges: readonly RequirementEdge[];
}

export function indexCore(solver: CoreSolver, core: readonly ClauseId[]): CoreIndex {
  const requiresOf = new Map<SolvableId, VersionSetId[]>();
  const forbidden = new Map<SolvableId, SolvableId[]>();
  const constrainedBy = new Map<SolvableId, { parent: SolvableId; versionSet: VersionSetId }[]>();
  const constrainsOf = new Map<SolvableId, { target: SolvableId; versionSet: VersionSetId }[]>();
  const unknown = new Map<SolvableId, string>();
  const rootEdges: RequirementEdge[] = [];
  const otherEdges: RequirementEdge[] = [];
  for (const clause of core) {
    const described = solver.describe(clause);
    switch (described.kind) {
      case 'requires':
        if (described.parent === null) rootEdges.push({ parent: null, versionSet: described.versionSet });
        else {
          otherEdges.push({ parent: described.parent, versionSet: described.versionSet });
          push(requiresOf, described.parent, described.versionSet);
        }
        break;
      case 'forbid':
        push(forbidden, described.a, described.b);
        push(forbidden, described.b, described.a);
        break;
      case 'constrains':
        push(constrainedBy, described.target, { parent: described.parent, versionSet: described.versionSet });
        push(constrainsOf, described.parent, { target: described.target, versionSet: described.versionSet });
        break;
      case 'unknown':
        unknown.set(described.solvable, described.reason);
        break;
    }
  }
  return { requiresOf, forbidden, constrainedBy, constrainsOf, unknown, edges: [...rootEdges, ...otherEdges] };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
