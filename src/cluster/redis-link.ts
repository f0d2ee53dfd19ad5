/**
 * The Redis side of `serve --redis` and `conda-resolve worker`: one ioredis connection that knows
 * whether Redis answers, the names of the keys and the queue, and the shared solve-result cache.
 *
 * Commands on the replica's connection fail at once while Redis is away (no offline queue), so a
 * request is told "Redis unreachable" instead of hanging; ioredis keeps reconnecting in the
 * background (at most every 2 s) and service resumes by itself when Redis is back.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { CondaResolveError } from '../errors.js';
import { redactSecrets } from '../../vocabulary/channel.js';
import type { SolveCacheLimits } from './cache-limits.js';
import { decodeOutcome, encodeOutcome } from './solve-job.js';
import type { PlatformSolveOutcome } from '../solving/types.js';

/** BullMQ's key prefix and queue name: every replica and worker of one deployment must agree. */
export const KEY_PREFIX = 'conda-resolve';
export const QUEUE_NAME = 'solve';

const solveKey = (key: string) => `${KEY_PREFIX}:cache:${key}`;
const CACHE_INDEX = `${KEY_PREFIX}:cache-index`;
const resultKey = (jobId: string) => `${KEY_PREFIX}:result:${jobId}`;
/** Total solves run by all workers (tests and operators read it to see deduplication at work). */
export const SOLVES_COUNTER = `${KEY_PREFIX}:stats:solves`;

export class RedisUnavailableError extends CondaResolveError {
  constructor(why: string) {
    super('CR_ERR_REDIS_UNAVAILABLE', `Cannot solve: Redis, which holds the shared solve queue, is unreachable (${why}); retry shortly`);
  }
}

/** The URL without its password, for logs and /health. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return redactSecrets(url);
  }
}

/** Options for connections BullMQ uses (blocking commands must retry forever). */
export function bullConnectionOptions(): RedisOptions {
  return { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2000) };
}

export class RedisLink {
  readonly client: Redis;
  readonly url: string;
  #lastError: string | null = null;

  constructor(url: string, options: { failFast: boolean }) {
    this.url = url;
    this.client = new Redis(url, {
      ...(options.failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 } : { maxRetriesPerRequest: null }),
      retryStrategy: (times) => Math.min(times * 200, 2000),
      connectTimeout: 2000,
    });
    this.client.on('error', (error: Error) => {
      // The code alone (ECONNREFUSED): a connection error's message carries the address.
      this.#lastError = (error as NodeJS.ErrnoException).code ?? error.message;
    });
    this.client.on('ready', () => {
      this.#lastError = null;
    });
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * Why Redis cannot be used now, or null when it can. Clients see it (503s, /health), so it names
   * no host or user: logs add `redactRedisUrl(url)`.
   */
  problem(): string | null {
    if (this.ready) return null;
    return this.#lastError ?? 'not connected';
  }

  assertReady(): void {
    const problem = this.problem();
    if (problem) throw new RedisUnavailableError(problem);
  }

  async cached(key: string): Promise<PlatformSolveOutcome | null> {
    const text = await this.cachedText(key);
    return text === null ? null : decodeOutcome(text);
  }

  /** An entry as written (a mixed conda+PyPI answer is decoded by its reader). */
  async cachedText(key: string): Promise<string | null> {
    return this.client.get(solveKey(key));
  }

  /** Keeps an outcome under its key, within the TTL and the size bounds. */
  async remember(key: string, outcome: PlatformSolveOutcome, limits: SolveCacheLimits): Promise<void> {
    await this.rememberText(key, encodeOutcome(outcome), limits);
  }

  /** Keeps an entry's text under its key, within the TTL and the size bounds. */
  async rememberText(key: string, text: string, limits: SolveCacheLimits): Promise<void> {
    if (Buffer.byteLength(text) > limits.maxEntryBytes) return;
    const now = Date.now();
    await this.client
      .multi()
      .set(solveKey(key), text, 'EX', limits.ttlSeconds)
      .zadd(CACHE_INDEX, now, key)
      .zremrangebyscore(CACHE_INDEX, 0, now - limits.ttlSeconds * 1000)
      .exec();
    const size = await this.client.zcard(CACHE_INDEX);
    if (size > limits.maxEntries) {
      const oldest = await this.client.zrange(CACHE_INDEX, 0, size - limits.maxEntries - 1);
      if (oldest.length > 0)
        await this.client
          .multi()
          .del(...oldest.map(solveKey))
          .zrem(CACHE_INDEX, ...oldest)
          .exec();
    }
  }

  /** The outcome of a finished job, kept briefly for a replica that missed its completion event. */
  async jobResult(jobId: string): Promise<string | null> {
    return this.client.get(resultKey(jobId));
  }

  async setJobResult(jobId: string, text: string): Promise<void> {
    await this.client.set(resultKey(jobId), text, 'EX', 120);
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
