/**
 * The contract between the generic CDCL core and an ecosystem (conda, or a test universe).
 *
 * The core knows nothing about versions or match specs: it asks the provider for a name's
 * candidates (already sorted, most preferred first, up to the ties of `TieBreaking`), which candidates a version set matches, and a
 * solvable's dependencies. Every answer is requested lazily, only for names and solvables the
 * search reaches, and the core asks each question at most once per version set or solvable.
 */
import type { NameId, SolvableId, VersionSetId } from './ids.js';

export interface ExcludedCandidate {
  readonly solvable: SolvableId;
  /** Why the candidate may not be selected, e.g. `excluded by strict channel priority`. */
  readonly reason: string;
}

export interface Candidates {
  /** Candidates that may be selected, most preferred first. */
  readonly solvables: readonly SolvableId[];
  /** Candidates that exist but may never be selected; only explanations look at them. */
  readonly excluded: readonly ExcludedCandidate[];
}

export type Dependencies =
  | {
      readonly kind: 'known';
      /** Each entry: some selected solvable must match this version set. */
      readonly requires: readonly VersionSetId[];
      /** Each entry: if the version set's name is selected, the selected solvable must match it. */
      readonly constrains: readonly VersionSetId[];
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/**
 * Ties left open until a decision needs them. Breaking a tie can cost much more than the rest of
 * the order (conda's rule reads every tied record's dependencies and the candidates they allow), and
 * a search decides among few of the ties it sees, so a provider may give runs of equally ranked
 * candidates in a provisional order and break a run only when the heuristic picks from it.
 */
export interface TieBreaking {
  /** The run of provisionally ordered candidates `solvable` belongs to, or -1 when its place is final. */
  tieRun(solvable: SolvableId): number;
  /** The most preferred of `solvables`: two or more candidates of one run. */
  preferred(solvables: readonly SolvableId[]): SolvableId;
}

export interface DependencyProvider {
  /**
   * When present, candidate lists may hold runs (see `TieBreaking`) in a provisional order, which
   * the search orders only when it decides among their members; otherwise the order is final.
   */
  readonly ties?: TieBreaking;
  nameOfSolvable(solvable: SolvableId): NameId;
  nameOfVersionSet(versionSet: VersionSetId): NameId;
  candidates(name: NameId): Candidates;
  /** The selectable candidates of the version set's name that match it, in candidate order. */
  matching(versionSet: VersionSetId): readonly SolvableId[];
  /** The selectable candidates of the version set's name that do not match it. */
  notMatching(versionSet: VersionSetId): readonly SolvableId[];
  dependencies(solvable: SolvableId): Dependencies;
}

/**
 * Reasons a search ends without an answer. The core polls `check` now and then; the caller turns
 * a non-null answer into its own typed error.
 */
export interface Cancellation {
  check(): 'timeout' | 'aborted' | null;
}
