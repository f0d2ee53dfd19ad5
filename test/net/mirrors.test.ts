/**
 * Mirrors: pixi's `mirrors` table (from pixi's global config.toml, or from a .condarc of ours)
 * sends a channel's requests to its mirrors in order; a mirror that is down is skipped for the next
 * one; the solved records and lock files keep the canonical channel URL.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorUrls } from '../../repodata/net/mirrors.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';
import { NO_PROXY_ENV } from '../helpers/proxy-env.js';

const CANONICAL = 'https://canonical.invalid/demo';
let server: ChannelServer;
let deadUrl: string;

beforeAll(async () => {
  server = await startChannelServer({ root: join(DEMO, '..') });
  // A port nobody listens on: bound, then closed.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => server.close());

function env(home: string): Record<string, string | undefined> {
  return {
    HOME: home,
    CONDARC: undefined,
    PIXI_HOME: undefined,
    XDG_CONFIG_HOME: undefined,
    ...NO_PROXY_ENV,
    CONDA_REMOTE_BACKOFF_FACTOR: '0',
  };
}

describe('a mirror list whose first entry is down', () => {
  it('pixi config.toml: solved from the second mirror, records keep the canonical URL', async () => {
    const home = tempDir('cr-home-');
    mkdirSync(join(home, '.pixi'));
    writeFileSync(join(home, '.pixi', 'config.toml'), `[mirrors]\n"${CANONICAL}" = ["${deadUrl}/demo", "${server.url}/demo"]\n`);
    const { code, stdout, stderr } = await runCli(['-c', CANONICAL, '-p', 'linux-64', '-q', '-v', 'python=3.9'], { env: env(home) });
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as { packages: { name: string; url: string }[] }[];
    expect(result!.packages.find((p) => p.name === 'python')!.url.startsWith(`${CANONICAL}/linux-64/`)).toBe(true);
    expect(stdout).not.toContain('127.0.0.1');
    expect(stderr).toContain(
      `mirror ${deadUrl}/demo/linux-64/repodata_shards.msgpack.zst failed (the connection was refused); trying the next mirror`,
    );
    expect(server.log.some((e) => e.path === '/demo/linux-64/repodata.json')).toBe(true);
  });

  it('mirrors in .condarc; the lock file names the canonical channel', async () => {
    const home = tempDir('cr-home-');
    writeFileSync(join(home, '.condarc'), `mirrors:\n  ${CANONICAL}:\n    - ${deadUrl}/demo\n    - ${server.url}/demo\n`);
    const { code, stdout } = await runCli(['-c', CANONICAL, '-p', 'linux-64', '-q', '--format', 'pixi', 'python=3.9'], {
      env: env(home),
      cacheDir: tempDir(),
    });
    expect(code).toBe(0);
    expect(stdout).toContain(`${CANONICAL}/`);
    expect(stdout).not.toContain('127.0.0.1');
  });
});

describe('mirrorUrls', () => {
  const table = {
    'https://conda.anaconda.org/conda-forge': ['https://m1.example/cf', 'https://conda.anaconda.org/conda-forge'],
    'https://conda.anaconda.org': ['https://all.example'],
  };
  it('rewrites by the longest prefix, keeps a listed original (with its credentials), leaves others alone', () => {
    expect(mirrorUrls('https://conda.anaconda.org/conda-forge/linux-64/repodata.json', table)).toEqual([
      'https://m1.example/cf/linux-64/repodata.json',
      'https://conda.anaconda.org/conda-forge/linux-64/repodata.json',
    ]);
    expect(mirrorUrls('https://conda.anaconda.org/bioconda/noarch/repodata.json', table)).toEqual([
      'https://all.example/bioconda/noarch/repodata.json',
    ]);
    expect(
      mirrorUrls('https://conda.anaconda.org/conda-forge-extra/x', { 'https://conda.anaconda.org/conda-forge': ['https://m'] }),
    ).toEqual(['https://conda.anaconda.org/conda-forge-extra/x']);
    expect(mirrorUrls('https://u:p@conda.anaconda.org/conda-forge/x', table)[1]).toBe('https://u:p@conda.anaconda.org/conda-forge/x');
  });
});
