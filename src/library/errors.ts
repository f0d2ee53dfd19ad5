/** The errors only the library entry throws: a bad argument, and a cancelled resolve. */
import { CondaResolveError, UsageError, type ErrorCode } from '../errors.js';

/**
 * An argument of `resolveEnvironments` or `exportResolution` has the wrong type or shape (a string
 * where an array of strings belongs, a `null` request, an unknown field...). A `UsageError`, so it
 * is bad input like an unparsable spec; `code` is that of the field (`CR_ERR_INPUT_SPEC` for
 * `specs`, `CR_ERR_INPUT_PLATFORM` for `platforms`, `CR_ERR_INPUT_CHANNEL` for `channels`,
 * `CR_ERR_INPUT_OPTION` otherwise) and `argument` names it (`request.specs`, `options.timeoutMs`).
 */
export class InvalidArgumentError extends UsageError {
  readonly argument: string;
  constructor(code: ErrorCode, argument: string, message: string) {
    super(code, message);
    this.argument = argument;
  }
}

/**
 * `resolveEnvironments` was cancelled through its `signal`. `code` is `CR_ERR_SOLVE_ABORTED`, `cause`
 * is the signal's reason, and `name` is `AbortError`, as callers test for cancellations. (A reason
 * that is itself a `CondaResolveError` is thrown as it is.)
 */
export class ResolveAbortedError extends CondaResolveError {
  constructor(reason: unknown) {
    const why = reason instanceof Error && reason.message && reason.name !== 'AbortError' ? ` (${reason.message})` : '';
    super('CR_ERR_SOLVE_ABORTED', `The resolve was cancelled${why}`, { cause: reason });
    this.name = 'AbortError';
  }
}

/** The error an aborted `signal` rejects with: its reason when that is a typed error already. */
export function abortError(signal: AbortSignal): CondaResolveError {
  const reason: unknown = signal.reason;
  return reason instanceof CondaResolveError ? reason : new ResolveAbortedError(reason);
}
