/**
 * RFC 9457 problem details: the one body shape of every HTTP error this server sends
 * (`application/problem+json`). Each kind has a stable `type` URI, a fixed `title` and `status`;
 * `detail` says what was wrong in this request, and extension members carry what a client can act
 * on (`field`, `available_formats`, `limit`, `platforms`, `retry_after`).
 *
 * `detail` is always text that is safe to show: it comes from typed errors (written to be safe) or
 * from this module, never from an exception's stack or an unexpected error's message.
 */
import type { FastifyReply } from 'fastify';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { httpProblemCode, PROBLEM_KINDS, type ProblemKind } from '../problem-kinds.js';

export { httpProblemCode, PROBLEM_KINDS, type HttpProblemCode, type ProblemKind } from '../problem-kinds.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const TYPE_PREFIX = 'urn:conda-resolve:problem:';

/** The statuses this server answers with; anything else is a bug (the fuzz test checks this). */
export const DEFINED_STATUSES: readonly number[] = [200, 302, ...new Set(Object.values(PROBLEM_KINDS).map((k) => k.status))].sort(
  (a, b) => a - b,
);

export interface PlatformFailure {
  readonly platform: string;
  readonly error: string;
  readonly code: string;
  /** The pixi environment, when a whole workspace was solved. */
  readonly environment?: string;
}

export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The request field at fault: `specs`, `file`, `platforms`, `channels`, `format`, ... */
  readonly field?: string;
  /** For `unknown-format`: the registry's primary names, sorted. */
  readonly available_formats?: readonly string[];
  /** For limits: the configured maximum. */
  readonly limit?: number;
  /** For `solve-failed` and `time-limit`: the platforms that failed and why. */
  readonly platforms?: readonly PlatformFailure[];
  /** For 429 and 503: seconds to wait (also sent as `Retry-After`). */
  readonly retry_after?: number;
  /** For 405: the methods the path accepts (also sent as `Allow`). */
  readonly allowed_methods?: readonly string[];
  /** For 415: the media types the endpoint accepts. */
  readonly supported_media_types?: readonly string[];
  /** Matches the `reqId` of the server's log lines for this request. */
  readonly request_id?: string;
}

export type ProblemExtras = Omit<Problem, 'type' | 'title' | 'status' | 'detail'>;

export function problemType(kind: ProblemKind): string {
  return `${TYPE_PREFIX}${kind}`;
}

export function makeProblem(kind: ProblemKind, detail: string, extras: ProblemExtras = {}): Problem {
  const { status, title } = PROBLEM_KINDS[kind];
  return { type: problemType(kind), title, status, detail, ...extras };
}

/** A problem thrown from a handler or hook; the error handler sends it as is. */
export class HttpProblemError extends CondaResolveError {
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;

  constructor(kind: ProblemKind, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}) {
    super(httpProblemCode(kind), detail);
    this.problem = makeProblem(kind, detail, extras);
    this.headers = headers;
  }

  /** The HTTP status, read by fastify when this error reaches it unhandled. */
  get statusCode(): number {
    return this.problem.status;
  }
}

/** Sends a problem; `request_id` is added so a client's report can be matched with the log. */
export function sendProblem(reply: FastifyReply, problem: Problem, headers: Readonly<Record<string, string>> = {}): FastifyReply {
  const body: Problem = { ...problem, request_id: String(reply.request.id) };
  if (body.retry_after !== undefined) reply.header('retry-after', String(body.retry_after));
  if (body.allowed_methods) reply.header('allow', body.allowed_methods.join(', '));
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  // A Buffer is sent as is: fastify would append a charset to a JSON string's media type, and
  // application/problem+json defines none.
  return reply
    .code(problem.status)
    .type(PROBLEM_MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify(body)));
}
