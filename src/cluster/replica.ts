/**
 * What `serve --redis` adds to one replica: the Redis link, the queue solver behind the replica's
 * own in-memory cache, and the status `/health` reports.
 */
import type { Redis } from 'ioredis';
import type { SubdirIndex } from '../../repodata/types.js';
import type { Channel } from '../../vocabulary/channel.js';
import { QueueSolver, type QueueSolverEvents } from './queue-solver.js';
import type { JobPolicy } from './solve-job.js';
import { redactRedisUrl, RedisLink } from './redis-link.js';

export interface ClusterStatus {
  readonly redis: 'ok' | 'unreachable';
  readonly detail: string | null;
  /** Jobs waiting for a worker and being solved, across the deployment; null when Redis is away. */
  readonly waiting: number | null;
  readonly active: number | null;
  /** `conda-resolve worker` processes connected to the queue now (0: solves wait for one). */
  readonly workers: number | null;
}

export interface Replica {
  readonly solver: QueueSolver;
  /** For @fastify/rate-limit's Redis store. */
  readonly redis: Redis;
  status(): Promise<ClusterStatus>;
  close(): Promise<void>;
}

export function startReplica(
  url: string,
  store: { contentIdentity(index: SubdirIndex): string | null; sourceChannel(index: SubdirIndex): Channel | null },
  options: { channelAlias?: string | undefined; policy?: JobPolicy; events?: QueueSolverEvents; onRedisError?: (detail: string) => void },
): Replica {
  const link = new RedisLink(url, { failFast: true });
  let reported = false;
  link.client.on('error', () => {
    if (!reported) options.onRedisError?.(`${link.problem() ?? 'error'} at ${redactRedisUrl(url)}`);
    reported = true;
  });
  link.client.on('ready', () => (reported = false));
  const solver = new QueueSolver(link, store, options);
  return {
    solver,
    redis: link.client,
    async status() {
      const detail = link.problem();
      if (detail) return { redis: 'unreachable', detail, waiting: null, active: null, workers: null };
      const [counts, workers] = await Promise.all([
        solver.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed').catch(() => null),
        solver.queue.getWorkersCount().catch(() => null),
      ]);
      return {
        redis: counts ? 'ok' : 'unreachable',
        detail: counts ? null : 'Redis did not answer',
        waiting: counts ? (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0) : null,
        active: counts ? (counts.active ?? 0) : null,
        workers,
      };
    },
    async close() {
      await solver.close();
      await link.close();
    },
  };
}
