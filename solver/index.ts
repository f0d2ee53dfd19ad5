/**
 * conda-resolve's solver: an in-process CDCL SAT solver over repodata, with conda's semantics and
 * explanations for unsatisfiable requests. No I/O and no Node-only APIs: it runs in worker threads
 * and in browsers.
 *
 *   const outcome = solve({ specs: ['python=3.12', 'numpy'], channels, virtualPackages });
 *   if (outcome.kind === 'solved') use(outcome.records); else console.error(outcome.message);
 */
import { solveWith, type SolveOutcome } from './conda/solve.js';
import type { SolveRequest } from './conda/types.js';
import { vocabularySpecParser } from './conda/vocabulary-spec.js';

export { CHANNEL_PRIORITIES, type ChannelPriority, type RecordSource, type SolveChannel, type SolveRequest } from './conda/types.js';
export type { SolveOutcome, SolveDiagnostics } from './conda/solve.js';
export type {
  Explanation,
  RequirementFailure,
  CandidateGroup,
  CandidateReason,
  Requirer,
  Necessity,
  VersionList,
  VersionSpan,
} from './core/explain/types.js';
export { renderExplanation } from './core/explain/render.js';
export { SolveAbortedError, SolveSpecError, SolveTimeoutError } from './errors.js';

/**
 * Solves one environment, synchronously. Returns the selected records (sorted by name, virtual
 * packages left out) or, when no solution exists, a structured explanation and its rendered text.
 * Throws the vocabulary's `InvalidMatchSpecError` for an unparsable spec, `SolveSpecError` for a
 * spec without an exact package name, `SolveTimeoutError` / `SolveAbortedError` when the time
 * limit passes or the signal aborts.
 */
export function solve(request: SolveRequest): SolveOutcome {
  return solveWith(vocabularySpecParser, request);
}
