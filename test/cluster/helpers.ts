/**
 * Real processes for the cluster tests: a private redis-server on a free 127.0.0.1 port (never
 * 6379), `conda-resolve worker` processes from dist/, and a way to read the shared queue.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CLI } from '../cli/run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

/** redis-server's path, or null (the tests then skip, saying so). */
export const REDIS_SERVER = findRedisServer();

if (!REDIS_SERVER && process.env.CONDA_RESOLVE_REQUIRE_REDIS === '1') {
  throw new Error('CONDA_RESOLVE_REQUIRE_REDIS=1 but redis-server is not installed');
}

function findRedisServer(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** A throwaway Redis (no persistence) on `port` (default a free one); settles once it answers PING. */
export async function startRedis(port?: number): Promise<RedisProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn(REDIS_SERVER!, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `redis://127.0.0.1:${chosen}`;
  await until(
    async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    },
    10_000,
    'redis-server to answer',
  );
  return {
    url,
    port: chosen,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly stderr: string[];
  readonly exit: Promise<number | null>;
}

/** `conda-resolve worker` from dist/, one solver thread; settles once it says it is ready. */
export async function startWorker(redisUrl: string): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'worker', '--redis', redisUrl, '--workers', '1', '--cache-dir', mkdtempSync(join(tmpdir(), 'cr-worker-'))],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const stderr: string[] = [];
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk.toString('utf8'));
      if (stderr.join('').includes('conda-resolve worker ready')) resolve();
    });
    void exit.then(() => reject(new Error(`worker exited early:\n${stderr.join('')}`)));
  });
  return { child, stderr, exit };
}

/** The shared queue, as replicas and workers name it. */
export function openQueue(redisUrl: string): Queue {
  const queue = new Queue('solve', { connection: { url: redisUrl }, prefix: 'conda-resolve' });
  queue.on('error', () => undefined);
  return queue;
}

/** Jobs in any state: waiting, active, delayed, prioritized, paused, failed, completed. */
export async function jobsLeft(queue: Queue): Promise<Record<string, number>> {
  return queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused', 'failed', 'completed', 'waiting-children');
}

/** Checks `condition` until it holds (no fixed sleep: a short pause between tries), or fails naming `what`. */
export async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
