/**
 * How long and how much the shared solve cache in Redis keeps. Apart from the Redis client, so
 * that `worker`'s argument parsing (in the services' bundle, which `serve` loads too) does not
 * load ioredis: only `--redis` needs it.
 */
export interface SolveCacheLimits {
  /** How long an outcome is kept; default one day. */
  readonly ttlSeconds: number;
  /** Most outcomes kept (oldest out first); default 10,000. */
  readonly maxEntries: number;
  /** An outcome larger than this (JSON bytes) is not kept; default 4 MiB. */
  readonly maxEntryBytes: number;
}

export const DEFAULT_CACHE_LIMITS: SolveCacheLimits = { ttlSeconds: 86_400, maxEntries: 10_000, maxEntryBytes: 4 * 1024 * 1024 };
