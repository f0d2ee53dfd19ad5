/**
 * The kinds of problem an answer can report (RFC 9457 `type`, `title`, `status`), below the HTTP
 * layer because the error registry (`errors.ts`) names one for every code: the server sends them,
 * the CLI reads only the registry's exit statuses.
 */

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
  'forbidden-origin': { status: 403, title: 'Origin not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'request-timeout': { status: 408, title: 'Request not received in time' },
  'payload-too-large': { status: 413, title: 'Request body too large' },
  'answer-too-large': { status: 413, title: 'Answer too large' },
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

/** `too-many-specs` -> `TOO_MANY_SPECS`. */
type UpperSnake<S extends string> = S extends `${infer Head}-${infer Rest}` ? `${Uppercase<Head>}_${UpperSnake<Rest>}` : Uppercase<S>;

/** The code of an `HttpProblemError`: `CR_ERR_HTTP_<KIND>`, so logs can be searched by kind. */
export type HttpProblemCode = `CR_ERR_HTTP_${UpperSnake<ProblemKind>}`;

declare module '../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends Record<HttpProblemCode, string> {}
}

export function httpProblemCode(kind: ProblemKind): HttpProblemCode {
  return `CR_ERR_HTTP_${kind.toUpperCase().replace(/-/g, '_')}` as HttpProblemCode;
}
