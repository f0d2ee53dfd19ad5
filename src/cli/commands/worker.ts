/**
 * `conda-resolve worker --redis URL`: a solver process for `serve --redis` replicas. It takes solves
 * from the queue in Redis until SIGTERM/SIGINT, then finishes the jobs it holds and exits 0.
 */
import type { CommandArgs } from '../args.js';
import type { WORKER_OPTIONS } from '../command-table.js';
import { availableParallelism } from 'node:os';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { defaultCacheDir } from '../../../repodata/store.js';
import { userMessage } from '../../errors.js';
import { ConfigError, redisUrl } from '../../http/config.js';
import { DEFAULT_CACHE_LIMITS, type SolveCacheLimits } from '../../cluster/cache-limits.js';
import type { JobPolicy } from '../../cluster/solve-job.js';
import type { WorkerChannelPolicy } from '../../cluster/worker.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, writeError, type CliIO } from '../io.js';

export const WORKER_USAGE = `usage: conda-resolve worker --redis URL [--workers N] [--cache-dir DIR] [--solve-cache-ttl SECONDS]
                            [--solve-cache-entries N] [--log-level LEVEL]

Solve for \`conda-resolve serve --redis\` replicas: take solves from the job queue in Redis, load
channels into this process's own repodata cache under the channel policy of the replica that sent
the job (its allowlist, redirects and base_url included), solve on N threads. Run any number, on any
machine that reaches Redis and the channels. A worker killed mid-solve loses nothing: its jobs go
to another worker after about 5 s.

      --redis URL          the replicas' Redis (CONDA_RESOLVE_REDIS_URL)
      --workers N          solver threads, and jobs taken at once (CONDA_RESOLVE_WORKERS;
                           default: CPU count)
      --cache-dir DIR      repodata cache (CONDA_RESOLVE_CACHE_DIR; default: the user cache)
      --solve-cache-ttl SECONDS
                           how long a solve outcome stays in the shared cache in Redis
                           (CONDA_RESOLVE_SOLVE_CACHE_TTL; default 86400, one day)
      --solve-cache-entries N
                           most outcomes the shared cache keeps, oldest out first
                           (CONDA_RESOLVE_SOLVE_CACHE_ENTRIES; default 10000)
      --log-level LEVEL    fatal, error, warn, info, debug, trace or silent
                           (CONDA_RESOLVE_LOG_LEVEL; default info)
  -h, --help               show this help
`;

/**
 * A job's channel policy as the replica applies it (src/http/channel-policy.ts), for the worker:
 * the same allowlist, local channels, address rules and DNS-rebinding check at connection time.
 */
export async function replicaPolicies(cwd: string): Promise<(policy: JobPolicy, channelAlias: string | null) => WorkerChannelPolicy> {
  const { createChannelPolicy } = await import('../../http/channel-policy.js');
  return (policy, channelAlias) => {
    const made = createChannelPolicy({
      allowed: policy.allowed,
      allowLocal: policy.allowLocal,
      channelAlias: channelAlias ?? undefined,
      cwd,
    });
    return { checkUrl: (url: URL) => made.checkUrl(url.href), lookup: made.lookup };
  };
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const usage = WORKER_USAGE;

export async function run({ values }: CommandArgs<typeof WORKER_OPTIONS>, io: CliIO): Promise<number> {
  const from = (flag: string | undefined, name: string, variable: string) =>
    flag !== undefined
      ? { value: flag, from: `--${name}` }
      : io.env[variable]?.trim()
        ? { value: io.env[variable]!, from: variable }
        : undefined;
  let url: string | null;
  let threads: number;
  let level: string;
  let cacheLimits: SolveCacheLimits;
  let cacheDir: string;
  try {
    url = redisUrl(from(values.redis, 'redis', 'CONDA_RESOLVE_REDIS_URL'));
    if (url === null)
      throw new ConfigError('conda-resolve worker needs --redis URL (or CONDA_RESOLVE_REDIS_URL): the Redis its replicas use');
    const workers = from(values.workers, 'workers', 'CONDA_RESOLVE_WORKERS');
    threads = workers ? Number(workers.value) : Math.max(1, availableParallelism());
    if (!Number.isInteger(threads) || threads < 1 || threads > 256)
      throw new ConfigError(`Cannot use ${workers?.from} "${workers?.value}": expected a whole number from 1 to 256`);
    const count = (name: string, variable: string, fallback: number, max: number): number => {
      const source = from(values[name as 'solve-cache-ttl'], name, variable);
      if (!source) return fallback;
      const value = /^\s*\d+\s*$/.test(source.value) ? Number(source.value) : NaN;
      if (!Number.isInteger(value) || value < 1 || value > max)
        throw new ConfigError(`Cannot use ${source.from} "${source.value}": expected a whole number from 1 to ${max}`);
      return value;
    };
    cacheLimits = {
      ...DEFAULT_CACHE_LIMITS,
      ttlSeconds: count('solve-cache-ttl', 'CONDA_RESOLVE_SOLVE_CACHE_TTL', DEFAULT_CACHE_LIMITS.ttlSeconds, 365 * 86_400),
      maxEntries: count('solve-cache-entries', 'CONDA_RESOLVE_SOLVE_CACHE_ENTRIES', DEFAULT_CACHE_LIMITS.maxEntries, 10_000_000),
    };
    level = (from(values['log-level'], 'log-level', 'CONDA_RESOLVE_LOG_LEVEL')?.value ?? 'info').toLowerCase();
    if (!LEVELS.includes(level)) throw new ConfigError(`Cannot use log level "${level}": expected one of ${LEVELS.join(', ')}`);
    const cacheSource = from(values['cache-dir'], 'cache-dir', 'CONDA_RESOLVE_CACHE_DIR');
    cacheDir = resolve(io.cwd, cacheSource?.value ?? defaultCacheDir(io.env));
    const unusable = cacheDirProblem(cacheDir);
    if (unusable)
      throw new ConfigError(
        `Cannot use ${cacheSource?.from ?? 'the default cache directory'} "${cacheDir}" as the repodata cache: ${unusable}`,
      );
  } catch (error) {
    writeError(io, userMessage(error));
    return EXIT_USAGE;
  }

  const logger = pino({ level, base: { service: 'conda-resolve-worker' } }, io.stderr);
  const { startSolveWorker } = await import('../../cluster/worker.js');
  // Listening from the start: a worker still waiting for Redis stops on SIGTERM too.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    let worker;
    try {
      worker = await startSolveWorker({
        redisUrl: url,
        cacheDir,
        threads,
        logger,
        cacheLimits,
        signal: stop.signal,
        policyFor: await replicaPolicies(io.cwd),
      });
    } catch (error) {
      writeError(io, `cannot start the worker: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT_FAILED;
    }
    if (!worker) {
      logger.info('stopped before Redis answered');
      return EXIT_OK;
    }
    if (!stop.signal.aborted) await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    logger.info('stopping: finishing the jobs this worker holds');
    await worker.close();
    logger.info('stopped');
    logger.flush?.();
    return EXIT_OK;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

/**
 * Why `dir` cannot hold the repodata cache, or null: a worker finds out at start, not on its first
 * job (every job failing while it looks healthy). The folder is made if missing, then a file is
 * written in it and removed.
 */
function cacheDirProblem(dir: string): string | null {
  const probe = join(dir, `.conda-resolve-probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    unlinkSync(probe);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EROFS: 'it is on a read-only file system',
      ENOTDIR: 'it is not a folder',
      EEXIST: 'it is not a folder',
      ENOENT: 'files cannot be made in it',
    };
    return `cannot write in it (${(code && why[code]) ?? code ?? 'unwritable'})`;
  }
}
