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
import { parseChannel, removeCredentials } from '../../../vocabulary/channel.js';
import { renderResolution, renderWorkspace, resolutionDiff, workspaceAnswers } from '../../lock/answer.js';
import { chosenPixiLockFormat, isPixiLockFormat } from '../../lock/lock-version.js';
import { lockStaleReasons } from '../../lock/check.js';
import { renderDiff } from '../../lock/diff.js';
import { isWorkspaceRequest, prepareWorkspace, workspaceDiff, workspaceStaleReasons, type WorkspaceStaleReason } from '../../lock/workspace.js';
import { prepareRequest, TooManySpecsError, type PreparedRequest, type PrepareOptions } from '../../request.js';
import { resolvePrepared, toNative, type Resolution } from '../../resolve.js';
import { DecodingBudget } from '../../../repodata/decoding-budget.js';
import { AnswerTooLargeError, boundedAnswer } from '../../answer-size.js';
import type { AppContext, ResolveNote } from '../app-context.js';
import { ChannelRefusedError } from '../channel-policy.js';
import { inputProblem, inputProblemExtras } from '../error-handler.js';
import { changed, lockCheckBody, refuseLockMisuse, wantsText, type DiffChanges } from '../lock-answers.js';
import { HttpProblemError, type PlatformFailure } from '../problem.js';
import { inputFromJson, inputFromQuery, inputFromUpload, type ResolveBody, type ResolveInput, type ResolveQuery } from '../resolve-input.js';
import { JSON_MEDIA_TYPE, RAW_FILE_MEDIA_TYPES } from '../schemas.js';
import { timerDelay } from '../../clock.js';

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
  const { deps } = context;
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
  const options = checkSent(input, context);
  // A pixi manifest without `environment` answered as a pixi.lock is every environment, as `pixi lock`.
  if (isWorkspaceRequest(input.request, exporter?.name) && (exporter !== undefined || input.check || input.diff)) {
    return handleWorkspace(input, options, request, reply, context, note);
  }
  const prepared = validated(input, () => prepareRequest(input.request, options));
  checkPrepared(input, prepared, context, note);

  // 3. Channel policy, before anything is fetched: the lock's channels, then the request's.
  await checkChannels(input, prepared, context);

  // --check: whether the lock still answers, with no solve and nothing fetched.
  if (input.check) return answerCheck([{ name: input.request.environment ?? 'default', request: prepared }], prepared.previousLock!.filename, () => lockStaleReasons(prepared, prepared.previousLock!, deps.env), reply, note);

  // 4. Resolve, bounded by the time limit and by the client staying connected.
  const outcome = await runWithin(request, reply, context, (signal) => resolveHere(prepared, context, signal, request));
  if (outcome.kind !== 'done') return ended(outcome, prepared.platforms, request, reply, context, note);
  const resolution = outcome.value;
  checkFailures([{ resolution }], exporter, input.diff, context, note);
  if (input.diff) {
    const output = exporter ? renderOrFail(() => renderResolution(deps.registry, exporter.name, resolution, { environment: input.request.environment, now: context.clock.now() }), reply, note) : undefined;
    return answerDiff({ platforms: resolutionDiff(prepared.previousLock!, resolution) }, exporter, output, request, reply, note);
  }
  return answer(resolution, exporter, input, reply, context, note);
}

/** A whole pixi workspace: every environment prepared, checked, solved and written into one pixi.lock. */
async function handleWorkspace(
  input: ResolveInput,
  options: PrepareOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  context: AppContext,
  note: ResolveNote,
): Promise<FastifyReply> {
  const { deps } = context;
  const workspace = validated(input, () => prepareWorkspace(input.request, options));
  const platforms = [...new Set(workspace.environments.flatMap((e) => e.request.platforms))];
  for (const { request: prepared } of workspace.environments) {
    checkPrepared(input, prepared, context, note);
    await checkChannels(input, prepared, context);
  }
  note.specs = workspace.environments.reduce((n, e) => n + e.request.specs.length, 0);
  note.platforms = platforms;
  note.channels = [...new Set(workspace.environments.flatMap((e) => e.request.channels.map((c) => c.name)))];

  if (input.check) return answerCheck(workspace.environments, workspace.lock!.document.filename, () => workspaceStaleReasons(workspace, deps.env), reply, note);

  const requests = workspace.environments.map((e) => e.request);
  const budget = new DecodingBudget(context.config.maxRequestDecodingBytes);
  const outcome = await runWithin(request, reply, context, (signal) => Promise.all(requests.map((prepared) => resolveHere(prepared, context, signal, request, budget))));
  if (outcome.kind !== 'done') return ended(outcome, platforms, request, reply, context, note);
  const resolutions = outcome.value;
  // The format is a pixi.lock (or none, for a check or a diff against a pixi.lock).
  // A pixi format named by its alias is that version; otherwise the --lock's, or v7 for a manifest.
  const named = input.format === undefined ? undefined : deps.registry.get(input.format).name;
  const formatName = named === undefined ? undefined : isPixiLockFormat(named) ? named : chosenPixiLockFormat({ lock: input.request.lock, files: input.request.files });
  const format = formatName === undefined ? undefined : deps.registry.get(formatName);
  checkFailures(resolutions.map((resolution, i) => ({ environment: workspace.environments[i]!.name, resolution })), format, input.diff, context, note);
  const text = format ? renderOrFail(() => renderWorkspace(deps.registry, workspace, resolutions, context.clock.now(), formatName!), reply, note) : undefined;
  if (input.diff) {
    const environments = workspaceDiff(workspace, workspaceAnswers(workspace, resolutions));
    return answerDiff({ environments }, format, text, request, reply, note);
  }
  note.outcome = 'solved';
  return reply.code(200).type(format!.mediaType).send(Buffer.from(text!, 'utf8'));
}

/**
 * Limits on what was sent, full validation, limits on what it amounts to, then the channel policy:
 * everything a request must pass before anything is fetched. Shared by the inspect routes and the
 * MCP tools, so they refuse as /resolve does.
 */
export async function admit(input: ResolveInput, context: AppContext, note: ResolveNote): Promise<PreparedRequest> {
  const options = checkSent(input, context);
  const prepared = validated(input, () => prepareRequest(input.request, options));
  checkPrepared(input, prepared, context, note);
  await checkChannels(input, prepared, context);
  return prepared;
}

/** The refusals that need no parsing (lock misuse, counts over the limits), and the options to prepare with. */
function checkSent(input: ResolveInput, context: AppContext): PrepareOptions {
  const { config, deps } = context;
  refuseLockMisuse(input);
  checkLimit('specs', input.request.specs?.length ?? 0, config.maxSpecs);
  checkLimit('platforms', input.request.platforms?.length ?? 0, config.maxPlatforms);
  checkLimit('channels', input.request.channels?.length ?? 0, config.maxChannels);
  return {
    env: deps.env,
    cwd: deps.cwd,
    hostPlatform: context.hostPlatform,
    defaultChannels: config.defaultChannels,
    // Counted before any spec is parsed: a 1 MB file of short lines is refused at once.
    maxSpecs: config.maxSpecs,
  };
}

/** Runs a validation step; a typed input error becomes the 400 naming its field. */
function validated<T>(input: ResolveInput, prepare: () => T): T {
  const filename = input.request.files?.[0]?.filename;
  try {
    return prepare();
  } catch (error) {
    if (error instanceof TooManySpecsError) checkLimit(input.hasFile ? 'file' : 'specs', error.count, error.limit, 'specs');
    const problem = error instanceof CondaResolveError ? inputProblem(error, { filename }) : undefined;
    if (problem) throw new HttpProblemError(problem.kind, problem.detail, inputProblemExtras(problem));
    throw error;
  }
}

/** The server's limits on what a prepared request amounts to. */
function checkPrepared(input: ResolveInput, prepared: PreparedRequest, context: AppContext, note: ResolveNote): void {
  const { config } = context;
  checkLimit(input.hasFile ? 'file' : 'specs', prepared.specs.length, config.maxSpecs, 'specs');
  checkLimit('platforms', prepared.platforms.length, config.maxPlatforms);
  checkLimit(input.hasFile ? 'file' : 'channels', prepared.channels.length, config.maxChannels, 'channels');
  note.specs = prepared.specs.length;
  note.platforms = prepared.platforms;
  note.channels = prepared.channels.map((channel) => channel.name);
}

/**
 * The channel policy on the previous lock's channels (field `lock`: its records are only
 * preferences, but a lock naming a channel this server may not use is refused all the same) and
 * on the channels the request will fetch.
 */
async function checkChannels(input: ResolveInput, prepared: PreparedRequest, context: AppContext): Promise<void> {
  const { deps } = context;
  const refuse = async (url: string, field: string): Promise<void> => {
    try {
      await deps.policy.checkUrl(url);
    } catch (error) {
      if (error instanceof ChannelRefusedError) throw new HttpProblemError('channel-refused', userMessage(error, { hidePaths: true }), { field });
      throw error;
    }
  };
  for (const text of prepared.previousLock?.environment.channels ?? []) {
    let url: string;
    try {
      url = parseChannel(text, { alias: deps.env.CONDA_CHANNEL_ALIAS, cwd: deps.cwd }).baseUrl;
    } catch (error) {
      if (error instanceof CondaResolveError) throw new HttpProblemError('invalid-channel', `Cannot use the lock "${prepared.previousLock!.filename}": ${userMessage(error, { hidePaths: true })}`, { field: 'lock' });
      throw error;
    }
    await refuse(url, 'lock');
  }
  const field = input.hasFile && !input.request.channels?.length ? 'file' : 'channels';
  for (const channel of prepared.channels) await refuse(channel.baseUrl, field);
  // PyPI indexes: only those the operator allows (https://pypi.org/simple/ unless --allow-index adds more).
  const pypi = prepared.pypi;
  if (pypi) {
    if (pypi.findLinks.length > 0) throw new HttpProblemError('channel-refused', 'Cannot use find-links on this server: it reads no local folder', { field: 'find_links' });
    const allowed = new Set(context.config.allowedIndexes);
    for (const [url, where] of [[pypi.indexUrl, 'index_url'], ...pypi.extraIndexUrls.map((u) => [u, 'extra_index_urls'])] as const) {
      const normal = url.endsWith('/') ? url : `${url}/`;
      if (!allowed.has(normal)) throw new HttpProblemError('channel-refused', `Cannot use the PyPI index ${removeCredentials(url)}: this server allows ${[...allowed].join(', ')}`, { field: where });
    }
  }
}

function answerCheck(
  environments: readonly { readonly name: string; readonly request: PreparedRequest }[],
  lock: string,
  reasons: () => readonly WorkspaceStaleReason[],
  reply: FastifyReply,
  note: ResolveNote,
): FastifyReply {
  const platforms = [...new Set(environments.flatMap((e) => e.request.platforms))];
  // One environment: its reasons carry its name, as a workspace's do.
  const named = environments.length === 1 ? reasons().map((r) => ({ environment: environments[0]!.name, ...r })) : reasons();
  note.outcome = 'checked';
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(lockCheckBody(lock, environments.map((e) => e.name), platforms, named)));
}

function answerDiff(changes: DiffChanges, format: Exporter | undefined, output: string | undefined, request: FastifyRequest, reply: FastifyReply, note: ResolveNote): FastifyReply {
  note.outcome = 'solved';
  if (wantsText(request.headers.accept)) {
    const text = 'platforms' in changes
      ? renderDiff(changes.platforms)
      : changes.environments.map((e) => `environment ${e.environment}:\n${renderDiff(e.platforms).replace(/^(?=.)/gm, '  ')}`).join('');
    return reply.code(200).type('text/plain; charset=utf-8').send(text);
  }
  const body = { changed: changed(changes), ...changes, ...(format && output !== undefined ? { format: format.name, media_type: format.mediaType, output } : {}) };
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(body));
}

function renderOrFail(render: () => string, reply: FastifyReply, note: ResolveNote): string {
  try {
    return render();
  } catch (error) {
    note.outcome = 'failed';
    if (error instanceof AnswerTooLargeError) throw error;
    if (!(error instanceof CondaResolveError)) reply.log.error({ err: error }, 'exporter failed unexpectedly');
    throw new HttpProblemError('export-failed', userMessage(error, { hidePaths: true }), { field: 'format' });
  }
}

/** The answer when the resolve did not finish: nobody listening, or the time limit. */
function ended(outcome: { kind: 'timeout' | 'gone' }, platforms: readonly string[], request: FastifyRequest, reply: FastifyReply, context: AppContext, note: ResolveNote): FastifyReply {
  if (outcome.kind === 'gone') {
    // Nobody is listening: no answer is written (and no access log line); this line stands for it.
    note.outcome = 'cancelled';
    request.log.info({ method: request.method, route: '/resolve', ms: Math.round(reply.elapsedTime * 10) / 10, outcome: 'cancelled', reason: 'client disconnected' }, 'resolve cancelled');
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  note.outcome = 'timeout';
  const detail = timeLimitDetail(context.config.requestTimeoutMs);
  throw new HttpProblemError('time-limit', detail, { platforms: platforms.map((platform) => ({ platform, error: detail, code: 'CR_ERR_SOLVE_TIMEOUT' })) });
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

/**
 * Whole-request failures first (overload, the time limit), then, when text is wanted (a format or
 * a diff), any failed platform makes the answer a 500. Native JSON carries per-platform errors.
 */
function checkFailures(
  resolutions: readonly { readonly environment?: string; readonly resolution: Resolution }[],
  exporter: Exporter | undefined,
  diff: boolean | undefined,
  context: AppContext,
  note: ResolveNote,
): void {
  const failures: PlatformFailure[] = resolutions.flatMap(({ environment, resolution }) =>
    resolution.platforms
      .filter((p) => p.error !== null)
      .map((p) => ({ platform: p.platform, error: boundedError(p.error!), code: p.errorCode ?? 'CR_ERR_INTERNAL', ...(environment !== undefined ? { environment } : {}) })),
  );
  note.failed = [...new Set(failures.map((f) => f.platform))];

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
  if (failures.length > 0 && (exporter || diff)) {
    note.outcome = 'failed';
    const names = failures.map((f) => (f.environment !== undefined ? `${f.environment}/${f.platform}` : f.platform)).join(', ');
    const what = exporter ? `export ${exporter.name}` : 'compare with the lock';
    throw new HttpProblemError('solve-failed', `Cannot ${what}: the solve failed for ${names}: ${failures[0]!.error}`, { field: 'platforms', platforms: failures });
  }
}

function answer(resolution: Resolution, exporter: Exporter | undefined, input: ResolveInput, reply: FastifyReply, context: AppContext, note: ResolveNote): FastifyReply {
  if (!exporter) {
    note.outcome = resolution.platforms.some((p) => p.error !== null) ? 'partial' : 'solved';
    const warnings = resolution.request.warnings;
    const results = toNative(resolution).map((result) => ({
      ...result,
      error: result.error === null ? null : boundedError(result.error),
      ...(warnings.length > 0 ? { warnings: [...warnings] } : {}),
    }));
    return reply.code(200).type(NATIVE_MEDIA_TYPE).send(boundedAnswer(() => JSON.stringify(results), 'native JSON result'));
  }
  // The previous lock's own text when nothing changed; a pixi.lock of one environment names it.
  const text = renderOrFail(() => renderResolution(context.deps.registry, exporter.name, resolution, { environment: input.request.environment, now: context.clock.now() }), reply, note);
  note.outcome = 'solved';
  // As bytes, so the media type goes out exactly as the exporter states it (fastify would append a
  // charset to a JSON type given a string).
  return reply.code(200).type(exporter.mediaType).send(Buffer.from(text, 'utf8'));
}

function checkLimit(field: string, count: number, limit: number, what = field): void {
  if (count <= limit) return;
  const kind = what === 'specs' ? 'too-many-specs' : what === 'platforms' ? 'too-many-platforms' : 'too-many-channels';
  throw new HttpProblemError(kind, `Cannot resolve: the request has ${count} ${what}, more than this server's limit of ${limit}`, { field, limit });
}

export function timeLimitDetail(ms: number): string {
  const seconds = ms / 1000;
  return `Cannot finish the resolve: it exceeded this server's time limit of ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** The outcome of work bounded by the request's time limit and by its client staying connected. */
export type Bounded<T> = { kind: 'done'; value: T } | { kind: 'timeout' } | { kind: 'gone' };

/**
 * `work` under one AbortSignal that fires at the server's time limit or when the client goes away.
 * The answer does not wait for cancelled work to wind down: at the deadline the 504 goes out at
 * once and the pool stops the solve in the background.
 */
export function runWithin<T>(request: FastifyRequest, reply: FastifyReply | null, context: AppContext, work: (signal: AbortSignal) => Promise<T>): Promise<Bounded<T>> {
  const { config } = context;
  const controller = new AbortController();
  return new Promise<Bounded<T>>((resolve, reject) => {
    const finish = (outcome: Bounded<T>) => {
      clearTimeout(timer);
      reply?.raw.off('close', onClose);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      controller.abort(new RequestEndedError('CR_ERR_SOLVE_TIMEOUT', timeLimitDetail(config.requestTimeoutMs)));
      finish({ kind: 'timeout' });
    }, timerDelay(config.requestTimeoutMs));
    // 'close' on the response before it was written means the connection went away. (Not the
    // request's 'close': that fires as soon as its body has been read.)
    const onClose = () => {
      if (reply?.raw.writableFinished) return;
      controller.abort(new RequestEndedError('CR_ERR_SOLVE_ABORTED', 'The client disconnected'));
      finish({ kind: 'gone' });
    };
    if (reply) {
      reply.raw.on('close', onClose);
      if (request.raw.socket?.destroyed !== false) onClose();
    }
    work(controller.signal).then(
      (value) => finish({ kind: 'done', value }),
      (error: unknown) => {
        clearTimeout(timer);
        reply?.raw.off('close', onClose);
        reject(error);
      },
    );
  });
}

/**
 * One resolve on the server's store and solver, paths hidden; never rejects (failures are per platform).
 * Its repodata loads draw on `budget`, the HTTP request's own decoding budget (one per resolve by default).
 */
export function resolveHere(
  prepared: PreparedRequest,
  context: AppContext,
  signal: AbortSignal,
  request: FastifyRequest,
  budget = new DecodingBudget(context.config.maxRequestDecodingBytes),
): Promise<Resolution> {
  const { config, deps } = context;
  return resolvePrepared(
    prepared,
    { store: deps.store, solver: deps.solver, env: deps.env, hidePaths: true, maxPypiProjects: config.maxPypiProjects, ...(deps.pypiClient ? { pypiClient: deps.pypiClient } : {}) },
    { signal, timeoutMs: config.requestTimeoutMs, decodingBudget: budget },
  ).catch((error: unknown) => {
    // resolvePrepared reports failures per platform; reaching here is a bug worth a log line.
    request.log.error({ err: error }, 'resolve failed unexpectedly');
    return {
      request: prepared,
      platforms: prepared.platforms.map((platform) => ({
        platform,
        records: null,
        error: 'Internal error: the solve failed unexpectedly',
        errorCode: 'CR_ERR_INTERNAL' as const,
        explanation: null,
      })),
    };
  });
}
