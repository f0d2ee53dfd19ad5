/**
 * `serve --redis` end to end, as an operator runs it: a private redis-server, two replicas and two
 * `conda-resolve worker` processes from dist/ on 127.0.0.1, and a single `serve` process as the
 * reference. 200 mixed requests (500 under CR_DEEP=1) go to both replicas while one worker is SIGKILLed in the middle of
 * a solve: every answer has the single process's status, type and bytes; a request first solved
 * through replica A is a Redis cache hit on replica B; identical requests in flight on both
 * replicas are solved once; nothing is left in the queue.
 *
 * Skipped, with a message, when redis-server is not installed (CI installs Debian's).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { QueueEvents } from 'bullmq';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../cli/run-cli.js';
import { depth } from '../helpers/depth.js';
import { writePigeonChannel } from '../http/helpers/pigeon-channel.js';
import { startServe, type ServeProcess } from '../http/helpers/serve-process.js';
import { DEMO_CHANNEL } from '../http/helpers/test-server.js';
import { jobsLeft, openQueue, REDIS_SERVER, startRedis, startWorker, until, type RedisProcess, type WorkerProcess } from './helpers.js';

const describeRedis = REDIS_SERVER ? describe : describe.skip;
if (!REDIS_SERVER)
  console.warn(
    '[conda-resolve tests] redis-server is not installed: the serve --redis cluster tests are skipped (apt-get install redis-server)',
  );

interface Sent {
  readonly path: string;
  readonly body: unknown;
}

interface Got {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

const agent = new Agent({ connections: 16 });

async function send(base: string, sent: Sent): Promise<Got> {
  const response = await request(`${base}${sent.path}`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sent.body),
  });
  return { status: response.statusCode, type: String(response.headers['content-type']), text: await response.body.text() };
}

async function metric(base: string, name: string, labels: string): Promise<number> {
  const text = await (await request(`${base}/metrics`, { dispatcher: agent })).body.text();
  const line = text.split('\n').find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && l.includes(labels));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describeRedis('serve --redis: two replicas, two workers, one Redis', () => {
  let redis: RedisProcess;
  let single: ServeProcess;
  let replicaA: ServeProcess;
  let replicaB: ServeProcess;
  let workers: WorkerProcess[] = [];
  const dirs: string[] = [];
  const urls = { single: '', a: '', b: '' };

  beforeAll(async () => {
    requireBuild();
    redis = await startRedis();
    const serveArgs = (extra: string[]) => [
      '--port',
      '0',
      '--allow-local-channels',
      '--rate-limit',
      '0',
      '--workers',
      '1',
      '--default-channel',
      DEMO_CHANNEL,
      '--cache-dir',
      temp(),
      ...extra,
    ];
    single = startServe(serveArgs([]));
    replicaA = startServe(serveArgs(['--redis', redis.url]));
    replicaB = startServe(serveArgs(['--redis', redis.url]));
    workers = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
    [urls.single, urls.a, urls.b] = await Promise.all([single.url, replicaA.url, replicaB.url]);
  }, 60_000);

  afterAll(async () => {
    for (const process of [single, replicaA, replicaB, ...workers])
      if (process && process.child.exitCode === null) process.child.kill('SIGKILL');
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function temp(): string {
    const dir = mkdtempSync(join(tmpdir(), 'cr-cluster-'));
    dirs.push(dir);
    return dir;
  }

  function pigeons(holes: number): Sent {
    const dir = temp();
    const { specs } = writePigeonChannel(dir, holes);
    return { path: '/resolve', body: { specs, channels: [pathToFileURL(dir).href], platforms: ['linux-64'] } };
  }

  it('a request solved through replica A is a cache hit on replica B; identical requests in flight are solved once', async () => {
    const queue = openQueue(redis.url);
    const solves = async () => Number((await (await queue.client).get('conda-resolve:stats:solves')) ?? 0);
    try {
      type Health = { status: string; redis: { status: string; workers: number } };
      const health = async (): Promise<Health> =>
        JSON.parse(await (await request(`${urls.b}/health`, { dispatcher: agent })).body.text()) as Health;
      // A worker counts once its queue connection is up, a moment after its process started.
      await until(async () => (await health()).redis.workers === 2, 10_000, 'both workers to connect');
      expect(await health()).toMatchObject({ status: 'ok', redis: { status: 'ok', workers: 2 } });
      const first: Sent = { path: '/resolve', body: { specs: ['python=3.11', 'numpy'], platforms: ['linux-64'] } };
      const before = await solves();
      const fromA = await send(urls.a, first);
      expect(fromA.status).toBe(200);
      expect(await solves()).toBe(before + 1);
      const hitsBefore = await metric(urls.b, 'conda_resolve_solve_cache_lookups_total', 'cache="redis",result="hit"');
      const fromB = await send(urls.b, first);
      expect(fromB.text).toBe(fromA.text);
      expect(await solves()).toBe(before + 1);
      expect(await metric(urls.b, 'conda_resolve_solve_cache_lookups_total', 'cache="redis",result="hit"')).toBe(hitsBefore + 1);
      // A's solve went through the queue: its wait was measured, and A reports the shared queue.
      expect(await metric(urls.a, 'conda_resolve_queue_wait_seconds_count', '')).toBeGreaterThanOrEqual(1);
      expect(await metric(urls.a, 'conda_resolve_queue_depth', 'queue="redis",state="waiting"')).toBe(0);

      // A solve long enough (about a second) that both replicas ask while it is queued or running.
      const slow = pigeons(9);
      const [onA, onB] = await Promise.all([send(urls.a, slow), send(urls.b, slow)]);
      expect(onA.status).toBe(200);
      expect(onB.text).toBe(onA.text);
      expect(await solves()).toBe(before + 2);
    } finally {
      await queue.close();
    }
  }, 60_000);

  // About four times each distinct request; CR_DEEP=1 sends 500.
  const mixed = depth(200, 500);
  it(`${mixed} mixed requests over both replicas, one worker SIGKILLed mid-solve: the single process's bytes, nothing left queued`, async () => {
    const distinct: Sent[] = [pigeons(10), pigeons(10)];
    const specsSets = [
      ['python=3.11', 'numpy'],
      ['python=3.10'],
      ['numpy<2'],
      ['requests', 'python=3.12'],
      ['python=3.9', 'pip'],
      ['openssl=3.2'],
      ['numpy', 'linux-only-tool'],
    ];
    const formats = [undefined, 'explicit', 'environment-yaml'];
    for (const specs of specsSets) {
      for (const format of formats) {
        for (const platforms of [['linux-64'], ['osx-arm64', 'win-64']]) {
          distinct.push({ path: format ? `/resolve?format=${format}` : '/resolve', body: { specs, platforms } });
        }
      }
    }
    distinct.push({ path: '/resolve', body: { specs: ['numpy>=3'], platforms: ['linux-64'] } }); // unsatisfiable
    // A previous lock's records are preferences a worker must see too: made with only what was
    // published before 2024-02-10, it keeps its older numpy unless numpy is updated.
    const lock = await send(urls.single, {
      path: '/resolve?format=pixi',
      body: { specs: ['python=3.12', 'numpy'], platforms: ['linux-64'], exclude_newer: '2024-02-10' },
    });
    expect(lock.status).toBe(200);
    for (const update of [[], ['numpy']]) {
      distinct.push({
        path: '/resolve',
        body: { specs: ['python=3.12', 'numpy'], platforms: ['linux-64'], lock: lock.text, lock_filename: 'pixi.lock', update },
      });
    }
    distinct.push({ path: '/resolve', body: { specs: ['numpy'], platforms: ['nonsense-64'] } }); // 400

    // The reference: each distinct request once, from the single process.
    const expected = new Map<Sent, Got>();
    for (const sent of distinct) expected.set(sent, await send(urls.single, sent));

    const queue = openQueue(redis.url);
    const events = new QueueEvents('solve', { connection: { url: redis.url }, prefix: 'conda-resolve' });
    const stalled: string[] = [];
    events.on('stalled', ({ jobId }) => stalled.push(jobId));
    await events.waitUntilReady();
    try {
      // The two slow solves go first: each worker (one job at a time) holds one when the kill comes.
      const order = Array.from({ length: mixed }, (_, i) => distinct[i % distinct.length]!);
      const answers: Got[] = new Array(order.length);
      let next = 0;
      const client = async () => {
        while (next < order.length) {
          const i = next++;
          answers[i] = await send(i % 2 === 0 ? urls.a : urls.b, order[i]!);
        }
      };
      const running = Promise.all(Array.from({ length: 12 }, client));
      await until(async () => (await queue.getJobCounts('active')).active === 2, 20_000, 'both workers to be solving');
      const killedAt = Date.now();
      workers[0]!.child.kill('SIGKILL');
      await workers[0]!.exit;
      await running;
      // Within the request's time limit (60 s): the lock runs out after 5 s, stalled jobs are looked for every 2 s.
      expect(Date.now() - killedAt).toBeLessThan(30_000);

      // Problems carry the id of the request (per process), the one part that is not the answer.
      const answerOf = (text: string) => text.replace(/"request_id":"[^"]*"/, '"request_id":"…"');
      for (const [i, sent] of order.entries()) {
        const want = expected.get(sent)!;
        const got = answers[i]!;
        expect({ i, status: got.status, type: got.type }).toEqual({ i, status: want.status, type: want.type });
        expect(answerOf(got.text), `answer ${i} (${sent.path} ${JSON.stringify(sent.body).slice(0, 80)})`).toBe(answerOf(want.text));
      }
      expect(await jobsLeft(queue)).toEqual(
        expect.objectContaining({ waiting: 0, active: 0, delayed: 0, prioritized: 0, failed: 0, completed: 0 }),
      );
      // The killed worker's job was found stalled and solved by the survivor. On a loaded machine
      // the kill can land just after the worker finished its job (seen once in a full CI run):
      // then nothing stalls, and the answers above are the whole check.
      if (stalled.length === 0) console.warn('[cluster test] the SIGKILL landed between jobs: no stalled job to recover this run');
      expect(workers[1]!.child.exitCode).toBe(null);
    } finally {
      await events.close();
      await queue.close();
    }
  }, 90_000);

  it('a worker stops on SIGTERM with status 0', async () => {
    workers[1]!.child.kill('SIGTERM');
    expect(await workers[1]!.exit).toBe(0);
    expect(workers[1]!.stderr.join('')).toContain('"msg":"stopped"');
  });

  it('one replica killed: the other keeps answering', async () => {
    replicaB.child.kill('SIGKILL');
    await replicaB.exit;
    workers.push(await startWorker(redis.url));
    const answer = await send(urls.a, { path: '/resolve', body: { specs: ['python=3.12'], platforms: ['win-64'] } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe((await send(urls.single, { path: '/resolve', body: { specs: ['python=3.12'], platforms: ['win-64'] } })).text);
  }, 30_000);
});
