/**
 * Channel policy refusals, time limit, client disconnect, rate limit, overload and CORS, against the
 * real server's wiring through `inject()` (a listening server only where the test needs one: a
 * client that leaves, pre-warming before listening), with the demo channel also served over HTTP
 * on 127.0.0.1 by the test channel server (which can hold, redirect or rewrite answers). Nothing
 * waits for time to pass: each step waits for the event that makes it ready.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { PoolBusyError } from '../../src/solving/solve-pool.js';
import { InProcessSolver } from '../../src/solving/platform-runner.js';
import type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from '../../src/solving/types.js';
import { boundedError, MAX_ERROR_CHARS } from '../../src/http/plugins/solve-runner.js';
import { loadConfig } from '../../src/http/config.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { writePigeonChannel } from './helpers/pigeon-channel.js';
import {
  buildTestApp,
  call,
  DEMO_CHANNEL,
  injectTestServer,
  startTestServer,
  type InjectedServer,
  type NativeBody,
  type ProblemBody,
  type TestServer,
} from './helpers/test-server.js';

let channels: ChannelServer;
let demoHttp: string;
const running: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  channels = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
  demoHttp = `${channels.url}/demo`;
});
afterAll(async () => {
  await channels?.close();
});
afterEach(async () => {
  channels.intercept = undefined;
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** The real server, listening on a port. */
async function listening(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  running.push(server);
  return server;
}

/** The real server's app, taking requests through `inject()`. */
async function serve(...args: Parameters<typeof injectTestServer>): Promise<InjectedServer> {
  const server = await injectTestServer(...args);
  running.push(server);
  return server;
}

/**
 * Holds requests whose path contains `marker` until released; records whether the client left
 * first. `first` settles when the first such request is held; `served` when every held request
 * has been answered after the release.
 */
function holdRequests(marker: string) {
  const held: { res: ServerResponse; closedEarly: boolean; done: Promise<void> }[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let firstHeld!: () => void;
  const first = new Promise<void>((r) => (firstHeld = r));
  channels.intercept = async (req, res) => {
    if (!req.url?.includes(marker)) return false;
    const entry = { res, closedEarly: false, done: new Promise<void>((r) => res.once('close', () => r())) };
    held.push(entry);
    res.on('close', () => {
      if (!res.writableFinished) entry.closedEarly = true;
    });
    firstHeld();
    await released;
    return entry.closedEarly; // answered (by nobody) when the client left; else serve the file
  };
  return { held, release, first, served: () => Promise.all(held.map((entry) => entry.done)) };
}

describe('channel policy', () => {
  it('refuses file:// and local paths unless local channels are enabled', async () => {
    const server = await serve({ 'allow-local-channels': false, 'default-channel': ['conda-forge'] });
    for (const channel of [DEMO_CHANNEL, '/etc', './fixtures/channels/demo']) {
      const answer = await call(server.app, 'POST', '/resolve', {
        json: { specs: ['python'], channels: [channel], platforms: ['linux-64'] },
      });
      expect(answer.status).toBe(400);
      const problem = answer.json<ProblemBody>();
      expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:channel-refused', field: 'channels' });
      expect(problem.detail).toContain('local channels are not enabled');
      expect(problem.detail).not.toContain(PROJECT_ROOT);
    }
  });

  it('refuses a channel that is not allowlisted, even from an environment file (field file)', async () => {
    const server = await serve({ 'allow-local-channels': false, 'default-channel': ['conda-forge'] });
    const fetchedBefore = channels.log.length;
    const direct = await call(server.app, 'GET', `/resolve?spec=python&channel=${encodeURIComponent(demoHttp)}`);
    expect(direct.json<ProblemBody>()).toMatchObject({ status: 400, type: 'urn:conda-resolve:problem:channel-refused', field: 'channels' });
    expect(direct.json<ProblemBody>().detail).toContain("not on this server's channel allowlist");
    const viaFile = await call(server.app, 'POST', '/resolve', {
      json: { file: `channels:\n  - ${demoHttp}\ndependencies:\n  - python\n`, filename: 'environment.yml' },
    });
    expect(viaFile.json<ProblemBody>()).toMatchObject({ status: 400, field: 'file' });
    expect(channels.log.length).toBe(fetchedBefore); // refused before anything was fetched
  });

  it('with *, refuses loopback, private and link-local targets', async () => {
    const server = await serve({ 'allow-local-channels': false, 'allow-channel': ['*'], 'default-channel': ['conda-forge'] });
    for (const channel of [
      'https://127.0.0.1:9/chan',
      'https://localhost/chan',
      'https://10.0.0.1/chan',
      'https://169.254.169.254/latest',
      'https://[::ffff:7f00:1]/chan',
      'http://example.org/chan',
    ]) {
      const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['python'], channels: [channel] } });
      expect(answer.status, channel).toBe(400);
      expect(answer.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:channel-refused');
    }
  });

  it('an allowlisted channel on loopback is served', async () => {
    const server = await serve({ 'allow-local-channels': false, 'allow-channel': [demoHttp], 'default-channel': [demoHttp] });
    const answer = await call(server.app, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
    expect(answer.status).toBe(200);
    const [result] = answer.json<NativeBody[]>();
    expect(result!.error).toBeNull();
    expect(result!.packages.find((p) => p.name === 'python')!.url).toContain(`${demoHttp}/linux-64/`);
  });

  it('a redirect to a target outside the policy fails that platform (500 with format)', async () => {
    const server = await serve({
      'allow-local-channels': false,
      'allow-channel': [`${channels.url}/redirecting`],
      'default-channel': [`${channels.url}/redirecting`],
    });
    channels.intercept = (req, res) => {
      if (!req.url?.startsWith('/redirecting/')) return false;
      res.writeHead(302, { location: `http://169.254.169.254/latest${req.url}` }).end();
      return true;
    };
    const native = await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64');
    expect(native.status).toBe(200);
    const [result] = native.json<NativeBody[]>();
    expect(result!.packages).toEqual([]);
    expect(result!.error).toMatch(/169\.254\.169\.254/);
    expect(result!.error).toMatch(/polic|allowlist/);
    const formatted = await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64&format=explicit');
    expect(formatted.status).toBe(500);
  });

  it('a base_url inside repodata that points outside the policy fails that platform', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cr-baseurl-'));
    try {
      cpSync(join(PROJECT_ROOT, 'fixtures', 'channels', 'demo'), join(root, 'evil'), { recursive: true });
      for (const subdir of ['linux-64', 'noarch']) {
        const file = join(root, 'evil', subdir, 'repodata.json');
        const doc = JSON.parse(readFileSync(file, 'utf8')) as { info: Record<string, unknown>; repodata_version?: number };
        doc.info['base_url'] = `http://10.11.12.13/mirror/${subdir}/`;
        doc.repodata_version = 2;
        mkdirSync(join(root, 'evil', subdir), { recursive: true });
        writeFileSync(file, JSON.stringify(doc));
      }
      const evilServer = await startChannelServer({ root });
      try {
        const evil = `${evilServer.url}/evil`;
        const server = await serve({ 'allow-local-channels': false, 'allow-channel': [evil], 'default-channel': [evil] });
        const [result] = (await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64')).json<NativeBody[]>();
        expect(result!.packages).toEqual([]);
        expect(result!.error).toMatch(/10\.11\.12\.13/);
      } finally {
        await evilServer.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('time limit and cancellation', () => {
  it('504 at the time limit; the channel load it started stops (nobody waits for it), the next request loads afresh', async () => {
    const demo = `${channels.url}/demo`;
    // One worker: the requests come one after the other (a second worker's start-up was CPU for nothing).
    const server = await serve({ timeout: '1', workers: '1', 'allow-channel': [demo], 'default-channel': [demo] });
    // As `serve` does at start-up: the workers load their code while the first request waits, so
    // the second one's time limit is spent solving, not starting a worker.
    server.wired.pool.warm();
    const hold = holdRequests('/demo/');
    const answer = await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64&format=explicit');
    expect(hold.held.length).toBeGreaterThan(0); // answered while the channel was still held
    expect(answer.status).toBe(504);
    expect(answer.type).toBe('application/problem+json');
    expect(answer.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:time-limit', status: 504 });
    expect(answer.json<ProblemBody>().detail).toContain('time limit of 1 s');
    hold.release();
    // The load the first request started stopped with it (issue 32: a hostile channel's load must
    // not go on for nobody), so the store loads afresh; then the next request only solves.
    const fetched = channels.log.length;
    await server.wired.store.prepare([parseChannel(demo, { cwd: PROJECT_ROOT })], ['linux-64', 'noarch'], []);
    expect(channels.log.slice(fetched).filter((entry) => entry.path.startsWith('/demo/') && entry.status === 200).length).toBeGreaterThan(
      0,
    );
    const next = await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64&format=explicit');
    expect(next.status).toBe(200);
    expect(next.text).toContain('@EXPLICIT');
  });

  it('504 in native mode too (the time limit is the whole request)', async () => {
    const server = await serve({ timeout: '0.5', 'allow-channel': [`${channels.url}/demo`], 'default-channel': [`${channels.url}/demo`] });
    const hold = holdRequests('/demo/');
    const answer = await call(server.app, 'GET', '/resolve?spec=python&platform=linux-64');
    expect(answer.status).toBe(504);
    hold.release();
  });

  it('a long solve runs off the event loop: /health answers meanwhile, the time limit stops it, the pool recovers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cr-pigeons-'));
    try {
      const { specs } = writePigeonChannel(dir, 12);
      const pigeons = pathToFileURL(dir).href;
      const server = await serve({ timeout: '1.5', workers: '1', 'solve-cache': '0' });
      // Each solve the pool takes, to wait for its worker to be free again (answered or replaced).
      const { pool } = server.wired;
      const pooled: Promise<unknown>[] = [];
      const solve = pool.solve.bind(pool);
      pool.solve = (...args) => {
        const outcome = solve(...args);
        pooled.push(outcome.catch(() => undefined));
        return outcome;
      };
      let resolved = false;
      const hard = call(server.app, 'POST', '/resolve', { json: { specs, channels: [pigeons], platforms: ['linux-64'] } }).finally(
        () => (resolved = true),
      );
      // Ask for /health until the resolve ends (a turn of the event loop between asks); some
      // answers must come while the worker is busy.
      let healthWhileSolving = 0;
      while (!resolved) {
        const health = await call(server.app, 'GET', '/health');
        if (!resolved && health.status === 200 && health.json<{ solver: { running: number } }>().solver.running === 1) healthWhileSolving++;
        await new Promise((r) => setImmediate(r));
      }
      expect(healthWhileSolving).toBeGreaterThan(0);
      const answer = await hard;
      expect(answer.status).toBe(504);
      expect(answer.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:time-limit');
      // The solve is stopped (or its worker replaced) and the next solve works.
      await Promise.all(pooled);
      expect((await call(server.app, 'GET', '/health')).json<{ solver: { running: number } }>().solver.running).toBe(0);
      const next = await call(server.app, 'POST', '/resolve', {
        json: { specs: ['python=3.11'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] },
      });
      expect(next.status).toBe(200);
      expect(next.json<NativeBody[]>()[0]!.error).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a huge explanation is cut to a bounded error text', async () => {
    expect(boundedError('x'.repeat(MAX_ERROR_CHARS))).toHaveLength(MAX_ERROR_CHARS);
    expect(boundedError('x'.repeat(MAX_ERROR_CHARS + 5))).toBe(`${'x'.repeat(MAX_ERROR_CHARS)}\n... (5 more characters not shown)`);
    const dir = mkdtempSync(join(tmpdir(), 'cr-pigeons-'));
    try {
      // Six holes: unsatisfiable, proved quickly, with a long explanation.
      const { specs } = writePigeonChannel(dir, 6);
      const server = await serve({ 'solve-cache': '0' });
      const answer = await call(server.app, 'POST', '/resolve', {
        json: { specs, channels: [pathToFileURL(dir).href], platforms: ['linux-64'] },
      });
      expect(answer.status).toBe(200);
      const [result] = answer.json<NativeBody[]>();
      expect(result!.packages).toEqual([]);
      expect(result!.error).toMatch(/pigeon/);
      expect(result!.error!.length).toBeLessThan(MAX_ERROR_CHARS + 100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a client that disconnects stops its resolve, without failing others waiting on the same channel', async () => {
    const server = await listening({ 'allow-channel': [`${channels.url}/demo`], 'default-channel': [`${channels.url}/demo`] });
    const hold = holdRequests('/demo/');
    const controller = new AbortController();
    const leaving = call(server.url, 'GET', '/resolve?spec=python&platform=linux-64', { signal: controller.signal }).catch(
      (error: Error) => error,
    );
    await hold.first;
    const staying = call(server.url, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
    const health = await call(server.url, 'GET', '/health');
    expect(health.status).toBe(200);
    controller.abort();
    expect(await leaving).toBeInstanceOf(Error);
    await server.logged((line) => line.includes('resolve cancelled'));
    hold.release();
    const answer = await staying;
    expect(answer.status).toBe(200);
    const [result] = answer.json<NativeBody[]>();
    expect(result!.error).toBeNull();
    expect(result!.packages.find((p) => p.name === 'python')!.version).toBe('3.11.9');
  });
});

describe('rate limit, overload and CORS', () => {
  it('429 with Retry-After past the per-address rate limit; /health is exempt', async () => {
    const server = await serve({ 'rate-limit': '3' });
    for (let i = 0; i < 3; i++) expect((await call(server.app, 'GET', '/version')).status).toBe(200);
    const limited = await call(server.app, 'GET', '/version');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:rate-limited', status: 429 });
    expect((await call(server.app, 'GET', '/resolve?spec=python')).status).toBe(429);
    expect((await call(server.app, 'GET', '/health')).status).toBe(200);
  });

  it('503 with Retry-After when the solve queue is full', async () => {
    // A solver that admits one solve at a time and refuses the rest exactly as the pool does
    // with a full queue, so the test controls when the "pool" is busy.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let busy = false;
    let admitted!: () => void;
    const firstAdmitted = new Promise<void>((r) => (admitted = r));
    const inner = new InProcessSolver();
    const solver: PlatformSolver = {
      async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
        if (busy) throw new PoolBusyError(0);
        busy = true;
        admitted();
        await gate;
        busy = false;
        return inner.solve(input, signal);
      },
    };
    const config = loadConfig({}, { 'rate-limit': '0', 'allow-local-channels': true, 'default-channel': [DEMO_CHANNEL] });
    const cacheDir = mkdtempSync(join(tmpdir(), 'cr-http-503-'));
    const app = await buildTestApp(config, { store: new RepodataStore({ cacheDir, offline: false, refresh: false }), solver });
    try {
      const first = call(app, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
      await firstAdmitted;
      const second = await call(app, 'GET', '/resolve?spec=python=3.12&platform=linux-64');
      expect(second.status).toBe(503);
      expect(second.headers['retry-after']).toBe('1');
      expect(second.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:overloaded', status: 503 });
      release();
      expect((await first).status).toBe(200);
    } finally {
      await app.close();
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('pre-warms the configured channel indexes before listening, and skips one it may not load', async () => {
    const demo = `${channels.url}/demo`;
    // One worker: `serve` starts them all at start-up, and one solve needs no second.
    const server = await listening({
      workers: '1',
      'allow-channel': [demo],
      'default-channel': [demo],
      prewarm: [`${demo}/linux-64`, 'https://example.org/other/osx-64'],
    });
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const warmed = lines.find((line) => line['msg'] === 'pre-warmed channel index');
    expect(warmed).toMatchObject({ channel: demo, platform: 'linux-64' });
    expect(warmed!['records']).toBeGreaterThan(10);
    const skipped = lines.find((line) => line['msg'] === 'cannot pre-warm channel index');
    expect(skipped).toMatchObject({ channel: 'https://example.org/other', platform: 'osx-64' });
    expect(String(skipped!['error'])).toContain("not on this server's channel allowlist");
    // Listening came after warming, and the warm index answers without fetching again.
    expect(lines.findIndex((line) => String(line['msg']).includes('listening on'))).toBeGreaterThan(lines.indexOf(warmed!));
    const fetched = channels.log.length;
    expect((await call(server.url, 'GET', '/resolve?spec=python=3.11&platform=linux-64')).status).toBe(200);
    expect(channels.log.slice(fetched).filter((entry) => entry.path.startsWith('/demo/linux-64/'))).toEqual([]);
  });

  it('CORS answers the configured origin only', async () => {
    const server = await serve({ 'cors-origin': ['https://example.org'] });
    const allowed = await call(server.app, 'GET', '/version', { headers: { origin: 'https://example.org' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://example.org');
    const preflight = await call(server.app, 'OPTIONS', '/resolve', {
      headers: { origin: 'https://example.org', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    const other = await call(server.app, 'GET', '/version', { headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
