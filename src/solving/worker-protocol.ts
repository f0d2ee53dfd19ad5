/**
 * The messages between `SolvePool` and its workers (`solve-worker.ts`). A solve crosses as the
 * solver's own `SolveRequest`, with index keys for sources and spec texts for specs: class
 * instances lose their prototype on the way, so each worker parses the specs once itself.
 */
import type { SolveRequest } from '../../solver/index.js';
import type { IndexKey, SharedIndexHandle } from './shared-index.js';
import type { PlatformSolveOutcome } from './types.js';

export interface SolveMessage {
  readonly type: 'solve';
  readonly id: number;
  /** Keys the worker should drop (the pool bounds what each worker keeps). */
  readonly forget: readonly IndexKey[];
  /** Indexes this worker has not been given before. */
  readonly indexes: Readonly<Record<IndexKey, SharedIndexHandle>>;
  /** Set to 1 by the pool to cancel; the solve's AbortSignal reads it. */
  readonly cancelFlag: Int32Array;
  readonly request: Omit<SolveRequest<IndexKey, string>, 'signal'>;
}

export interface ResultMessage {
  readonly type: 'result';
  readonly id: number;
  readonly outcome: PlatformSolveOutcome;
}
