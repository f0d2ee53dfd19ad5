/**
 * `GET /resolve` and `POST /resolve` (seed 4.1, DECISIONS.md section 6).
 *
 * Without `format` the answer is the native JSON array, with per-platform errors and status 200;
 * with `format` it is the exporter's text with the exporter's media type, and any failed platform
 * or exporter makes it a 500. Bad input is a 400 naming the field before anything is fetched.
 *
 * Performance notes: the solve runs on the worker pool; loading goes through the store's in-memory
 * index cache, so a warm request parses nothing. Admission is the pool's bounded queue: a solve that
 * finds it full is a 503 (outcomes the solve cache already holds are still served). Time limit and client disconnect both abort the
 * request's AbortSignal, which drops a queued solve and stops a running one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { errorSpec, problemOfCode, userMessage } from '../../errors.js';
import type { Exporter } from '../../exporters/types.js';
import { prepareRequest, TooManySpecsError, type PreparedRequest } from '../../request.js';
import { exportEnvironments, resolvePrepared, toNative, type Resolution } from '../../resolve.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import type { AppContext, ResolveNote } from '../app-context.js';
import { ChannelRefusedError } from '../channel-policy.js';
import { inputProblem, inputProblemExtras } from '../error-handler.js';
import { HttpProblemError, type PlatformFailure } from '../problem.js';
import { inputFromJson, inputFromQuery, inputFromUpload, type ResolveBody, type ResolveInput, type ResolveQuery } from '../resolve-input.js';
import { JSON_MEDIA_TYPE, RAW_FILE_MEDIA_TYPES } from '../schemas.js';

const NATIVE_MEDIA_TYPE = 'application/json; charset=utf-8';

/** Why a request's signal was aborted. */
class RequestEndedError extends CondaResolveError {}

export async function resolveRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const { schemas } = context;

  // A raw environment file is read as text; anything else that is not JSON is a 415.
  app.addContentTypeParser([...RAW_FILE_MEDIA_TYPES], { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.get<{ Querystring: ResolveQuery }>(
    '/resolve',
    { schema: { querystring: schemas.resolveQuery } },
    (request, reply) => handle(inputFromQuery(request.query), request, reply, context),
  );

  app.post<{ Querystring: ResolveQuery; Body: ResolveBody | string | undefined }>(
    '/resolve',
    {
      schema: {
        querystring: schemas.resolveQuery,
        body: {
          content: {
            [JSON_MEDIA_TYPE]: { schema: schemas.resolveBody },
            ...Object.fromEntries(RAW_FILE_MEDIA_TYPES.map((type) => [type, { schema: schemas.rawFileBody }])),
          },
        },
      },
    },
    (request, reply) => {
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      let input: ResolveInput;
      if (typeof request.body === 'string') input = inputFromUpload(request.body, mediaType, request.query);
      else if (request.body && typeof request.body === 'object') input = inputFromJson(request.body, request.query);
      else input = inputFromQuery(request.query); // no body at all: the query is the request
      return handle(input, request, reply, context);
    },
  );
}

async function handle(input: ResolveInput, request: FastifyRequest, reply: FastifyReply, context: AppContext): Promise<FastifyReply> {
  const { config, deps } = context;
  const note: ResolveNote = {
    format: input.format,
    file: input.hasFile,
    specs: input.request.specs?.length ?? 0,
    platforms: input.request.platforms ?? [],
    outcome: 'refused',
  };
  context.notes.set(request, note);

  // 1. The exporter, when one is asked for: an unknown name is a 400 before any work.
  let exporter: Exporter | undefined;
  if (input.format !== undefined) {
    try {
      exporter = deps.registry.get(input.format);
    } catch (error) {
      if (errorSpec(error)?.problem === 'unknown-format') {
        throw new HttpProblemError('unknown-format', userMessage(error), { field: 'format', available_formats: deps.registry.names() });
      }
      throw error;
    }
  }

  // 2. Cheap limits on what was sent, then full validation, then limits on what it amounts to.
  checkLimit('specs', input.request.specs?.length ?? 0, config.maxSpecs);
  checkLimit('platforms', input.request.platforms?.length ?? 0, config.maxPlatforms);
  checkLimit('channels', input.request.channels?.length ?? 0, config.maxChannels);
  const filename = input.request.files?.[0]?.filename;
  let prepared: PreparedRequest;
  try {
    prepared = prepareRequest(input.request, {
      env: deps.env,
      cwd: deps.cwd,
      hostPlatform: context.hostPlatform,
      defaultChannels: config.defaultChannels,
      // Counted before any spec is parsed: a 1 MB file of short lines is refused at once.
      maxSpecs: config.maxSpecs,
    });
  } catch (error) {
    if (error instanceof TooManySpecsError) checkLimit(input.hasFile ? 'file' : 'specs', error.count, error.limit, 'specs');
    const problem = error instanceof CondaResolveError ? inputProblem(error, { filename }) : undefined;
    if (problem) throw new HttpProblemError(problem.kind, problem.detail, inputProblemExtras(problem));
    throw error;
  }
  checkLimit(input.hasFile ? 'file' : 'specs', prepared.specs.length, config.maxSpecs, 'specs');
  checkLimit('platforms', prepared.platforms.length, config.maxPlatforms);
  checkLimit(input.hasFile ? 'file' : 'channels', prepared.channels.length, config.maxChannels, 'channels');
  note.specs = prepared.specs.length;
  note.platforms = prepared.platforms;
  note.channels = prepared.channels.map((channel) => channel.name);

  // 3. Channel policy, before anything is fetched.
  for (const channel of prepared.channels) {
    try {
      await deps.policy.checkUrl(channel.baseUrl);
    } catch (error) {
      if (error instanceof ChannelRefusedError) {
        throw new HttpProblemError('channel-refused', userMessage(error, { hidePaths: true }), { field: input.hasFile && !input.request.channels?.length ? 'file' : 'channels' });
      }
      throw error;
    }
  }

  // 4. Resolve, bounded by the time limit and by the client staying connected.
  const outcome = await resolveWithin(prepared, request, reply, context);
  if (outcome.kind === 'gone') {
    // Nobody is listening: no answer is written (and no access log line); this line stands for it.
    note.outcome = 'cancelled';
    request.log.info({ method: request.method, route: '/resolve', ms: Math.round(reply.elapsedTime * 10) / 10, outcome: 'cancelled', reason: 'client disconnected' }, 'resolve cancelled');
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  if (outcome.kind === 'timeout') {
    note.outcome = 'timeout';
    throw new HttpProblemError('time-limit', timeLimitDetail(config.requestTimeoutMs), {
      platforms: prepared.platforms.map((platform) => ({ platform, error: timeLimitDetail(config.requestTimeoutMs), code: 'CR_ERR_SOLVE_TIMEOUT' })),
    });
  }
  return answer(outcome.resolution, exporter, reply, context, note);
}

/**
 * Longest error text sent for one platform. Explanations of hard conflicts can grow to megabytes;
 * a client reading an answer should not have to download them.
 */
export const MAX_ERROR_CHARS = 32 * 1024;

export function boundedError(text: string): string {
  if (text.length <= MAX_ERROR_CHARS) return text;
  return `${text.slice(0, MAX_ERROR_CHARS)}\n... (${text.length - MAX_ERROR_CHARS} more characters not shown)`;
}

function answer(resolution: Resolution, exporter: Exporter | undefined, reply: FastifyReply, context: AppContext, note: ResolveNote): FastifyReply {
  const failures: PlatformFailure[] = resolution.platforms
    .filter((p) => p.error !== null)
    .map((p) => ({ platform: p.platform, error: boundedError(p.error!), code: p.errorCode ?? 'CR_ERR_INTERNAL' }));
  note.failed = failures.map((f) => f.platform);

  // Overload and the time limit concern the whole request, whatever the format.
  const overloaded = failures.find((f) => problemOfCode(f.code) === 'overloaded');
  if (overloaded) {
    note.outcome = 'overloaded';
    // Redis down is said as such (serve --redis); a full local queue keeps its short line.
    const detail = overloaded.code === 'CR_ERR_REDIS_UNAVAILABLE' ? overloaded.error : 'Cannot start the solve: the solve queue is full; retry shortly';
    throw new HttpProblemError('overloaded', detail, { retry_after: 1 });
  }
  const timedOut = failures.filter((f) => problemOfCode(f.code) === 'time-limit');
  if (timedOut.length > 0) {
    note.outcome = 'timeout';
    throw new HttpProblemError('time-limit', timeLimitDetail(context.config.requestTimeoutMs), { platforms: failures });
  }

  if (!exporter) {
    note.outcome = failures.length > 0 ? 'partial' : 'solved';
    const warnings = resolution.request.warnings;
    const results = toNative(resolution).map((result) => ({
      ...result,
      error: result.error === null ? null : boundedError(result.error),
      ...(warnings.length > 0 ? { warnings: [...warnings] } : {}),
    }));
    return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(results));
  }
  if (failures.length > 0) {
    note.outcome = 'failed';
    const names = failures.map((f) => f.platform).join(', ');
    throw new HttpProblemError('solve-failed', `Cannot export ${exporter.name}: the solve failed for ${names}: ${failures[0]!.error}`, { field: 'platforms', platforms: failures });
  }
  let text: string;
  try {
    text = context.deps.registry.render(exporter.name, exportEnvironments(resolution), { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now: context.clock.now() });
  } catch (error) {
    note.outcome = 'failed';
    if (!(error instanceof CondaResolveError)) reply.log.error({ err: error }, 'exporter failed unexpectedly');
    throw new HttpProblemError('export-failed', userMessage(error, { hidePaths: true }), { field: 'format' });
  }
  note.outcome = 'solved';
  // As bytes, so the media type goes out exactly as the exporter states it (fastify would append a
  // charset to a JSON type given a string).
  return reply.code(200).type(exporter.mediaType).send(Buffer.from(text, 'utf8'));
}

type Outcome = { kind: 'done'; resolution: Resolution } | { kind: 'timeout' } | { kind: 'gone' };

/**
 * Runs the resolve under one AbortSignal that fires at the time limit or when the client goes
 * away. The answer does not wait for a cancelled solve to wind down: at the deadline the 504 goes
 * out at once and the pool stops the solve in the background.
 */
function resolveWithin(prepared: PreparedRequest, request: FastifyRequest, reply: FastifyReply, context: AppContext): Promise<Outcome> {
  const { config, deps } = context;
  const controller = new AbortController();
  return new Promise<Outcome>((resolve) => {
    const finish = (outcome: Outcome) => {
      clearTimeout(timer);
      reply.raw.off('close', onClose);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      controller.abort(new RequestEndedError('CR_ERR_SOLVE_TIMEOUT', timeLimitDetail(config.requestTimeoutMs)));
      finish({ kind: 'timeout' });
    }, config.requestTimeoutMs);
    // 'close' on the response before it was written means the connection went away. (Not the
    // request's 'close': that fires as soon as its body has been read.)
    const onClose = () => {
      if (reply.raw.writableFinished) return;
      controller.abort(new RequestEndedError('CR_ERR_SOLVE_ABORTED', 'The client disconnected'));
      finish({ kind: 'gone' });
    };
    reply.raw.on('close', onClose);
    if (request.raw.socket?.destroyed !== false) onClose();
    resolvePrepared(
      prepared,
      { store: deps.store, solver: deps.solver, env: deps.env, hidePaths: true },
      { signal: controller.signal, timeoutMs: config.requestTimeoutMs },
    ).then(
      (resolution) => finish({ kind: 'done', resolution }),
      (error: unknown) => {
        // resolvePrepared reports failures per platform; reaching here is a bug worth a log line.
        request.log.error({ err: error }, 'resolve failed unexpectedly');
        finish({
          kind: 'done',
          resolution: {
            request: prepared,
            platforms: prepared.platforms.map((platform) => ({
              platform,
              records: null,
              error: 'Internal error: the solve failed unexpectedly',
              errorCode: 'CR_ERR_INTERNAL',
              explanation: null,
            })),
          },
        });
      },
    );
  });
}

function checkLimit(field: string, count: number, limit: number, what = field): void {
  if (count <= limit) return;
  const kind = what === 'specs' ? 'too-many-specs' : what === 'platforms' ? 'too-many-platforms' : 'too-many-channels';
  throw new HttpProblemError(kind, `Cannot resolve: the request has ${count} ${what}, more than this server's limit of ${limit}`, { field, limit });
}

function timeLimitDetail(ms: number): string {
  const seconds = ms / 1000;
  return `Cannot finish the resolve: it exceeded this server's time limit of ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
