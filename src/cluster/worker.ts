/**
 * `conda-resolve worker`: takes solves from the BullMQ queue, loads the channels with its own
 * repodata store and cache, solves on its own threads, and puts the outcome in the shared cache
 * before completing the job. Every URL it fetches for a job passes the replica's channel policy,
 * which the job carries, so a channel cannot point a worker where the replica may not go. An outcome
 * is cached only under the key the replica asked for: a worker that read other repodata than the
 * replica answers it but caches nothing. A worker that dies stops renewing its job locks and another
 * takes the job (`lockMs`, `stalledCheckMs`; docs/many-machines.md).
 */
import type { LookupFunction } from 'node:net';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import { DEFAULT_MAX_REPODATA_BYTES, RepodataStore } from '../../repodata/store.js';
import type { CheckUrl } from '../../repodata/url-policy.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { CondaResolveError, userMessage } from '../errors.js';
import { SolvePool } from '../solving/solve-pool.js';
import type { PlatformSolveInput, PlatformSolveOutcome } from '../solving/types.js';
import { DEFAULT_CACHE_LIMITS, type SolveCacheLimits } from './cache-limits.js';
import { bullConnectionOptions, KEY_PREFIX, QUEUE_NAME, RedisLink, SOLVES_COUNTER } from './redis-link.js';
import { solveKey, type JobPolicy, type SolveJobData, type SolveJobResult } from './solve-job.js';

/** A replica's policy as the worker applies it: the URL check and the connection-time address check. */
export interface WorkerChannelPolicy {
  readonly checkUrl: CheckUrl;
  readonly lookup: LookupFunction;
}

/** Most policies a worker keeps a store for (one per deployment in practice). */
const MAX_POLICIES = 8;

export interface SolveWorkerOptions {
  readonly redisUrl: string;
  readonly cacheDir: string;
  /** Solver threads, and jobs taken at once. */
  readonly threads: number;
  readonly logger: Logger;
  readonly cacheLimits?: SolveCacheLimits;
  /** How long a job's lock lasts without renewal (a dead worker's job waits this long); default 5 s. */
  readonly lockMs?: number;
  /** How often stalled jobs are looked for; default 2 s. */
  readonly stalledCheckMs?: number;
  /** Gives up waiting for Redis at start-up (SIGTERM before Redis ever answered). */
  readonly signal?: AbortSignal;
  /** Builds the check of a job's channel policy (the CLI uses the server's, src/http/channel-policy.ts). */
  readonly policyFor: (policy: JobPolicy, channelAlias: string | null) => WorkerChannelPolicy;
}

export interface RunningSolveWorker {
  close(): Promise<void>;
}

/** The running worker, or null when `options.signal` stopped it before Redis answered. */
export async function startSolveWorker(options: SolveWorkerOptions): Promise<RunningSolveWorker | null> {
  const { logger } = options;
  const limits = options.cacheLimits ?? DEFAULT_CACHE_LIMITS;
  const stores = new Map<string, { store: RepodataStore; agent: Agent }>();
  const closeStore = async (entry: { store: RepodataStore; agent: Agent }) => {
    await entry.store.close();
    await entry.agent.close();
  };
  /** The store that loads under `data`'s policy, or null when the job carries none. */
  const storeFor = (data: SolveJobData): RepodataStore | null => {
    if (!data.policy) return null;
    const id = JSON.stringify([data.policy.allowed, data.policy.allowLocal, data.channelAlias]);
    let entry = stores.get(id);
    if (!entry) {
      const { checkUrl, lookup } = options.policyFor(data.policy, data.channelAlias);
      // As the server's own client: connections resolve host names through the policy too.
      const agent = new Agent({ connections: 16, headersTimeout: 60_000, bodyTimeout: 60_000, connect: { timeout: 15_000, lookup } });
      const downloadRules = { maxDecodingBytes: 4 * DEFAULT_MAX_REPODATA_BYTES }; // the server's global decoding budget
      entry = {
        store: new RepodataStore({
          cacheDir: options.cacheDir,
          offline: false,
          refresh: false,
          indexBytes: 'memory',
          checkUrl,
          dispatcher: agent,
          downloadRules,
        }),
        agent,
      };
      stores.set(id, entry);
      if (stores.size > MAX_POLICIES) {
        const [oldest, old] = stores.entries().next().value!;
        stores.delete(oldest);
        void closeStore(old).catch(() => undefined);
      }
    }
    return entry.store;
  };
  const pool = new SolvePool({ size: options.threads, maxQueue: Math.max(64, options.threads * 4) });
  pool.warm();
  const link = new RedisLink(options.redisUrl, { failFast: false });
  link.client.on('error', () => undefined);

  const run = async (job: Job<SolveJobData, SolveJobResult>): Promise<SolveJobResult> => {
    const startedAt = Date.now();
    const data = job.data;
    const store = storeFor(data);
    const outcome =
      data.deadline !== null && startedAt > data.deadline ? expired(data) : store ? await solveJob(data, store, pool) : unpoliced();
    const key = outcome.input && store ? solveKey(outcome.input, (index) => store.contentIdentity(index)) : null;
    const result: SolveJobResult = { outcome: outcome.outcome, key, startedAt };
    // Only under the replica's own key (the job id): other repodata than the replica read is no answer to share.
    if (key && key === job.id && outcome.outcome.kind !== 'error') await link.remember(key, outcome.outcome, limits);
    await link.setJobResult(job.id ?? '', JSON.stringify(result));
    await link.client.incr(SOLVES_COUNTER);
    logger.debug({ job: job.id, kind: outcome.outcome.kind, ms: Date.now() - startedAt }, 'solved');
    return result;
  };

  const connection = new Redis(options.redisUrl, bullConnectionOptions());
  // Redis away is logged once per outage through the worker's own error event, not per retry here.
  connection.on('error', () => undefined);
  const worker = new Worker<SolveJobData, SolveJobResult>(QUEUE_NAME, run, {
    connection,
    prefix: KEY_PREFIX,
    concurrency: options.threads,
    lockDuration: options.lockMs ?? 5000,
    stalledInterval: options.stalledCheckMs ?? 2000,
    maxStalledCount: 5,
  });
  // One line per outage, not one per reconnection attempt.
  let away = false;
  worker.on('error', (error) => {
    if (!away) logger.warn({ error: error.message }, 'Redis unreachable: waiting for it to come back');
    away = true;
  });
  connection.on('ready', () => {
    if (away) logger.info('Redis reachable again: taking jobs');
    away = false;
  });
  worker.on('failed', (job, error) => logger.warn({ job: job?.id, error: error.message }, 'job failed'));
  const { signal } = options;
  const stopped = new Promise<void>((resolve) =>
    signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true }),
  );
  await Promise.race([worker.waitUntilReady(), stopped]);
  if (signal?.aborted) {
    // Never connected: nothing to finish, so cut the connections instead of a graceful close.
    connection.disconnect();
    link.client.disconnect();
    void worker.close(true).catch(() => undefined);
    await Promise.all([pool.close(), ...[...stores.values()].map(closeStore)]);
    return null;
  }
  logger.info({ redis: link.url.replace(/\/\/[^@/]*@/, '//***@'), threads: options.threads }, 'conda-resolve worker ready');

  return {
    async close() {
      await worker.close();
      // BullMQ leaves a connection it was given open: without this the process would not exit.
      connection.disconnect();
      await Promise.all([pool.close(), ...[...stores.values()].map(closeStore), link.close()]);
    },
  };
}

function expired(data: SolveJobData): { outcome: PlatformSolveOutcome; input: null } {
  const seconds = (data.timeoutMs ?? 0) / 1000;
  return {
    outcome: {
      kind: 'error',
      code: 'CR_ERR_SOLVE_TIMEOUT',
      message: `Resolve exceeded the time limit of ${seconds} s (waiting for a solver worker)`,
    },
    input: null,
  };
}

function unpoliced(): { outcome: PlatformSolveOutcome; input: null } {
  const message =
    'The job carries no channel policy (sent by an older replica?): a worker fetches nothing it could not check; run replicas and workers of the same version';
  return { outcome: { kind: 'error', code: 'CR_ERR_CHANNEL_REFUSED', message }, input: null };
}

/** Loads the job's channels here and solves on the pool; failures become an error outcome. */
async function solveJob(
  data: SolveJobData,
  store: RepodataStore,
  pool: SolvePool,
): Promise<{ outcome: PlatformSolveOutcome; input: PlatformSolveInput | null }> {
  try {
    const specs = data.specs.map((text) => parseMatchSpec(text));
    const channels = data.channels.map((channel) => parseChannel(channel.url, { alias: data.channelAlias ?? undefined }));
    const subdirs = data.channels[0]?.subdirs ?? [];
    const rootNames = [...new Set(specs.map((spec) => spec.name).filter((name) => name !== '' && name !== '*'))];
    const remaining = data.deadline !== null ? Math.max(1, data.deadline - Date.now()) : undefined;
    const indexes = await store.prepare(channels, subdirs, rootNames);
    const input: PlatformSolveInput = {
      specs,
      channels: data.channels.map((channel, i) => ({
        name: channel.name,
        sources: indexes.slice(i * subdirs.length, (i + 1) * subdirs.length),
      })),
      virtualPackages: data.virtualPackages,
      ...(data.channelPriority !== null ? { channelPriority: data.channelPriority } : {}),
      ...(data.excludeNewer !== null ? { excludeNewer: data.excludeNewer } : {}),
      ...(data.locked !== null && data.locked !== undefined ? { locked: data.locked } : {}),
      ...(data.resolution && data.resolution !== 'highest' ? { resolution: data.resolution } : {}),
      ...(remaining !== undefined ? { timeoutMs: data.deadline !== null ? Math.max(1, data.deadline - Date.now()) : remaining } : {}),
    };
    return { outcome: await pool.solve(input), input };
  } catch (error) {
    const code = error instanceof CondaResolveError ? error.code : 'CR_ERR_INTERNAL';
    return { outcome: { kind: 'error', code, message: userMessage(error, { hidePaths: true }) }, input: null };
  }
}
