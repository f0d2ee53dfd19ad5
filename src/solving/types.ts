/**
 * What every runner of a platform's solve takes and gives back. The resolve orchestration
 * (`src/resolve.ts`) hands one `PlatformSolveInput` per platform to a `PlatformSolver` and does not
 * care where the solve runs: this thread, a worker of the pool, or a cache in front of either.
 */
import type { Explanation, SolveRequest } from '../../solver/index.js';
import type { SubdirIndex } from '../../repodata/types.js';
import type { MatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';

/** The solver's request over loaded indexes, with the root specs parsed once by `prepareRequest`. */
export type PlatformSolveInput = Omit<SolveRequest<SubdirIndex, MatchSpec>, 'signal'>;

export type PlatformSolveOutcome =
  /** Sorted by name; virtual packages are not included. */
  | { readonly kind: 'solved'; readonly records: readonly PackageRecord[] }
  /** `message` is the explanation rendered as text. */
  | { readonly kind: 'unsatisfiable'; readonly message: string; readonly explanation: Explanation }
  | { readonly kind: 'error'; readonly code: string; readonly message: string };

export interface PlatformSolver {
  solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome>;
}

/**
 * A store of mixed conda+PyPI answers beside a solver (the in-memory cache, Redis): the PyPI side
 * (`src/pypi/answer-cache.ts`) keys, encodes and checks the entries; the store keeps them and names
 * the conda part's index state in the key as it does for its own entries.
 */
export interface MixedAnswerStore {
  /** The conda part of the key (specs, options and each index's identity), or null: not cacheable. */
  condaKey(input: PlatformSolveInput): string | null;
  /** The entry's text, or null. */
  get(key: string): Promise<string | null>;
  set(key: string, text: string): Promise<void>;
  /** Told whether a lookup was served, for the stats and metrics. */
  counted(hit: boolean): void;
}

/** A solver that also keeps mixed answers. */
export interface MixedAnswerSource {
  readonly mixedAnswers?: MixedAnswerStore;
}
