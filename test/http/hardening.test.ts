/**
 * Issue 11, item 9 (the HTTP service's part): channel URLs that leave an allowlisted channel
 * through encoded separators or dot segments, refusals that would map an internal network,
 * `--allow-channel` adding to the default channels, framework and Node-level errors as problem
 * details, and `Expect: 100-continue` with a body over the limit. What Node's HTTP parser and
 * `Expect` handling answer needs a listening server and raw sockets; the rest goes through `inject()`.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelRefusedError, createChannelPolicy } from '../../src/http/channel-policy.js';
import { loadConfig } from '../../src/http/config.js';
import { clientErrorAnswer } from '../../src/http/error-handler.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { RawConnection, type RawResponse } from './helpers/raw-http.js';
import {
  call,
  injectTestServer,
  startTestServer,
  type InjectedServer,
  type NativeBody,
  type ProblemBody,
  type TestServer,
} from './helpers/test-server.js';

/** A channel server whose root holds the demo channel twice: `allowed/` and `other/`. */
let channels: ChannelServer;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cr-http-hardening-'));
  for (const name of ['allowed', 'other']) {
    mkdirSync(join(root, name));
    cpSync(join(PROJECT_ROOT, 'fixtures', 'channels', 'demo'), join(root, name), { recursive: true });
  }
  channels = await startChannelServer({ root });
});
afterAll(async () => {
  await channels?.close();
  rmSync(root, { recursive: true, force: true });
});

const running: Array<TestServer | InjectedServer> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});
async function serve(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  running.push(server);
  return server;
}

function isProblem(response: RawResponse, status: number, kind: string): void {
  expect(response.status, response.head).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json');
  const body = JSON.parse(response.body) as ProblemBody;
  expect(body).toMatchObject({ type: `urn:conda-resolve:problem:${kind}`, status });
  expect(body.title).toBeTruthy();
  expect(body.detail).toBeTruthy();
}

describe('channel URLs that would leave an allowlisted channel', () => {
  const policy = createChannelPolicy({ allowed: ['http://mirror.example/conda-forge'], allowLocal: false, cwd: '/srv' });

  it.each([
    'http://mirror.example/conda-forge/..%2fother',
    'http://mirror.example/conda-forge/..%2Fother/linux-64/repodata.json',
    'http://mirror.example/conda-forge/%2e%2e%2fother',
    'http://mirror.example/conda-forge/.%2E%2Fother',
    'http://mirror.example/conda-forge/..%5cother',
    'http://mirror.example/conda-forge/..%5Cother',
    'http://mirror.example/conda-forge/..%252fother',
    'http://mirror.example/conda-forge/sub%2f..%2f..%2fother',
  ])('refuses %s, naming it', async (url) => {
    const error = await policy.checkUrl(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ChannelRefusedError);
    expect((error as Error).message).toContain(`"${url.split('/linux-64')[0]}`);
    expect((error as Error).message).toMatch(/encoded/);
    expect(policy.isAllowlisted(url)).toBe(false);
  });

  it('refuses a plain .. that leaves the channel, and allows one that stays inside', async () => {
    await expect(policy.checkUrl('http://mirror.example/conda-forge/../other')).rejects.toThrow("not on this server's channel allowlist");
    await expect(policy.checkUrl('http://mirror.example/conda-forge/%2e%2e/other')).rejects.toThrow(
      "not on this server's channel allowlist",
    );
    await expect(policy.checkUrl('http://mirror.example/conda-forge/linux-64/../noarch/repodata.json')).resolves.toBeUndefined();
    await expect(policy.checkUrl('http://mirror.example/conda-forge/pkgs/a%2eb')).resolves.toBeUndefined();
  });

  it('the server answers 400 channel-refused naming the channel, and fetches nothing outside the allowlist', async () => {
    const allowed = `${channels.url}/allowed`;
    const server = await injectTestServer({ 'allow-local-channels': false, 'allow-channel': [allowed], 'default-channel': [allowed] });
    running.push(server);
    expect((await call(server.app, 'GET', '/resolve?spec=python=3.11&platform=linux-64')).status).toBe(200);
    for (const channel of [`${allowed}/..%2fother`, `${allowed}/..%5Cother`, `${allowed}/%2E%2E%2Fother`, `${allowed}/../other`]) {
      const before = channels.log.length;
      const answer = await call(server.app, 'POST', '/resolve', {
        json: { specs: ['python=3.11'], channels: [channel], platforms: ['linux-64'] },
      });
      expect(answer.status, `${channel}: ${answer.text.slice(0, 300)}`).toBe(400);
      const problem = answer.json<ProblemBody>();
      expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:channel-refused', field: 'channels' });
      expect(problem.detail).toContain(channels.url);
      expect(channels.log.slice(before).filter((entry) => entry.path.includes('other'))).toEqual([]);
    }
  });
});

describe('refused host names', () => {
  const resolveHost = async (host: string) =>
    host === 'build.corp.example' ? ['10.20.30.40'] : host === 'mixed.example' ? ['93.184.216.34', 'fd12:3456::7'] : ['93.184.216.34'];
  const policy = createChannelPolicy({ allowed: ['*'], allowLocal: false, cwd: '/srv', resolveHost });

  it.each([
    ['https://build.corp.example/chan', 'build.corp.example', ['10.20.30.40', 'private']],
    ['https://mixed.example/chan', 'mixed.example', ['fd12', 'unique-local']],
  ])('%s: the refusal names the host, not what it resolved to', async (url, host, hidden) => {
    const message = await policy.checkUrl(url).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toContain(`"${host}"`);
    for (const text of hidden) expect(message).not.toContain(text);
  });

  it('the connection-time check names the host, not its address', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      policy.lookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(error).toBeInstanceOf(ChannelRefusedError);
    expect(error!.message).toContain('"localhost"');
    expect(error!.message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });
});

describe('--allow-channel adds to the default channels', () => {
  it('keeps the default channels allowed (flag and variable)', () => {
    expect(loadConfig({}, { 'allow-channel': ['bioconda'] }).allowedChannels).toEqual(['conda-forge', 'bioconda']);
    expect(loadConfig({ CONDA_RESOLVE_ALLOWED_CHANNELS: 'bioconda,conda-forge' }).allowedChannels).toEqual(['conda-forge', 'bioconda']);
    expect(loadConfig({ CONDA_RESOLVE_DEFAULT_CHANNELS: 'a,b' }, { 'allow-channel': ['*'] }).allowedChannels).toEqual(['a', 'b', '*']);
  });

  it('a request for the default channel is served, and the start-up log says which channels are allowed', async () => {
    const demo = `${channels.url}/allowed`;
    const server = await serve({
      'allow-local-channels': false,
      'allow-channel': ['https://example.org/extra'],
      'default-channel': [demo],
    });
    const answer = await call(server.url, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.json<NativeBody[]>()[0]!.error).toBeNull();
    const line = server.logs.map((l) => JSON.parse(l) as { msg: string; allowed_channels?: string[] }).find((l) => l.allowed_channels);
    expect(line?.allowed_channels).toEqual([demo, 'https://example.org/extra']);
    expect(line?.msg).toContain(demo);
    expect(line?.msg).toContain('https://example.org/extra');
  });
});

describe('framework and Node-level errors are problem details', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ 'body-limit': '64KiB' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('431 for header fields over the limit, then a FIN (not a reset)', async () => {
    const c = await RawConnection.open(server.url);
    await c.get('/health', { 'x-big': 'a'.repeat(40_000) }).catch(() => undefined);
    const answer = await c.next();
    isProblem(answer, 431, 'headers-too-large');
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({ limit: 16384 });
    expect(await c.closed).toBeNull();
  });

  it.each([
    ['a bad method', 'G@T /health HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['two Content-Lengths', 'POST /resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    ['a header without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n'],
  ])('400 for a request Node cannot parse (%s)', async (_what, bytes) => {
    const c = await RawConnection.open(server.url);
    await c.write(bytes);
    const answer = await c.next();
    isProblem(answer, 400, 'invalid-request');
    expect(answer.headers.connection).toBe('close');
    expect(await c.closed).toBeNull();
  });

  it('400 for a URL that is not correctly percent-encoded', async () => {
    const c = await RawConnection.open(server.url);
    await c.get('/resolve%E0%A4%A');
    isProblem(await c.next(), 400, 'invalid-request');
  });

  it('400 for bad JSON, 415 for an unsupported media type', async () => {
    const c = await RawConnection.open(server.url);
    await c.write('POST /resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":');
    isProblem(await c.next(), 400, 'invalid-json');
    const d = await RawConnection.open(server.url);
    await d.write('POST /resolve HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\nContent-Length: 3\r\n\r\nabc');
    isProblem(await d.next(), 415, 'unsupported-media-type');
  });

  it('417 for an expectation other than 100-continue', async () => {
    const c = await RawConnection.open(server.url);
    await c.write('POST /resolve HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    isProblem(await c.next(), 417, 'expectation-failed');
  });

  it('408 and other Node client errors map to problems (the answer written on the socket)', () => {
    const timeout = clientErrorAnswer(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), { maxHeaderSize: 16384 });
    expect(timeout.toString('latin1')).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(timeout.toString('latin1')).toContain('content-type: application/problem+json\r\n');
    expect(timeout.toString('latin1')).toContain('"type":"urn:conda-resolve:problem:request-timeout"');
    const parse = clientErrorAnswer(Object.assign(new Error('Parse Error: Invalid method encountered'), { code: 'HPE_INVALID_METHOD' }), {
      maxHeaderSize: 16384,
    });
    expect(parse.toString('latin1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });
});

describe('Expect: 100-continue', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ 'body-limit': '64KiB' });
  });
  afterAll(async () => {
    await server?.close();
  });

  /**
   * Sends the head and waits for the server's first answer, interim or final (curl would also send
   * the body after a second without one: a server that neither answers nor continues fails here by
   * the test's time limit), then the body if told to continue.
   */
  async function expectContinue(
    length: number,
  ): Promise<{ answer: RawResponse | string; sawContinue: boolean; closed: NodeJS.ErrnoException | null }> {
    const c = await RawConnection.open(server.url);
    await c.write(
      `POST /resolve?platform=linux-64 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    const final = c.next().catch((e: { code?: string }) => `error ${e.code}`);
    await Promise.race([final, c.interimArrived()]);
    if (c.interim.length > 0) {
      const body = Buffer.alloc(length, ' ');
      body.write('{"specs": ["python=3.11"]}');
      await c.write(body).catch(() => undefined);
    }
    const answer = await final;
    return { answer, sawContinue: c.interim.length > 0, closed: await c.closed };
  }

  it('a Content-Length over the limit gets its 413 at once, without 100 Continue, and a FIN', async () => {
    const { answer, sawContinue, closed } = await expectContinue(1024 * 1024);
    expect(sawContinue).toBe(false);
    expect(typeof answer).not.toBe('string');
    isProblem(answer as RawResponse, 413, 'payload-too-large');
    expect((answer as RawResponse).headers.connection).toBe('close');
    expect(closed).toBeNull();
  });

  it('a Content-Length within the limit gets 100 Continue and then its answer', async () => {
    const c = await RawConnection.open(server.url);
    const body = '{"specs": ["python=3.11"], "platforms": ["linux-64"]}';
    await c.write(
      `POST /resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await c.interimArrived();
    expect(c.pending).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    await c.write(body);
    const answer = await c.next();
    expect(answer.status).toBe(200);
    c.destroy();
  });
});
