/**
 * What the route plugins share: the frozen configuration, the injected dependencies, the schemas.
 * Passed to each plugin as its options, so nothing is a module-level singleton and every app built
 * in a test is independent.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { loadRegistry } from '../exporters/index.js';
import type { PlatformSolver } from '../solving/types.js';
import type { ResolveDeps } from '../resolve.js';
import type { ChannelPolicy } from './channel-policy.js';
import type { ServerConfig } from './config.js';
import type { Schemas } from './schemas.js';
import type { SolveCacheStats } from '../solving/solve-cache.js';
import type { ClusterStatus } from '../cluster/replica.js';
import type { Redis as RateLimitRedis } from 'ioredis';
import type { Metrics } from './metrics.js';
import type { Dispatcher } from 'undici';

export type ExporterRegistry = Awaited<ReturnType<typeof loadRegistry>>['registry'];

export interface Clock {
  /** Wall-clock time, for `created` dates in lock files. */
  now(): Date;
}

/** What `/health` reports about the worker pool (a `SolvePool` has exactly these). */
export interface PoolStatus {
  readonly size: number;
  readonly running: number;
  readonly queued: number;
  readonly maxQueue: number;
}

/** Set by the server when SIGTERM arrives: new requests get 503 and their connections close. */
export interface Lifecycle {
  closing: boolean;
}

export interface AppDeps {
  readonly store: ResolveDeps['store'];
  readonly solver: PlatformSolver;
  readonly registry: ExporterRegistry;
  readonly policy: ChannelPolicy;
  /** The simple-index client for a request's PyPI part (the server's cache and network); default one on the default cache directory. */
  readonly pypiClient?: ResolveDeps['pypiClient'];
  readonly logger: FastifyBaseLogger;
  readonly clock?: Clock;
  /** Environment for `CONDA_CHANNEL_ALIAS` and `CONDA_OVERRIDE_*` (conda's own variables). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Base for relative local channel paths (only used when local channels are allowed). */
  readonly cwd: string;
  /** The platform solved when a request names none; default: this machine's. */
  readonly hostPlatform?: string;
  readonly pool?: PoolStatus;
  readonly solveCache?: { stats(): SolveCacheStats };
  readonly lifecycle?: Lifecycle;
  /** With `serve --redis`: the shared queue's state for /health, Redis for the rate limit. */
  readonly cluster?: { readonly redis: RateLimitRedis; status(): Promise<ClusterStatus> };
  /** What GET /metrics reports; default a fresh registry fed by this app alone. */
  readonly metrics?: Metrics;
  /** The HTTP client of `--osv-api` (serve --condarc's proxies and TLS); Node's own network without it. */
  readonly osvDispatcher?: Dispatcher;
}

export interface AppContext {
  readonly config: ServerConfig;
  readonly deps: AppDeps;
  readonly schemas: Schemas;
  readonly clock: Clock;
  readonly hostPlatform: string;
  readonly startedAt: number;
  readonly metrics: Metrics;
}
