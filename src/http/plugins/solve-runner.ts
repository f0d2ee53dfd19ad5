/**
 * What every solving route shares (`/resolve`, `/tree`, `/why`, `/why-not`, `/audit`, the MCP
 * tools), as the instance decorator `app.runner`: admission before anything is fetched (limits on
 * what was sent, validation, limits on what it amounts to, the channel and index policy), then the
 * work on the server's store and solver under one AbortSignal that fires at the time limit or when
 * the client goes away. Whatever the route, a request is refused, cut off and logged the same way.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { removeCredentials, parseChannel } from '../../../vocabulary/channel.js';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { timerDelay } from '../../clock.js';
import { problemOfCode, userMessage } from '../../errors.js';
import { prepareRequest, TooManySpecsError, type PrepareOptions, type PreparedRequest } from '../../request.js';
import { resolvePrepared, type Resolution } from '../../resolve.js';
import type { AppContext } from '../app-context.js';
import { ChannelRefusedError } from '../channel-policy.js';
import { inputProblem, inputProblemExtras } from '../error-handler.js';
import { HttpProblemError, type PlatformFailure } from '../problem.js';
import type { ResolveInput } from '../routes/resolve-input.js';
import { lockFormatOf } from '../../locks/lock-file.js';
import type { SolveLog } from './request-log.js';
import { DecodingBudget } from '../../../repodata/decoding-budget.js';

declare module 'fastify' {
  interface FastifyInstance {
    readonly runner: SolveRunner;
  }
}

/** Longest error text sent for one platform: explanations of hard conflicts can grow to megabytes. */
export const MAX_ERROR_CHARS = 32 * 1024;

export function boundedError(text: string): string {
  if (text.length <= MAX_ERROR_CHARS) return text;
  return `${text.slice(0, MAX_ERROR_CHARS)}\n... (${text.length - MAX_ERROR_CHARS} more characters not shown)`;
}

export function timeLimitDetail(ms: number): string {
  const seconds = ms / 1000;
  return `Cannot finish the resolve: it exceeded this server's time limit of ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/** Why a request's signal was aborted. */
class RequestEndedError extends CondaResolveError {}

export class SolveRunner {
  /** Each HTTP request's decoding budget, made at its first resolve and gone with the request. */
  readonly #budgets = new WeakMap<FastifyRequest, DecodingBudget>();

  constructor(private readonly context: AppContext) {}

  /** Starts the request's log account (`request.solveLog`) from what was sent. */
  begin(request: FastifyRequest, input: ResolveInput | undefined, format?: string): SolveLog {
    const log: SolveLog = {
      format,
      file: input?.hasFile ?? false,
      specs: input?.request.specs?.length ?? 0,
      platforms: input?.request.platforms ?? [],
    };
    request.solveLog = log;
    return log;
  }

  /** Everything a request must pass before anything is fetched. */
  async admit(input: ResolveInput, request: FastifyRequest): Promise<PreparedRequest> {
    const options = this.prepareOptions(input);
    const prepared = this.validated(input, () => prepareRequest(input.request, options));
    this.checkPrepared(input, prepared);
    this.noteAdmitted(
      request,
      prepared.specs.length,
      prepared.platforms,
      prepared.channels.map((c) => c.name),
    );
    await this.checkChannels(input, prepared);
    return prepared;
  }

  /** The refusals that need no parsing (lock misuse, counts over the limits), and the options to prepare with. */
  prepareOptions(input: ResolveInput): PrepareOptions {
    const { config, deps, hostPlatform } = this.context;
    refuseLockMisuse(input);
    checkLimit('specs', input.request.specs?.length ?? 0, config.maxSpecs);
    checkLimit('platforms', input.request.platforms?.length ?? 0, config.maxPlatforms);
    checkLimit('channels', input.request.channels?.length ?? 0, config.maxChannels);
    // maxSpecs is counted before any spec is parsed: a 1 MB file of short lines is refused at once.
    return { env: deps.env, cwd: deps.cwd, hostPlatform, defaultChannels: config.defaultChannels, maxSpecs: config.maxSpecs };
  }

  /** Runs a validation step; a typed input error becomes the 400 naming its field. */
  validated<T>(input: ResolveInput, prepare: () => T): T {
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
  checkPrepared(input: ResolveInput, prepared: PreparedRequest): void {
    const { config } = this.context;
    checkLimit(input.hasFile ? 'file' : 'specs', prepared.specs.length, config.maxSpecs, 'specs');
    checkLimit('platforms', prepared.platforms.length, config.maxPlatforms);
    checkLimit(input.hasFile ? 'file' : 'channels', prepared.channels.length, config.maxChannels, 'channels');
  }

  noteAdmitted(request: FastifyRequest, specs: number, platforms: readonly string[], channels: readonly string[]): void {
    if (!request.solveLog) return;
    Object.assign(request.solveLog, { specs, platforms, channels });
  }

  /**
   * The channel policy on the previous lock's channels (field `lock`: its records are only
   * preferences, but a lock naming a channel this server may not use is refused all the same), on
   * the channels the request will fetch, and on its PyPI indexes.
   */
  async checkChannels(input: ResolveInput, prepared: PreparedRequest): Promise<void> {
    const { deps, config } = this.context;
    const refuse = async (url: string, field: string): Promise<void> => {
      try {
        await deps.policy.checkUrl(url);
      } catch (error) {
        if (error instanceof ChannelRefusedError)
          throw new HttpProblemError('channel-refused', userMessage(error, { hidePaths: true }), { field });
        throw error;
      }
    };
    for (const text of prepared.previousLock?.environment.channels ?? []) {
      let url: string;
      try {
        url = parseChannel(text, { alias: deps.env.CONDA_CHANNEL_ALIAS, cwd: deps.cwd }).baseUrl;
      } catch (error) {
        if (error instanceof CondaResolveError)
          throw new HttpProblemError(
            'invalid-channel',
            `Cannot use the lock "${prepared.previousLock!.filename}": ${userMessage(error, { hidePaths: true })}`,
            { field: 'lock' },
          );
        throw error;
      }
      await refuse(url, 'lock');
    }
    const field = input.hasFile && !input.request.channels?.length ? 'file' : 'channels';
    for (const channel of prepared.channels) await refuse(channel.baseUrl, field);
    // PyPI indexes: only those the operator allows (https://pypi.org/simple/ unless --allow-index adds more).
    const pypi = prepared.pypi;
    if (pypi) {
      if (pypi.findLinks.length > 0)
        throw new HttpProblemError('channel-refused', 'Cannot use find-links on this server: it reads no local folder', {
          field: 'find_links',
        });
      const allowed = new Set(config.allowedIndexes);
      for (const [url, where] of [[pypi.indexUrl, 'index_url'], ...pypi.extraIndexUrls.map((u) => [u, 'extra_index_urls'])] as const) {
        const normal = url.endsWith('/') ? url : `${url}/`;
        if (!allowed.has(normal))
          throw new HttpProblemError(
            'channel-refused',
            `Cannot use the PyPI index ${removeCredentials(url)}: this server allows ${[...allowed].join(', ')}`,
            { field: where },
          );
      }
    }
  }

  /**
   * `work` under one AbortSignal that fires at the server's time limit or when the client goes
   * away. Its value; a 504 problem at the time limit (the answer does not wait for cancelled work
   * to wind down: the pool stops the solve in the background); undefined when the client went away,
   * after which nothing is written and the connection is dropped. `reply` is null for an MCP tool,
   * whose transport owns the connection.
   */
  async within<T>(
    request: FastifyRequest,
    reply: FastifyReply | null,
    work: (signal: AbortSignal) => Promise<T>,
    platforms?: readonly string[],
  ): Promise<T | undefined> {
    const { config } = this.context;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let onClose = (): void => {};
    const cut = new Promise<'timeout' | 'gone'>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new RequestEndedError('CR_ERR_SOLVE_TIMEOUT', timeLimitDetail(config.requestTimeoutMs)));
        resolve('timeout');
      }, timerDelay(config.requestTimeoutMs));
      // 'close' on the response before it was written means the connection went away. (Not the
      // request's 'close': that fires as soon as its body has been read.)
      onClose = () => {
        if (reply?.raw.writableFinished) return;
        controller.abort(new RequestEndedError('CR_ERR_SOLVE_ABORTED', 'The client disconnected'));
        resolve('gone');
      };
      if (reply) {
        reply.raw.on('close', onClose);
        if (request.raw.socket?.destroyed !== false) onClose();
      }
    });
    const done = work(controller.signal).then((value) => ({ value }));
    try {
      const ended = await Promise.race([done, cut]);
      if (typeof ended === 'object') return ended.value;
      if (ended === 'timeout') {
        const detail = timeLimitDetail(config.requestTimeoutMs);
        const extras = platforms
          ? { platforms: platforms.map((platform) => ({ platform, error: detail, code: 'CR_ERR_SOLVE_TIMEOUT' })) }
          : {};
        throw new HttpProblemError('time-limit', detail, extras);
      }
      this.abandon(request, reply);
      return undefined;
    } finally {
      clearTimeout(timer);
      reply?.raw.off('close', onClose);
      // The cancelled work may still settle, or fail, later: nobody waits for it.
      done.catch(() => undefined);
    }
  }

  /**
   * One resolve on the server's store and solver, paths hidden; never rejects (failures are per platform).
   * Every resolve of one HTTP request (a workspace's environments, why-not's two solves) draws on that
   * request's own decoding budget, within the process's global one.
   */
  resolve(prepared: PreparedRequest, request: FastifyRequest, signal: AbortSignal): Promise<Resolution> {
    const { config, deps } = this.context;
    let budget = this.#budgets.get(request);
    if (budget === undefined) {
      budget = new DecodingBudget(config.maxRequestDecodingBytes);
      this.#budgets.set(request, budget);
    }
    return resolvePrepared(
      prepared,
      {
        store: deps.store,
        solver: deps.solver,
        env: deps.env,
        hidePaths: true,
        maxPypiProjects: config.maxPypiProjects,
        ...(deps.pypiClient ? { pypiClient: deps.pypiClient } : {}),
      },
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

  /**
   * The platforms that failed, with their bounded errors, noted in the log (an answer that goes
   * out as an error is logged by its status). A full queue or the time limit concerns the whole
   * request, whatever the route: a 503 or a 504 problem.
   */
  failures(
    request: FastifyRequest,
    resolutions: readonly { readonly environment?: string; readonly resolution: Resolution }[],
  ): PlatformFailure[] {
    const failures: PlatformFailure[] = resolutions.flatMap(({ environment, resolution }) =>
      resolution.platforms
        .filter((p) => p.error !== null)
        .map((p) => ({
          platform: p.platform,
          error: boundedError(p.error!),
          code: p.errorCode ?? 'CR_ERR_INTERNAL',
          ...(environment !== undefined ? { environment } : {}),
        })),
    );
    const log = request.solveLog;
    if (log) {
      log.failed = [...new Set(failures.map((f) => f.platform))];
      log.outcome = failures.length > 0 ? 'partial' : 'solved';
    }
    const overloaded = failures.find((f) => problemOfCode(f.code) === 'overloaded');
    if (overloaded) {
      // Redis down is said as such (serve --redis); a full local queue keeps its short line.
      const detail =
        overloaded.code === 'CR_ERR_REDIS_UNAVAILABLE'
          ? overloaded.error
          : 'Cannot start the solve: the solve queue is full; retry shortly';
      throw new HttpProblemError('overloaded', detail, { retry_after: 1 });
    }
    if (failures.some((f) => problemOfCode(f.code) === 'time-limit')) {
      throw new HttpProblemError('time-limit', timeLimitDetail(this.context.config.requestTimeoutMs), { platforms: failures });
    }
    return failures;
  }

  /** Nobody is listening: no answer is written (and no access log line); this line stands for it. */
  private abandon(request: FastifyRequest, reply: FastifyReply | null): void {
    if (request.solveLog) request.solveLog.outcome = 'cancelled';
    if (!reply) return;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        outcome: 'cancelled',
        reason: 'client disconnected',
      },
      'resolve cancelled',
    );
    reply.hijack();
    reply.raw.destroy();
  }
}

/** Options that need `lock`, or that do not go together, refused with the field at fault. */
export function refuseLockMisuse(input: ResolveInput): void {
  const { request } = input;
  const needsLock = [
    (request.update ?? []).length > 0 ? 'update' : undefined,
    input.check ? 'check' : undefined,
    input.diff ? 'diff' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (request.lock === undefined && needsLock.length > 0) {
    throw new HttpProblemError(
      'invalid-option',
      `Cannot use "${needsLock[0]}" without "lock": send the text of the previous pixi.lock or conda-lock.yml as "lock"`,
      { field: 'lock' },
    );
  }
  if (input.check && input.diff) {
    throw new HttpProblemError(
      'invalid-option',
      'Cannot use "check" with "diff": a check solves nothing, so there is nothing to compare; send one or the other',
      { field: 'diff' },
    );
  }
  const file = request.files?.[0];
  if (file && lockFormatOf(file.filename, file.content)) {
    const extra = (request.specs ?? []).length > 0 ? 'specs' : (request.channels ?? []).length > 0 ? 'channels' : undefined;
    if (extra) {
      throw new HttpProblemError(
        'invalid-option',
        `Cannot combine the lock file "${file.filename}" given as "file" with "${extra}": a lock is the environment as it is; to re-solve close to a lock, send the request with the lock as "lock"`,
        { field: extra },
      );
    }
  }
}

function checkLimit(field: string, count: number, limit: number, what = field): void {
  if (count <= limit) return;
  const kind = what === 'specs' ? 'too-many-specs' : what === 'platforms' ? 'too-many-platforms' : 'too-many-channels';
  throw new HttpProblemError(kind, `Cannot resolve: the request has ${count} ${what}, more than this server's limit of ${limit}`, {
    field,
    limit,
  });
}

export const solveRunner = fp<{ context: AppContext }>(
  async (app: FastifyInstance, { context }) => {
    app.decorate('runner', new SolveRunner(context));
  },
  { name: 'solve-runner', dependencies: ['request-log'] },
);
