/**
 * Tree, why and why-not on the server: the request passes what `/resolve` requires (limits,
 * validation, channel policy: `admit`), is solved on the server's store and pool within its time
 * limit, and is answered from the solved records (src/inspect/). Used by the HTTP routes and the
 * MCP tools alike, so both refuse and answer the same way.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CondaResolveError } from '../../vocabulary/errors.js';
import type { MatchSpec } from '../../vocabulary/match-spec.js';
import { problemOfCode } from '../errors.js';
import { parseExtraSpec, treeOf, whyNot, whyOf, withAddedSpec, type PlatformTree, type PlatformWhy, type WhyNotAnswer } from '../inspect/index.js';
import type { Resolution } from '../resolve.js';
import type { AppContext, ResolveNote } from './app-context.js';
import { inputProblem, inputProblemExtras } from './error-handler.js';
import { HttpProblemError } from './problem.js';
import type { ResolveInput } from './resolve-input.js';
import { admit, boundedError, resolveHere, runWithin, timeLimitDetail, type Bounded } from './routes/resolve.js';
import { DecodingBudget } from '../../repodata/decoding-budget.js';

export type InspectQuestion =
  | { readonly kind: 'tree'; readonly depth?: number; readonly invert?: string }
  | { readonly kind: 'why'; readonly name: string; readonly limit?: number }
  | { readonly kind: 'why-not'; readonly spec: string };

export type InspectAnswer = readonly PlatformTree[] | readonly PlatformWhy[] | readonly WhyNotAnswer[];

/** The answer, or null when the client went away (nothing is to be written then). */
export async function inspectOnServer(
  question: InspectQuestion,
  input: ResolveInput,
  context: AppContext,
  note: ResolveNote,
  request: FastifyRequest,
  reply: FastifyReply | null,
): Promise<InspectAnswer | null> {
  // The spec to try is checked before the request, so a typo costs no fetch.
  const extra = question.kind === 'why-not' ? specOf(question.spec) : undefined;
  const prepared = await admit(input, context, note);
  // why-not solves the request with and without the spec at once, on one decoding budget.
  const budget = new DecodingBudget(context.config.maxRequestDecodingBytes);
  const outcome = await runWithin(request, reply, context, (signal): Promise<(Resolution | undefined)[]> =>
    Promise.all([resolveHere(prepared, context, signal, request, budget), extra ? resolveHere(withAddedSpec(prepared, extra), context, signal, request, budget) : undefined]),
  );
  const value = settled(outcome, context, note);
  if (value === null) return null;
  const [current, withSpec] = value as [Resolution, Resolution | undefined];
  wholeRequestFailures(current, context, note);
  if (withSpec) wholeRequestFailures(withSpec, context, note);
  const failed = current.platforms.filter((p) => p.error !== null).map((p) => p.platform);
  note.failed = failed;
  note.outcome = failed.length > 0 ? 'partial' : 'solved';
  switch (question.kind) {
    case 'tree':
      return treeOf(current, { depth: question.depth, invert: question.invert }).map((t) => ({ ...t, error: bounded(t.error) }));
    case 'why':
      return whyOf(current, question.name, question.limit).map((w) => ({ ...w, error: bounded(w.error) }));
    case 'why-not':
      return whyNot(current, withSpec!, extra!).map((a) => ({ ...a, text: boundedError(a.text) }));
  }
}

function specOf(text: string): MatchSpec {
  try {
    return parseExtraSpec(text);
  } catch (error) {
    const problem = error instanceof CondaResolveError ? inputProblem(error) : undefined;
    if (problem) throw new HttpProblemError(problem.kind, problem.detail, { ...inputProblemExtras(problem), field: 'spec' });
    throw error;
  }
}

function bounded(error: string | null): string | null {
  return error === null ? null : boundedError(error);
}

/** The work's value; null when the client went away; the time limit as a 504 problem. */
export function settled<T>(outcome: Bounded<T>, context: AppContext, note: ResolveNote): T | null {
  if (outcome.kind === 'gone') {
    note.outcome = 'cancelled';
    return null;
  }
  if (outcome.kind === 'timeout') {
    note.outcome = 'timeout';
    throw new HttpProblemError('time-limit', timeLimitDetail(context.config.requestTimeoutMs));
  }
  return outcome.value;
}

/** A full solve queue or the time limit concern the whole request, as on `/resolve`. */
export function wholeRequestFailures(resolution: Resolution, context: AppContext, note: ResolveNote): void {
  const codes = resolution.platforms.map((p) => (p.errorCode ? problemOfCode(p.errorCode) : undefined));
  if (codes.includes('overloaded')) {
    note.outcome = 'overloaded';
    throw new HttpProblemError('overloaded', 'Cannot start the solve: the solve queue is full; retry shortly', { retry_after: 1 });
  }
  if (codes.includes('time-limit')) {
    note.outcome = 'timeout';
    throw new HttpProblemError('time-limit', timeLimitDetail(context.config.requestTimeoutMs));
  }
}
