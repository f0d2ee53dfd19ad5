/**
 * Proxies and TLS end to end: a channel on a made-up host name (`conda.internal.test`) that only a
 * forward proxy written here can reach, over HTTP (absolute-form GET) and HTTPS (CONNECT, with the
 * channel's self-signed certificate trusted through `ssl_verify: <path>`), chosen by HTTP_PROXY /
 * HTTPS_PROXY (either case) or by `proxy_servers`; NO_PROXY; `ssl_verify: false`.
 */
import { readFile } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProxies } from '../../repodata/net/proxy.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { DEMO, runCli, spawnCli, tempDir } from '../cli/run-cli.js';
import { NO_PROXY_ENV } from '../helpers/proxy-env.js';

const TLS = join(PROJECT_ROOT, 'fixtures', 'tls');
const HOST = 'conda.internal.test';

let plain: ChannelServer;
let secure: Server;
let securePort: number;
let proxy: ForwardProxy;

beforeAll(async () => {
  plain = await startChannelServer({ root: join(DEMO, '..') });
  secure = createServer({ key: readFileSync(join(TLS, 'channel.key')), cert: readFileSync(join(TLS, 'channel.crt')) }, (req, res) => {
    const path = normalize(join(DEMO, '..', decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname)));
    readFile(path).then(
      (bytes) => res.writeHead(200, { 'content-type': 'application/json' }).end(bytes),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  securePort = (secure.address() as AddressInfo).port;
  proxy = await startForwardProxy({ [HOST]: '127.0.0.1' });
});
afterAll(async () => {
  await proxy.close();
  await plain.close();
  await new Promise<void>((resolve) => secure.close(() => resolve()));
});

const NO_PROXY_VARS = NO_PROXY_ENV;

function home(condarc = ''): string {
  const dir = tempDir('cr-home-');
  writeFileSync(join(dir, '.condarc'), condarc);
  return dir;
}

function env(homeDir: string, more: Record<string, string>): Record<string, string | undefined> {
  return {
    ...NO_PROXY_VARS,
    HOME: homeDir,
    CONDARC: undefined,
    REQUESTS_CA_BUNDLE: undefined,
    SSL_CERT_FILE: undefined,
    CONDA_REMOTE_MAX_RETRIES: '0',
    ...more,
  };
}

describe('a channel only a proxy can reach', () => {
  it('HTTP_PROXY: absolute-form GETs to the made-up host, solved', async () => {
    const channel = `http://${HOST}:${plain.port}/demo`;
    const { code, stdout, stderr } = await runCli(['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'], {
      env: env(home(), { HTTP_PROXY: proxy.url }),
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`${channel}/linux-64/python-3.9`);
    expect(proxy.log).toContain(`GET ${channel}/linux-64/repodata.json`);
  });

  it("https_proxy (lower case): a CONNECT tunnel, the certificate checked against ssl_verify's CA bundle", async () => {
    const channel = `https://${HOST}:${securePort}/demo`;
    const before = proxy.log.length;
    const { code, stderr } = await runCli(['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'], {
      env: env(home(`ssl_verify: ${join(TLS, 'channel.crt')}\n`), { https_proxy: proxy.url }),
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(proxy.log.slice(before)).toContain(`CONNECT ${HOST}:${securePort}`);
  });

  it('the built CLI as its own process: HTTPS through the CONNECT tunnel, with only the modules it loads itself', async () => {
    // In-process runs share undici with whatever else this test worker loaded (its index adds the
    // CONNECT method the tunnel needs); a process of its own loads only what the CLI loads.
    const channel = `https://${HOST}:${securePort}/demo`;
    const before = proxy.log.length;
    const { code, stderr } = await spawnCli(['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'], {
      cacheDir: tempDir('cr-cache-'),
      env: env(home(`ssl_verify: ${join(TLS, 'channel.crt')}\n`), { HTTPS_PROXY: proxy.url }),
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(proxy.log.slice(before)).toContain(`CONNECT ${HOST}:${securePort}`);
  });

  it('refuses the self-signed certificate without the bundle, and accepts it with ssl_verify: false', async () => {
    const channel = `https://${HOST}:${securePort}/demo`;
    const args = ['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'];
    const refused = await runCli(args, { env: env(home(), { HTTPS_PROXY: proxy.url }) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/certificate/i);
    const off = await runCli(args, { env: env(home('ssl_verify: false\n'), { HTTPS_PROXY: proxy.url }) });
    expect(off.code).toBe(0);
  });

  it('REQUESTS_CA_BUNDLE trusts the bundle too', async () => {
    const channel = `https://${HOST}:${securePort}/demo`;
    const run = await runCli(['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'], {
      env: env(home(), { HTTPS_PROXY: proxy.url, REQUESTS_CA_BUNDLE: join(TLS, 'channel.crt') }),
    });
    expect(run.code).toBe(0);
  });

  it('proxy_servers in .condarc when the environment names no proxy', async () => {
    const channel = `http://${HOST}:${plain.port}/demo`;
    const before = proxy.log.length;
    const run = await runCli(['-c', channel, '-p', 'linux-64', '-q', 'python=3.9'], {
      env: env(home(`proxy_servers:\n  http: ${proxy.url}\n`), {}),
      cacheDir: tempDir(),
    });
    expect(run.code).toBe(0);
    expect(proxy.log.length).toBeGreaterThan(before);
  });

  it('NO_PROXY sends matching hosts directly', async () => {
    const before = proxy.log.length;
    const run = await runCli(['-c', `${plain.url}/demo`, '-p', 'linux-64', '-q', 'python=3.9'], {
      env: env(home(), { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }),
    });
    expect(run.code).toBe(0);
    expect(proxy.log.length).toBe(before);
  });
});

describe('resolveProxies', () => {
  it('lower case before upper case, ALL_PROXY as the fallback, the environment over proxy_servers', () => {
    expect(resolveProxies({ http_proxy: 'http://a:1', HTTP_PROXY: 'http://b:1' }).http).toBe('http://a:1');
    expect(resolveProxies({ ALL_PROXY: 'proxy.corp:3128' })).toEqual({
      http: 'http://proxy.corp:3128',
      https: 'http://proxy.corp:3128',
      noProxy: undefined,
    });
    expect(resolveProxies({ HTTPS_PROXY: 'http://env:1' }, { https: 'http://rc:1', http: 'http://rc:2' })).toEqual({
      http: 'http://rc:2',
      https: 'http://env:1',
      noProxy: undefined,
    });
  });
});
