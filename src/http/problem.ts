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

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const TYPE_PREFIX = 'urn:conda-resolve:problem:';

/** Every kind of problem the server reports: its status and title. Documented in `/openapi.json`. */
export const PROBLEM_KINDS = {
  'invalid-request': { status: 400, title: 'Invalid request' },
  'invalid-json': { status: 400, title: 'Request body is not valid JSON' },
  'invalid-spec': { status: 400, title: 'Invalid package spec' },
  'invalid-file': { status: 400, title: 'Invalid environment file' },
  'invalid-platform': { status: 400, title: 'Unknown platform' },
  'invalid-channel': { status: 400, title: 'Invalid channel' },
  'invalid-option': { status: 400, title: 'Invalid option' },
  'no-specs': { status: 400, title: 'Nothing to resolve' },
  'too-many-specs': { status: 400, title: 'Too many specs' },
  'too-many-platforms': { status: 400, title: 'Too many platforms' },
  'too-many-channels': { status: 400, title: 'Too many channels' },
  'unknown-format': { status: 400, title: 'Unknown format' },
  'channel-refused': { status: 400, title: 'Channel not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'Request not received in time' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'expectation-failed': { status: 417, title: 'Expectation not supported' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  'solve-failed': { status: 500, title: 'Solve failed' },
  'export-failed': { status: 500, title: 'Export failed' },
  'internal-error': { status: 500, title: 'Internal server error' },
  overloaded: { status: 503, title: 'Server busy' },
  'shutting-down': { status: 503, title: 'Server shutting down' },
  'time-limit': { status: 504, title: 'Time limit exceeded' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemKind = keyof typeof PROBLEM_KINDS;

/** The statuses this server answers with; anything else is a bug (the fuzz test checks this). */
export const DEFINED_STATUSES: readonly number[] = [200, 302, ...new Set(Object.values(PROBLEM_KINDS).map((k) => k.status))].sort((a, b) => a - b);

export interface PlatformFailure {
  readonly platform: string;
  readonly error: string;
  readonly code: string;
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

/** `too-many-specs` -> `TOO_MANY_SPECS`. */
type UpperSnake<S extends string> = S extends `${infer Head}-${infer Rest}` ? `${Uppercase<Head>}_${UpperSnake<Rest>}` : Uppercase<S>;

/** The code of an `HttpProblemError`: `CR_ERR_HTTP_<KIND>`, so logs can be searched by kind. */
export type HttpProblemCode = `CR_ERR_HTTP_${UpperSnake<ProblemKind>}`;

declare module '../../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends Record<HttpProblemCode, string> {}
}

export function httpProblemCode(kind: ProblemKind): HttpProblemCode {
  return `CR_ERR_HTTP_${kind.toUpperCase().replace(/-/g, '_')}` as HttpProblemCode;
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
  return reply.code(problem.status).type(PROBLEM_MEDIA_TYPE).send(Buffer.from(JSON.stringify(body)));
}
