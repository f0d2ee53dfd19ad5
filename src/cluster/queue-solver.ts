/**
 * `serve --redis`: a `PlatformSolver` that answers from the solve-result cache in Redis, else puts
 * the solve on the BullMQ queue for `conda-resolve worker` processes and waits for its outcome.
 *
 * The job id is the solve's content key, so identical solves asked of different replicas while one
 * is queued or running become one job (BullMQ ignores an add whose id exists) and every replica
 * waits for that one. A solve whose indexes have no content identity gets a random id and no cache.
 */
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Channel } from '../../vocabulary/channel.js';
import type { SubdirIndex } from '../../repodata/types.js';
import { CondaResolveError } from '../errors.js';
import type { MixedAnswerSource, MixedAnswerStore, PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from '../solving/types.js';
import { DEFAULT_CACHE_LIMITS } from './cache-limits.js';
import { bullConnectionOptions, KEY_PREFIX, QUEUE_NAME, RedisUnavailableError, type RedisLink } from './redis-link.js';
export { fromTheseChannels } from './solve-job.js';
import {
  decodeOutcome,
  fromTheseChannels,
  solveKey,
  type JobChannel,
  type JobPolicy,
  type SolveJobData,
  type SolveJobResult,
} from './solve-job.js';

export interface IndexSource {
  contentIdentity(index: SubdirIndex): string | null;
  sourceChannel(index: SubdirIndex): Channel | null;
}

/** What the solver tells the metrics. */
export interface QueueSolverEvents {
  cache?(hit: boolean): void;
  /** Time from queueing to a worker taking the job, and from queueing to the outcome. */
  job?(waitMs: number, totalMs: number): void;
}

/**
 * A connection that keeps the duplicates made of it. BullMQ's QueueEvents duplicates the connection
 * it is given and, when closed, first waits for that duplicate to connect: with Redis away it would
 * wait (and keep the process alive) forever, so the solver cuts the duplicates itself.
 */
class DuplicatedRedis extends Redis {
  readonly #copies: Redis[] = [];

  override duplicate(override?: Partial<RedisOptions>): Redis {
    const copy = super.duplicate(override);
    copy.on('error', () => undefined);
    this.#copies.push(copy);
    return copy;
  }

  disconnectCopies(): void {
    for (const copy of this.#copies) copy.disconnect();
  }
}

const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH']);
/** ioredis' own words for a command that could not reach Redis. */
const CONNECTION_MESSAGE = /connection is closed|stream isn't writeable|max retries per request|connection lost/i;

/** Did a Redis command fail because the connection is gone (not because of the command)? */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    (typeof code === 'string' && CONNECTION_CODES.has(code)) ||
    error.name === 'MaxRetriesPerRequestError' ||
    CONNECTION_MESSAGE.test(error.message)
  );
}

function connectionErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : 'connection lost';
}

class MissingChannelError extends CondaResolveError {
  constructor(name: string) {
    super('CR_ERR_INTERNAL', `Internal error: no loaded index of channel ${name}`);
  }
}

export class QueueSolver implements PlatformSolver, MixedAnswerSource {
  readonly queue: Queue<SolveJobData, SolveJobResult>;
  readonly #events: QueueEvents;
  readonly #eventsConnection: DuplicatedRedis;
  readonly #link: RedisLink;
  readonly #indexes: IndexSource;
  readonly #channelAlias: string | null;
  readonly #policy: JobPolicy | null;
  readonly #on: QueueSolverEvents;
  /** Requests waiting for a job, told when the connection to Redis closes (one listener for all). */
  readonly #waiting = new Set<(error: Error) => void>();

  constructor(
    link: RedisLink,
    indexes: IndexSource,
    options: { channelAlias?: string | undefined; policy?: JobPolicy; events?: QueueSolverEvents } = {},
  ) {
    this.#link = link;
    this.#indexes = indexes;
    this.#channelAlias = options.channelAlias || null;
    this.#policy = options.policy ?? null;
    this.#on = options.events ?? {};
    this.queue = new Queue(QUEUE_NAME, { connection: link.client, prefix: KEY_PREFIX });
    this.queue.on('error', () => undefined);
    // QueueEvents reads on a duplicate of the connection it is given: this one never connects itself.
    this.#eventsConnection = new DuplicatedRedis(link.url, { ...bullConnectionOptions(), lazyConnect: true });
    // Redis away is reported by the link; a connection without a listener would print each retry.
    this.#eventsConnection.on('error', () => undefined);
    this.#events = new QueueEvents(QUEUE_NAME, { connection: this.#eventsConnection, prefix: KEY_PREFIX });
    this.#events.on('error', () => undefined);
    // Every request waiting for a job listens for its completion and for the connection closing.
    this.#events.setMaxListeners(0);
    link.client.on('close', () => {
      const error = new RedisUnavailableError(link.problem() ?? 'the connection closed while waiting for the solve');
      for (const fail of this.#waiting) fail(error);
    });
  }

  /**
   * Mixed conda+PyPI answers, which the replica solves itself (src/pypi/answer-cache.ts), shared
   * through the same Redis cache under content-identity keys. Redis away makes a lookup a miss and
   * a write a no-op: the replica can still solve these.
   */
  readonly mixedAnswers: MixedAnswerStore = {
    condaKey: (input) => solveKey(input, (index) => this.#indexes.contentIdentity(index)),
    get: async (key) => (this.#link.ready ? await this.#link.cachedText(key).catch(() => null) : null),
    set: async (key, text) => {
      if (this.#link.ready) await this.#link.rememberText(key, text, DEFAULT_CACHE_LIMITS).catch(() => undefined);
    },
    counted: (hit) => this.#on.cache?.(hit),
  };

  async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    signal?.throwIfAborted();
    this.#link.assertReady();
    const key = solveKey(input, (index) => this.#indexes.contentIdentity(index));
    try {
      if (key) {
        const cached = await this.#link.cached(key);
        // A malformed entry, or one naming packages the request's channels do not have, is a miss.
        const hit = cached === null ? null : fromTheseChannels(cached, input);
        this.#on.cache?.(hit !== null);
        if (hit) return hit;
      }
      const jobId = key ?? randomUUID();
      const queued = Date.now();
      const job = await this.queue.add('solve', this.#jobData(input), { jobId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
      const result = await this.#wait(job, jobId, input.timeoutMs, signal);
      this.#on.job?.(Math.max(0, result.startedAt - queued), Date.now() - queued);
      return result.outcome;
    } catch (error) {
      if (error instanceof CondaResolveError || signal?.aborted) throw error;
      // A command that failed because the connection dropped meanwhile. The client may still call
      // itself ready for a moment after Redis went away (the socket's close not yet seen), so the
      // error itself is asked too.
      if (!this.#link.ready || isConnectionError(error))
        throw new RedisUnavailableError(this.#link.problem() ?? connectionErrorText(error));
      throw error;
    }
  }

  async close(): Promise<void> {
    const closing = Promise.allSettled([this.#events.close(), this.queue.close()]);
    if (!this.#link.ready) {
      // BullMQ's close waits for a connection that may never come: with Redis away, cut it.
      this.#eventsConnection.disconnectCopies();
      this.#link.client.disconnect();
    }
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    this.#eventsConnection.disconnectCopies();
  }

  #jobData(input: PlatformSolveInput): SolveJobData {
    const channels: JobChannel[] = input.channels.map((channel) => {
      const source = channel.sources.map((index) => this.#indexes.sourceChannel(index)).find((found) => found !== null);
      if (!source) throw new MissingChannelError(channel.name);
      return { name: channel.name, url: source.authenticatedBaseUrl(), subdirs: channel.sources.map((index) => index.subdir) };
    });
    return {
      specs: input.specs.map((spec) => spec.source),
      channels,
      virtualPackages: input.virtualPackages,
      channelPriority: input.channelPriority ?? null,
      excludeNewer: input.excludeNewer ?? null,
      locked: input.locked ?? null,
      resolution: input.resolution ?? 'highest',
      timeoutMs: input.timeoutMs ?? null,
      deadline: input.timeoutMs !== undefined ? Date.now() + input.timeoutMs : null,
      channelAlias: this.#channelAlias,
      policy: this.#policy,
    };
  }

  /** The job's result; a completion that happened before we listened is read from its result key. */
  async #wait(
    job: Job<SolveJobData, SolveJobResult>,
    jobId: string,
    timeoutMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<SolveJobResult> {
    const finished = job.waitUntilFinished(this.#events, timeoutMs !== undefined ? timeoutMs + 5000 : undefined).then(
      (value: SolveJobResult) => value,
      async (error: unknown) => {
        const text = await this.#link.jobResult(jobId);
        const result = text === null ? null : (JSON.parse(text) as SolveJobResult);
        if (result && decodeOutcome(JSON.stringify(result.outcome))) return result;
        throw error;
      },
    );
    // Redis lost while waiting: the job may be gone with it, so say so now rather than at the time limit.
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal!.reason instanceof Error ? signal!.reason : new Error('The request was cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.add(reject);
      finished.then(resolve, reject).finally(() => {
        signal?.removeEventListener('abort', onAbort);
        this.#waiting.delete(reject);
      });
    });
  }
}
