/**
 * `GET /metrics`: what an operator graphs, in Prometheus text format (prom-client). Each app has its
 * own registry, so apps built in tests never share counts.
 *
 * Requests by route and status; solve durations (what the solver behind the in-memory cache took:
 * a thread of the pool, or a queued job with `serve --redis`); queue depth and wait; cache lookups
 * and hit ratio per cache (`memory` in this process, `redis` shared by replicas); repodata bytes
 * and load durations per channel, fed by the repodata store's progress events.
 *
 * Channel labels are the allowlist entry a channel lies under, never the request's own string: a
 * client can name any number of sub-paths of an allowed channel (or, with `*`, of any public host)
 * and each would be a new series kept forever. Channels on no entry are `local` or `other`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LoadProgressEvent } from '../../repodata/types.js';
import { redactSecrets } from '../../vocabulary/channel.js';
import type { SolveCacheStats } from '../solving/solve-cache.js';
import type { MixedAnswerSource, PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from '../solving/types.js';

export const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Where the queue gauges read from: the local pool, or the shared queue with --redis. */
export type QueueDepth = () => Promise<{ readonly queue: 'local' | 'redis'; readonly waiting: number; readonly active: number } | null>;

/** What a channel URL is counted under; its text never holds credentials. */
export type ChannelLabel = (channel: string) => string;

/** Labels by the allowlist entry (`allowlistEntry` of the channel policy), else `local` or `other`. */
export function allowlistLabel(allowlistEntry: (url: string) => string | undefined): ChannelLabel {
  return (channel) => {
    const entry = allowlistEntry(channel);
    if (entry !== undefined) return redactSecrets(entry);
    return channel.startsWith('file:') || !/^[a-z][a-z0-9+.-]*:/i.test(channel) ? 'local' : 'other';
  };
}

export class Metrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #solves: Histogram<'outcome'>;
  readonly #wait: Histogram;
  readonly #lookups: Counter<'cache' | 'result'>;
  readonly #repodataBytes: Counter<'channel' | 'source'>;
  readonly #repodataSeconds: Histogram<'channel'>;
  /** Per channel subdir being loaded: when its first event came and the bytes counted so far. */
  readonly #loads = new Map<string, { started: number; fetched: number }>();
  #memoryCache: (() => SolveCacheStats) | null = null;
  #queueDepth: QueueDepth | null = null;
  readonly #channelLabel: ChannelLabel;

  /** Without `channelLabel`, channels are labelled by their redacted URL (tests and embedders). */
  constructor(options: { channelLabel?: ChannelLabel } = {}) {
    this.#channelLabel = options.channelLabel ?? redactSecrets;
    const registers = [this.registry];
    this.#requests = new Counter({
      name: 'conda_resolve_http_requests_total',
      help: 'HTTP requests answered, by route and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.#solves = new Histogram({
      name: 'conda_resolve_solve_duration_seconds',
      help: 'Solve durations of one platform (cache misses only), by outcome.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.#wait = new Histogram({
      name: 'conda_resolve_queue_wait_seconds',
      help: 'With --redis: time a solve job waited in the shared queue before a worker took it.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#lookups = new Counter({
      name: 'conda_resolve_solve_cache_lookups_total',
      help: 'Solve cache lookups by cache (memory, redis) and result (hit, miss).',
      labelNames: ['cache', 'result'],
      registers,
    });
    const lookups = this.#lookups;
    const memoryCache = () => this.#memoryCache;
    new Gauge({
      name: 'conda_resolve_solve_cache_hit_ratio',
      help: 'Hits over lookups of each solve cache since start (0 before any lookup).',
      labelNames: ['cache'],
      registers,
      async collect() {
        const stats = memoryCache()?.();
        if (stats) this.set({ cache: 'memory' }, ratio(stats.hits, stats.hits + stats.misses));
        const values = (await lookups.get()).values.filter((value) => value.labels.cache === 'redis');
        const hits = values.find((value) => value.labels.result === 'hit')?.value ?? 0;
        const misses = values.find((value) => value.labels.result === 'miss')?.value ?? 0;
        if (hits + misses > 0) this.set({ cache: 'redis' }, ratio(hits, hits + misses));
      },
    });
    const depth = () => this.#queueDepth;
    new Gauge({
      name: 'conda_resolve_queue_depth',
      help: 'Solves waiting and running: the local pool, or with --redis the shared queue of every replica.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        const now = await depth()?.().catch(() => null);
        if (!now) return;
        this.set({ queue: now.queue, state: 'waiting' }, now.waiting);
        this.set({ queue: now.queue, state: 'active' }, now.active);
      },
    });
    this.#repodataBytes = new Counter({
      name: 'conda_resolve_repodata_bytes_total',
      help: 'Repodata bytes read per channel, from the network or the local cache.',
      labelNames: ['channel', 'source'],
      registers,
    });
    this.#repodataSeconds = new Histogram({
      name: 'conda_resolve_repodata_load_seconds',
      help: 'Time to load one channel subdir index (download or cache read, then indexing).',
      labelNames: ['channel'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
  }

  /** The in-memory solve cache whose hits and misses are reported (it counts them itself). */
  watchMemoryCache(stats: () => SolveCacheStats): void {
    this.#memoryCache = stats;
    new Gauge({
      name: 'conda_resolve_memory_cache_entries',
      help: 'Outcomes held by this process in its in-memory solve cache.',
      registers: [this.registry],
      collect() {
        this.set(stats().entries);
      },
    });
  }

  /** Copies the memory cache's own counts into the lookups counter before a scrape. */
  #syncMemory(): void {
    const now = this.#memoryCache?.();
    if (!now) return;
    const seen = this.#memorySeen;
    if (now.hits > seen.hits) this.#lookups.inc({ cache: 'memory', result: 'hit' }, now.hits - seen.hits);
    if (now.misses > seen.misses) this.#lookups.inc({ cache: 'memory', result: 'miss' }, now.misses - seen.misses);
    this.#memorySeen = { hits: now.hits, misses: now.misses };
  }

  #memorySeen = { hits: 0, misses: 0 };

  watchQueue(depth: QueueDepth): void {
    this.#queueDepth = depth;
  }

  request(route: string, method: string, status: number): void {
    this.#requests.inc({ route, method, status: String(status) });
  }

  /** A lookup of the shared Redis cache. */
  redisLookup(hit: boolean): void {
    this.#lookups.inc({ cache: 'redis', result: hit ? 'hit' : 'miss' });
  }

  queueWait(ms: number): void {
    this.#wait.observe(ms / 1000);
  }

  /** A solver that times every solve it passes on. */
  timed(solver: PlatformSolver & MixedAnswerSource): PlatformSolver & MixedAnswerSource {
    const histogram = this.#solves;
    return {
      ...(solver.mixedAnswers ? { mixedAnswers: solver.mixedAnswers } : {}),
      async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
        const stop = histogram.startTimer();
        try {
          const outcome = await solver.solve(input, signal);
          stop({ outcome: outcome.kind });
          return outcome;
        } catch (error) {
          stop({ outcome: 'error' });
          throw error;
        }
      },
    };
  }

  /** The repodata store's `onProgress`: bytes per channel and the time to each `done`. */
  readonly repodata = (event: LoadProgressEvent): void => {
    const channel = this.#channelLabel(event.url ?? event.channel);
    // Loads in flight are keyed by the real channel: two under one label are timed apart.
    const key = `${event.channel}\u0000${event.subdir}`;
    let load = this.#loads.get(key);
    if (!load) {
      load = { started: performance.now(), fetched: 0 };
      this.#loads.set(key, load);
    }
    if (event.phase === 'fetch' && event.bytes !== undefined && event.bytes > load.fetched) {
      // Fetch events carry the bytes received so far: count what is new.
      this.#repodataBytes.inc({ channel, source: 'network' }, event.bytes - load.fetched);
      load.fetched = event.bytes;
    } else if (event.phase === 'cache' && event.bytes !== undefined) {
      this.#repodataBytes.inc({ channel, source: 'cache' }, event.bytes);
    } else if (event.phase === 'done') {
      this.#repodataSeconds.observe({ channel }, (performance.now() - load.started) / 1000);
      this.#loads.delete(key);
    }
  };

  async text(): Promise<string> {
    this.#syncMemory();
    return this.registry.metrics();
  }
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}
