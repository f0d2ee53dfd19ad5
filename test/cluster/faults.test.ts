/**
 * `serve --redis` faults and shared state, on the real server wiring through `inject()` with a
 * worker in this process: Redis unreachable (health says so, resolves get a 503 problem naming
 * Redis, service resumes by itself once Redis is back), and the rate limit counted across replicas.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLink } from '../../src/cluster/redis-link.js';
import { startSolveWorker } from '../../src/cluster/worker.js';
import { replicaPolicies } from '../../src/cli/commands/worker.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer, type ProblemBody } from '../http/helpers/test-server.js';
import { freePort, REDIS_SERVER, startRedis, until, type RedisProcess } from './helpers.js';

const describeRedis = REDIS_SERVER ? describe : describe.skip;
if (!REDIS_SERVER)
  console.warn('[conda-resolve tests] redis-server is not installed: the serve --redis fault tests with a real Redis are skipped');

describe('serve --redis with Redis unreachable from the start', () => {
  it('health is 503 "degraded" naming Redis; a resolve is a 503 problem saying Redis is unreachable', async () => {
    const port = await freePort();
    const server = await injectTestServer({ redis: `redis://operator:hunter2@127.0.0.1:${port}` });
    try {
      const health = await call(server.app, 'GET', '/health');
      expect(health.status).toBe(503);
      const body = health.json<{ status: string; redis: { status: string; detail: string } }>();
      expect(body.status).toBe('degraded');
      expect(body.redis).toMatchObject({ status: 'unreachable' });
      // Issue 32: neither the password, nor the user, nor where Redis is.
      for (const secret of ['hunter2', 'operator', '127.0.0.1', String(port)]) expect(health.text).not.toContain(secret);

      const answer = await call(server.app, 'POST', '/resolve', {
        json: { specs: ['numpy'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] },
      });
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      const problem = answer.json<ProblemBody>();
      expect(problem.detail).toMatch(/^Cannot solve: Redis, which holds the shared solve queue, is unreachable \(.+\); retry shortly$/);
      for (const secret of ['hunter2', 'operator', '127.0.0.1']) expect(answer.text).not.toContain(secret);
    } finally {
      await server.close();
    }
  });
});

describeRedis('serve --redis with a real Redis', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  async function replica(redisUrl: string, flags: Record<string, string> = {}): Promise<InjectedServer> {
    const server = await injectTestServer({ redis: redisUrl, ...flags });
    closers.push(() => server.close());
    return server;
  }

  async function worker(redisUrl: string) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'cr-worker-'));
    const running = (await startSolveWorker({
      redisUrl,
      cacheDir,
      threads: 1,
      logger: pino({ level: 'silent' }),
      policyFor: await replicaPolicies(PROJECT_ROOT),
    }))!;
    closers.push(async () => {
      await running.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    return running;
  }

  it('Redis going away and coming back: 503 meanwhile, then service resumes by itself', async () => {
    let redis: RedisProcess = await startRedis();
    closers.push(() => redis.stop());
    const server = await replica(redis.url, { 'solve-cache': '0' });
    await worker(redis.url);
    const resolve = (specs: string[]) =>
      call(server.app, 'POST', '/resolve', { json: { specs, channels: [DEMO_CHANNEL], platforms: ['linux-64'] } });

    expect((await resolve(['python=3.10'])).status).toBe(200);
    expect((await call(server.app, 'GET', '/health')).json()).toMatchObject({
      status: 'ok',
      redis: { status: 'ok', waiting: 0, active: 0, workers: 1 },
    });

    await redis.stop();
    await until(async () => (await call(server.app, 'GET', '/health')).status === 503, 10_000, 'health to report Redis away');
    const down = await resolve(['python=3.11']);
    expect(down.status).toBe(503);
    expect(down.json<ProblemBody>().detail).toMatch(/Redis, which holds the shared solve queue, is unreachable/);

    redis = await startRedis(redis.port);
    await until(async () => (await call(server.app, 'GET', '/health')).status === 200, 15_000, 'health to report Redis back');
    // The worker reconnected too: a new solve is answered.
    await until(async () => (await resolve(['python=3.12'])).status === 200, 15_000, 'a resolve to succeed again');
  }, 60_000);

  it('Redis lost while a resolve waits for its job: a 503 at once, not at the time limit', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    // No worker: the job waits in the queue.
    const server = await replica(redis.url, { timeout: '60' });
    await until(async () => (await call(server.app, 'GET', '/health')).status === 200, 10_000, 'the replica to reach Redis');
    const answer = call(server.app, 'POST', '/resolve', {
      json: { specs: ['python=3.9'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] },
    });
    await until(
      async () => (await call(server.app, 'GET', '/health')).json<{ redis: { waiting: number } }>().redis.waiting === 1,
      10_000,
      'the job to be queued',
    );
    const started = Date.now();
    await redis.stop();
    const problem = await answer;
    expect(problem.status).toBe(503);
    expect(problem.json<ProblemBody>().detail).toMatch(/Redis, which holds the shared solve queue, is unreachable/);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('the shared solve cache keeps outcomes for its TTL and at most its entry bound, oldest out first', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const link = new RedisLink(redis.url, { failFast: false });
    closers.push(() => link.close());
    const limits = { ttlSeconds: 100, maxEntries: 2, maxEntryBytes: 200 };
    const solved = (name: string) => ({ kind: 'error' as const, code: 'CR_ERR_INTERNAL', message: name });
    await link.remember('one', solved('one'), limits);
    await link.remember('two', solved('two'), limits);
    await link.remember('three', solved('three'), limits);
    await link.remember('big', solved('x'.repeat(300)), limits);
    expect(await link.cached('one')).toBe(null);
    expect(await link.cached('two')).toEqual(solved('two'));
    expect(await link.cached('three')).toEqual(solved('three'));
    expect(await link.cached('big')).toBe(null);
    const ttl = await link.client.ttl('conda-resolve:cache:three');
    expect(ttl).toBeGreaterThan(90);
    expect(ttl).toBeLessThanOrEqual(100);
  });

  it('the rate limit is counted across replicas', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const a = await replica(redis.url, { 'rate-limit': '3' });
    const b = await replica(redis.url, { 'rate-limit': '3' });
    for (const server of [a, b])
      await until(async () => (await call(server.app, 'GET', '/health')).status === 200, 10_000, 'the replica to reach Redis');
    const statuses = [];
    for (const app of [a.app, b.app, a.app, b.app]) statuses.push((await call(app, 'GET', '/version')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
