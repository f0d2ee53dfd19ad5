/**
 * Issue 11, item 9 (the HTTP service's part): channel URLs that leave an allowlisted channel
 * through encoded separators or dot segments, refusals that would map an internal network, and
 * `--allow-channel` adding to the default channels.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelRefusedError, createChannelPolicy } from '../../src/http/channel-policy.js';
import { loadConfig } from '../../src/http/config.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { call, startTestServer, type NativeBody, type ProblemBody, type TestServer } from './helpers/test-server.js';

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

const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});
async function serve(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  running.push(server);
  return server;
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
    await expect(policy.checkUrl('http://mirror.example/conda-forge/%2e%2e/other')).rejects.toThrow("not on this server's channel allowlist");
    await expect(policy.checkUrl('http://mirror.example/conda-forge/linux-64/../noarch/repodata.json')).resolves.toBeUndefined();
    await expect(policy.checkUrl('http://mirror.example/conda-forge/pkgs/a%2eb')).resolves.toBeUndefined();
  });

  it('the server answers 400 channel-refused naming the channel, and fetches nothing outside the allowlist', async () => {
    const allowed = `${channels.url}/allowed`;
    const server = await serve({ 'allow-local-channels': false, 'allow-channel': [allowed], 'default-channel': [allowed] });
    expect((await call(server.url, 'GET', '/resolve?spec=python=3.11&platform=linux-64')).status).toBe(200);
    for (const channel of [`${allowed}/..%2fother`, `${allowed}/..%5Cother`, `${allowed}/%2E%2E%2Fother`, `${allowed}/../other`]) {
      const before = channels.log.length;
      const answer = await call(server.url, 'POST', '/resolve', { json: { specs: ['python=3.11'], channels: [channel], platforms: ['linux-64'] } });
      expect(answer.status, `${channel}: ${answer.text.slice(0, 300)}`).toBe(400);
      const problem = answer.json<ProblemBody>();
      expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:channel-refused', field: 'channels' });
      expect(problem.detail).toContain(channels.url);
      expect(channels.log.slice(before).filter((entry) => entry.path.includes('other'))).toEqual([]);
    }
  });
});

describe('refused host names', () => {
  const resolveHost = async (host: string) => (host === 'build.corp.example' ? ['10.20.30.40'] : host === 'mixed.example' ? ['93.184.216.34', 'fd12:3456::7'] : ['93.184.216.34']);
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
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => policy.lookup('localhost', { all: true }, (e) => resolve(e)));
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
    const server = await serve({ 'allow-local-channels': false, 'allow-channel': ['https://example.org/extra'], 'default-channel': [demo] });
    const answer = await call(server.url, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.json<NativeBody[]>()[0]!.error).toBeNull();
    const line = server.logs.map((l) => JSON.parse(l) as { msg: string; allowed_channels?: string[] }).find((l) => l.allowed_channels);
    expect(line?.allowed_channels).toEqual([demo, 'https://example.org/extra']);
    expect(line?.msg).toContain(demo);
    expect(line?.msg).toContain('https://example.org/extra');
  });
});
