/**
 * Issue 32, item 13: entries of the shared solve cache in Redis are checked before they are served.
 * An entry naming a package URL the request's channels do not have (another host) is a miss, and
 * so is a malformed one (a 500 before); the request is then solved again by a worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLink } from '../../src/cluster/redis-link.js';
import { decodeOutcome } from '../../src/cluster/solve-job.js';
import { startSolveWorker } from '../../src/cluster/worker.js';
import { replicaPolicies } from '../../src/cli/commands/worker.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { call, DEMO_CHANNEL, injectTestServer, type NativeBody } from '../http/helpers/test-server.js';
import { REDIS_SERVER, startRedis, until } from './helpers.js';

const describeRedis = REDIS_SERVER ? describe : describe.skip;

describe('decodeOutcome', () => {
  it('reads an outcome back only when it has the shape of one', () => {
    expect(decodeOutcome('{"kind":"error","code":"CR_ERR_INTERNAL","message":"x"}')).toEqual({
      kind: 'error',
      code: 'CR_ERR_INTERNAL',
      message: 'x',
    });
    for (const text of [
      '{"kind":"solved","records":[{}]}',
      '{"kind":"solved"}',
      '{"kind":"solved","records":[{"name":"a"}]}',
      '{"kind":"unsatisfiable"}',
      'null',
      '[]',
      '{',
    ]) {
      expect(decodeOutcome(text)).toBe(null);
    }
  });
});

describeRedis('serve --redis: what the shared solve cache serves', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  it('never serves an entry with an off-channel URL or a malformed one; the request is solved again', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const cacheDir = mkdtempSync(join(tmpdir(), 'cr-worker-'));
    const worker = (await startSolveWorker({
      redisUrl: redis.url,
      cacheDir,
      threads: 1,
      logger: pino({ level: 'silent' }),
      policyFor: await replicaPolicies(PROJECT_ROOT),
    }))!;
    closers.push(async () => {
      await worker.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    const link = new RedisLink(redis.url, { failFast: false });
    closers.push(() => link.close());
    const body = { specs: ['python=3.12'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] };

    // A first replica solves through the worker, which writes the entry.
    const first = await injectTestServer({ redis: redis.url, 'solve-cache': '0' });
    closers.push(() => first.close());
    await until(async () => (await call(first.app, 'GET', '/health')).status === 200, 10_000, 'the replica to reach Redis');
    const answer = await call(first.app, 'POST', '/resolve', { json: body });
    expect(answer.status).toBe(200);
    const [keys] = [await link.client.keys('conda-resolve:cache:*')];
    expect(keys).toHaveLength(1);
    const entry = JSON.parse((await link.client.get(keys[0]!))!) as {
      kind: 'solved';
      records: { name: string; url: string; md5: string }[];
    };

    // Someone with access to Redis points python at another host.
    const python = entry.records.find((r) => r.name === 'python')!;
    python.url = 'https://evil.example/linux-64/python-3.12.3-h4bc722e_0_cpython.conda';
    await link.client.set(keys[0]!, JSON.stringify(entry));
    const again = await call(first.app, 'POST', '/resolve', { json: body });
    expect(again.status).toBe(200);
    expect(again.text).not.toContain('evil.example');
    expect(again.json<NativeBody[]>()[0]!.packages.find((p) => p.name === 'python')!.url).toMatch(/^file:/);

    // A malformed entry: a miss, not a 500.
    await link.client.set(keys[0]!, JSON.stringify({ kind: 'solved', records: [{ name: 'python' }] }));
    const malformed = await call(first.app, 'POST', '/resolve', { json: body });
    expect(malformed.status).toBe(200);
    expect(malformed.text).toBe(answer.text);
  });
});
