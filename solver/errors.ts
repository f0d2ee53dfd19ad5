/** Typed errors of the solver: a solve that ran out of time or was cancelled. */
import { CondaResolveError } from '../vocabulary/errors.js';

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
