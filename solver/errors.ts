/** Typed errors of the solver: a solve that ran out of time or was cancelled, a root spec it cannot use. */
import { CondaResolveError } from '../vocabulary/errors.js';

/** The codes the solver throws, and what each means (merged into `ErrorCodes`). */
export const SOLVER_ERROR_CODES = {
  CR_ERR_SOLVE_TIMEOUT: 'A solve (or a whole resolve) ran past its time limit.',
  CR_ERR_SOLVE_ABORTED: 'A solve was cancelled through its AbortSignal (a client went away, the caller gave up).',
  CR_ERR_SOLVE_SPEC: 'A root spec is valid conda syntax but not one package to install (a virtual package, a bare channel).',
} as const;

type SolverErrorCodes = typeof SOLVER_ERROR_CODES;

declare module '../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends SolverErrorCodes {}
}

export class SolveTimeoutError extends CondaResolveError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('CR_ERR_SOLVE_TIMEOUT', `Cannot solve the request: the time limit of ${timeoutMs} ms was reached`);
    this.timeoutMs = timeoutMs;
  }
}

export class SolveAbortedError extends CondaResolveError {
  constructor() {
    super('CR_ERR_SOLVE_ABORTED', 'Cannot solve the request: the solve was cancelled');
  }
}

/** A root spec the solver cannot use (valid conda syntax, but not a single package to install). */
export class SolveSpecError extends CondaResolveError {
  readonly spec: string;

  constructor(spec: string, reason: string) {
    super('CR_ERR_SOLVE_SPEC', `Cannot solve for match spec ${JSON.stringify(spec)}: ${reason}`);
    this.spec = spec;
  }
}
