/**
 * Every error that reaches fastify becomes a problem-details answer here: our typed errors by code
 * (through an allow-list, so only text written to be shown is shown), fastify's own errors (bad
 * JSON, body too large, unsupported media type, schema validation, a URL it cannot decode) by their
 * codes, and anything unexpected as a generic 500 whose detail is logged on the server, never sent.
 * Requests Node's HTTP parser cannot read (header fields over the limit, malformed HTTP, a request
 * not received in time) never reach fastify: `clientErrorHandler` answers them on the socket, as
 * problem details too.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CondaResolveError, errorSpec, InputFileError, userMessage, type ErrorSpec } from '../errors.js';
import { HttpProblemError, makeProblem, PROBLEM_MEDIA_TYPE, sendProblem, type Problem, type ProblemKind } from './problem.js';
import { JSON_MEDIA_TYPE, RAW_FILE_MEDIA_TYPES } from './schemas.js';

export interface ErrorContext {
  /** The name of the environment file of the request, when there was one (to tell file specs apart). */
  readonly filename?: string;
}

export interface InputProblem {
  readonly kind: ProblemKind;
  readonly detail: string;
  readonly field?: string;
  /** The bound the input exceeded (a spec's length, the number of specs), when that was the fault. */
  readonly limit?: number;
}

/** The `limit` an error (or the error it wraps) carries: a spec over a bound, too many specs. */
function limitOf(error: CondaResolveError): number | undefined {
  for (const candidate of [error, error.cause]) {
    const limit = (candidate as { limit?: unknown } | undefined)?.limit;
    if (typeof limit === 'number') return limit;
  }
  return undefined;
}

/** The request field an input error is about: `file` when the registry's rule says so, else the wrapped error's field, else its own. */
function fieldOf(error: CondaResolveError, spec: ErrorSpec & { field: string }, context: ErrorContext): string {
  const aboutFile =
    context.filename !== undefined &&
    (spec.fileField === 'file-given' || (spec.fileField === 'names-file' && error instanceof InputFileError));
  if (aboutFile) return 'file';
  return errorSpec(error.cause)?.field ?? spec.field;
}

/** The problem for a typed error the registry gives a request field: bad input, refused before any work. */
export function inputProblem(error: CondaResolveError, context: ErrorContext = {}): InputProblem | undefined {
  const spec = errorSpec(error);
  if (spec?.field === undefined) return undefined;
  const limit = limitOf(error);
  return {
    kind: spec.problem,
    detail: userMessage(error, { hidePaths: true }),
    field: fieldOf(error, spec as ErrorSpec & { field: string }, context),
    ...(limit !== undefined ? { limit } : {}),
  };
}

/** The problem's extension members for an input problem: its field and limit, when known. */
export function inputProblemExtras(problem: InputProblem): { field?: string; limit?: number } {
  return { ...(problem.field ? { field: problem.field } : {}), ...(problem.limit !== undefined ? { limit: problem.limit } : {}) };
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/specs/3` → `specs[3]`; the missing or unknown property when the error is about one. */
function issueField(issue: ValidationIssue): string {
  const path = issue.instancePath
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  const property = (issue.params.additionalProperty ?? issue.params.missingProperty) as string | undefined;
  if (property) return path ? `${path}.${property}` : property;
  return path;
}

const TOO_MANY: Readonly<Record<string, ProblemKind>> = {
  specs: 'too-many-specs',
  platforms: 'too-many-platforms',
  channels: 'too-many-channels',
};

function validationProblem(error: FastifyError): Problem {
  const issues = (error.validation ?? []) as unknown as ValidationIssue[];
  const where =
    error.validationContext === 'querystring'
      ? 'query'
      : error.validationContext === 'body'
        ? 'request body'
        : (error.validationContext ?? 'request');
  const issue = issues[0];
  if (!issue) return makeProblem('invalid-request', `Cannot read the ${where}`);
  const field = issueField(issue);
  const at = field ? { field } : {};
  if (issue.keyword === 'maxItems' && TOO_MANY[field]) {
    const limit = Number(issue.params.limit);
    return makeProblem(TOO_MANY[field]!, `Cannot resolve: "${field}" has more than ${limit} entries (this server's limit)`, {
      field,
      limit,
    });
  }
  if (issue.keyword === 'additionalProperties') {
    return makeProblem('invalid-request', `Cannot read the ${where}: unknown ${where === 'query' ? 'parameter' : 'field'} "${field}"`, at);
  }
  if (issue.keyword === 'enum') {
    const allowed = (issue.params.allowedValues as unknown[] | undefined)?.filter((v) => v !== null).join(', ');
    return makeProblem('invalid-request', `Cannot read the ${where}: "${field}" must be one of ${allowed}`, at);
  }
  if (issue.keyword === 'anyOf' || issue.keyword === 'type') {
    if (!field) return makeProblem('invalid-request', `Cannot read the ${where}: it must be ${describeType(field, where)}`);
    return makeProblem('invalid-request', `Cannot read the ${where}: "${field}" must be ${describeType(field, where)}`, at);
  }
  if (issue.keyword === 'maxLength') {
    const limit = Number(issue.params.limit);
    // One of the specs: the same words as the spec parser's own refusal.
    if (/^specs\[\d+\]$/.test(field))
      return makeProblem('invalid-spec', `Cannot parse match spec ${field}: longer than ${limit} characters (the limit)`, { field, limit });
    return makeProblem('invalid-request', `Cannot read the ${where}: "${field}" is longer than ${limit} characters (the limit)`, {
      ...at,
      limit,
    });
  }
  return makeProblem('invalid-request', `Cannot read the ${where}: "${field || where}" ${issue.message ?? 'is invalid'}`, at);
}

function describeType(field: string, where: string): string {
  if (field === '') return where === 'request body' ? 'a JSON object' : 'valid';
  if (/\[\d+\]$/.test(field)) return 'a string';
  if (['specs', 'channels', 'platforms', 'virtual_packages'].includes(field))
    return where === 'query' ? 'a string' : 'an array of strings or a comma-separated string';
  return where === 'query' ? 'given once' : 'a string';
}

/** Maps any error to the problem sent to the client; `internal` is true for the unexpected ones. */
export function problemForError(
  error: unknown,
  options: { bodyLimit: number },
): { problem: Problem; internal: boolean; headers?: Readonly<Record<string, string>> } {
  if (error instanceof HttpProblemError) return { problem: error.problem, internal: false, headers: error.headers };
  const spec = errorSpec(error);
  if (spec) {
    const input = inputProblem(error as CondaResolveError);
    if (input) return { problem: makeProblem(input.kind, input.detail, inputProblemExtras(input)), internal: false };
    return typedProblem(error as CondaResolveError, spec);
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown };
  if (fastifyError.validation) return { problem: validationProblem(fastifyError as FastifyError), internal: false };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        problem: makeProblem(
          'payload-too-large',
          `Cannot read the request body: it is larger than this server's limit of ${options.bodyLimit} bytes`,
          { limit: options.bodyLimit },
        ),
        internal: false,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: makeProblem(
          'unsupported-media-type',
          `Cannot read the request body: send ${JSON_MEDIA_TYPE}, or an environment file as ${RAW_FILE_MEDIA_TYPES.join(', ')}`,
          {
            supported_media_types: [JSON_MEDIA_TYPE, ...RAW_FILE_MEDIA_TYPES],
          },
        ),
        internal: false,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        problem: makeProblem('invalid-json', 'Cannot read the request body: it is empty but the content type is application/json'),
        internal: false,
      };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { problem: makeProblem('invalid-json', 'Cannot read the request body: it is not valid JSON'), internal: false };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        problem: makeProblem('invalid-request', 'Cannot read the request body: its size does not match Content-Length'),
        internal: false,
      };
    case 'FST_ERR_BAD_URL':
      return {
        problem: makeProblem('invalid-request', 'Cannot read the request URL: it is not correctly percent-encoded'),
        internal: false,
      };
    default:
      break;
  }
  // The JSON parser's own errors (syntax, forbidden __proto__ keys) carry status 400.
  if (error instanceof SyntaxError || (fastifyError.statusCode === 400 && /json|prototype/i.test(String(fastifyError.message)))) {
    return { problem: makeProblem('invalid-json', 'Cannot read the request body: it is not valid JSON'), internal: false };
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return { problem: makeProblem('invalid-request', 'Cannot read the request'), internal: false };
  }
  return { problem: makeProblem('internal-error', 'Internal error: the request failed unexpectedly'), internal: true };
}

/**
 * The answer for a typed error that is not bad input, by its registry entry. One that is not
 * `internal-error` and whose text is exposed says what happened; an overloaded server says when
 * to retry. The 500s are logged: a route reports solve and export failures itself, so a typed
 * failure that reaches the handler was not expected there.
 */
function typedProblem(error: CondaResolveError, spec: ErrorSpec): { problem: Problem; internal: boolean } {
  if (spec.problem === 'internal-error' || !spec.exposed) {
    return { problem: makeProblem('internal-error', 'Internal error: the request failed unexpectedly'), internal: true };
  }
  const problem = makeProblem(
    spec.problem,
    userMessage(error, { hidePaths: true }),
    spec.problem === 'overloaded' ? { retry_after: 1 } : {},
  );
  return { problem, internal: problem.status === 500 };
}

/** Installs the error and not-found handlers; `routes` maps a path to its methods (for 405). */
export function installErrorHandling(
  app: FastifyInstance,
  options: { bodyLimit: number; routes: () => ReadonlyMap<string, readonly string[]> },
): void {
  const methodNotAllowed = (request: FastifyRequest): Problem | undefined => {
    const path = request.url.split('?')[0]!;
    const methods = options.routes().get(path);
    return methods
      ? makeProblem('method-not-allowed', `Cannot ${request.method} ${path}: use ${methods.join(' or ')}`, { allowed_methods: methods })
      : undefined;
  };
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // A body that cannot be read on a method the path does not take (`DELETE /mcp` with an empty
    // JSON body): the method is what is wrong.
    const wrongMethod = request.is404 ? methodNotAllowed(request) : undefined;
    if (wrongMethod) return sendProblem(reply, wrongMethod);
    const { problem, internal, headers } = problemForError(error, options);
    if (internal) request.log.error({ err: error }, 'request failed unexpectedly');
    else request.log.debug({ problem: problem.type, detail: problem.detail }, 'request refused');
    return sendProblem(reply, problem, headers);
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const wrongMethod = methodNotAllowed(request);
    if (wrongMethod) return sendProblem(reply, wrongMethod);
    const path = request.url.split('?')[0]!;
    return sendProblem(
      reply,
      makeProblem('not-found', `Cannot find ${request.method} ${path.length > 200 ? `${path.slice(0, 200)}...` : path}`),
    );
  });
}

/** fastify's `frameworkErrors`: errors met before routing (a URL it cannot decode) as problems too. */
export function frameworkErrorHandler(options: { bodyLimit: number }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const { problem, internal } = problemForError(error, options);
    if (internal) request.log.error({ err: error }, 'request failed unexpectedly');
    void sendProblem(reply, problem);
  };
}

type ClientError = Error & { code?: string; reason?: unknown };

/** The problem for an error Node reports on a connection whose request it cannot read. */
export function clientErrorProblem(error: ClientError, options: { maxHeaderSize: number }): Problem {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return makeProblem(
        'headers-too-large',
        `Cannot read the request: its request line and header fields are larger than this server's limit of ${options.maxHeaderSize} bytes`,
        { limit: options.maxHeaderSize },
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return makeProblem('request-timeout', 'Cannot read the request: it was not received in time');
    default: {
      // llhttp's reasons are fixed phrases ("Invalid method encountered"); anything else is left out.
      const reason = typeof error.reason === 'string' && /^[\w .,'-]{1,80}$/.test(error.reason) ? ` (${error.reason})` : '';
      return makeProblem('invalid-request', `Cannot read the request: it is not valid HTTP/1.1${reason}`);
    }
  }
}

/** The bytes written on the socket for a request Node cannot read: a problem, then the connection closes. */
export function clientErrorAnswer(error: ClientError, options: { maxHeaderSize: number }): Buffer {
  const problem = clientErrorProblem(error, options);
  const body = Buffer.from(JSON.stringify(problem));
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    `content-type: ${PROBLEM_MEDIA_TYPE}`,
    `content-length: ${body.length}`,
    'x-content-type-options: nosniff',
    'connection: close',
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * fastify's `clientErrorHandler` (Node's 'clientError'): the request cannot be read, so there is no
 * request object; the problem is written on the socket. The connection then ends with a FIN and is
 * destroyed only after `lingerMs`: destroying it at once, with the rest of the client's request still
 * unread, would send a reset that can reach the client before the answer does.
 */
export function clientErrorHandler(options: { maxHeaderSize: number; lingerMs?: number }) {
  const lingerMs = options.lingerMs ?? 2000;
  const handled = new WeakSet<Socket>();
  return function onClientError(this: FastifyInstance, error: ClientError, socket: Socket): void {
    // Node reports every later chunk of an unreadable request again.
    if (handled.has(socket)) return;
    handled.add(socket);
    const parseError = typeof error.code === 'string' && (error.code.startsWith('HPE_') || error.code.startsWith('ERR_HTTP_'));
    if (!parseError || socket.destroyed) {
      // A network error (a reset, a broken pipe): nobody is left to answer.
      socket.destroy();
      return;
    }
    this.log.debug({ code: error.code }, 'cannot read the request');
    // A response already started on this connection cannot be followed by another one.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (socket.writable && !started) socket.end(clientErrorAnswer(error, options));
    else socket.end();
    setTimeout(() => socket.destroy(), lingerMs).unref();
  };
}
