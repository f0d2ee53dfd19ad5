/**
 * Errors that say what to do: a misspelt name gets the closest names the channels have and the
 * channels searched; a name that exists only for another platform or only in a configured channel
 * left out says so; `channel::name` naming a channel not searched; `-c some/folder` that is a
 * channel folder here; `allowlist_channels` and `denylist_channels` of `.condarc`.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closestNames } from '../../src/missing-name.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { call, injectTestServer } from '../http/helpers/test-server.js';
import { DEMO, runCli, tempDir } from './run-cli.js';
import { NO_PROXY_ENV } from '../helpers/proxy-env.js';

let server: ChannelServer;
beforeAll(async () => {
  server = await startChannelServer({ root: join(DEMO, '..') });
});
afterAll(() => server.close());

/** A clean environment: a HOME of its own with this `.condarc`, no proxies, no CONDA_* variables. */
function env(condarc = ''): Record<string, string | undefined> {
  const home = tempDir('cr-home-');
  writeFileSync(join(home, '.condarc'), condarc);
  return {
    HOME: home,
    CONDARC: undefined,
    CONDA_CHANNELS: undefined,
    CONDA_CHANNEL_ALIAS: undefined,
    XDG_CONFIG_HOME: undefined,
    ...NO_PROXY_ENV,
  };
}

/** A local channel with no packages at all. */
function emptyChannel(): string {
  const dir = join(tempDir('cr-empty-'), 'empty');
  for (const subdir of ['linux-64', 'noarch']) {
    mkdirSync(join(dir, subdir), { recursive: true });
    writeFileSync(join(dir, subdir, 'repodata.json'), JSON.stringify({ info: { subdir }, packages: {}, 'packages.conda': {} }));
  }
  return dir;
}

/** A local channel whose subdirs hold one package (version 1.0) of each name given. */
function tempChannel(names: Record<string, string[]>): string {
  const dir = join(tempDir('cr-names-'), 'names');
  for (const [subdir, list] of Object.entries(names)) {
    mkdirSync(join(dir, subdir), { recursive: true });
    const packages = Object.fromEntries(
      list.map((name) => [
        `${name}-1.0-0.tar.bz2`,
        { name, version: '1.0', build: '0', build_number: 0, depends: [], subdir, ...(subdir === 'noarch' ? { noarch: 'generic' } : {}) },
      ]),
    );
    writeFileSync(join(dir, subdir, 'repodata.json'), JSON.stringify({ info: { subdir }, packages, 'packages.conda': {} }));
  }
  return dir;
}

describe('closestNames', () => {
  it('finds names within a small edit distance, closest first', () => {
    expect(closestNames('pyhton', ['python', 'pytest', 'cython', 'numpy'])).toEqual(['python']);
    expect(closestNames('numpi', ['numpy', 'numba', 'scipy'])).toEqual(['numpy']);
    expect(closestNames('xyz', ['python'])).toEqual([]);
    // Short names allow one edit only, so unrelated short names are not offered.
    expect(closestNames('ab', ['xy', 'ac'])).toEqual(['ac']);
  });
});

describe('a name no channel has', () => {
  it('suggests the closest names and lists the channels searched', async () => {
    const run = await runCli(['-c', DEMO, '-p', 'linux-64', '-q', 'pyhton'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nothing provides pyhton');
    expect(run.stderr).toContain('Did you mean python?');
    expect(run.stderr).toMatch(/Channels searched: \S*demo \(linux-64 and noarch\)/);
  });

  it('says which other platform has it', async () => {
    const run = await runCli(['-c', DEMO, '-p', 'osx-arm64', '-q', 'linux-only-tool'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('linux-only-tool exists for linux-64');
  });

  it('offers no other names when the name exists for another platform', async () => {
    // tool-x is on linux-64 only; on osx-arm64 the channel has tool-y, one letter away.
    const channel = tempChannel({ 'linux-64': ['tool-x'], noarch: ['tool-y'], 'osx-arm64': [] });
    const run = await runCli(['-c', channel, '-p', 'osx-arm64', '-q', 'tool-x'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('tool-x exists for linux-64.');
    expect(run.stderr).not.toContain('Did you mean');
    // The same name on linux-64 misspelled is offered the close one.
    const typo = await runCli(['-c', channel, '-p', 'linux-64', '-q', 'tool-z'], { env: env() });
    expect(typo.stderr).toMatch(/Did you mean tool-[xy] or tool-[xy]\?/);
  });

  it('says when no channel has any package for the platform, and offers no other names', async () => {
    // A channel built for linux-64 only (osx-arm64 missing); noarch has tool-y, one letter away.
    const channel = tempChannel({ 'linux-64': ['tool-x'], noarch: ['tool-y'] });
    const run = await runCli(['-c', channel, '-p', 'osx-arm64', '-q', 'tool-z'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No channel searched has any osx-arm64 package, only noarch ones.');
    expect(run.stderr).not.toContain('Did you mean');
  });

  it('says which configured channel left out by --override-channels has it', async () => {
    const run = await runCli(['--override-channels', '-c', emptyChannel(), '-p', 'linux-64', '-q', 'python'], {
      env: env(`channels: [demo]\nchannel_alias: ${server.url}\n`),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('python is in demo, which was not requested: add -c demo');
  });

  it('says when channel::name names a channel that was not searched', async () => {
    const run = await runCli(['-c', DEMO, '-p', 'linux-64', '-q', 'conda-forge::python'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '"conda-forge::python" names the channel conda-forge, which is not among the channels searched: add it with -c conda-forge',
    );
  });
});

describe('over HTTP', () => {
  it("gives the same hint, with the server's local paths hidden", async () => {
    const server = await injectTestServer();
    try {
      const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['pyhton'], platforms: ['linux-64'] } });
      const [result] = answer.json<{ error: string | null }[]>();
      expect(result!.error).toContain('Did you mean python? Channels searched: <path> (linux-64 and noarch).');
      expect(answer.text).not.toContain(PROJECT_ROOT);
    } finally {
      await server.close();
    }
  });
});

describe('-c some/folder', () => {
  it('asks "did you mean ./some/folder?" when the folder here is a channel', async () => {
    const cwd = tempDir('cr-cwd-');
    cpSync(DEMO, join(cwd, 'some', 'folder'), { recursive: true });
    const settings = env(`channel_alias: ${server.url}\n`);
    const run = await runCli(['-c', 'some/folder', '-p', 'linux-64', '-q', 'python'], { cwd, env: settings });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`-c some/folder means the channel ${server.url}/some/folder`);
    expect(run.stderr).toContain('did you mean ./some/folder?');
    const fixed = await runCli(['-c', './some/folder', '-p', 'linux-64', '-q', 'python'], { cwd, env: settings });
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toBe('');
  });

  it('says nothing about a folder here that is not a channel', async () => {
    const cwd = tempDir('cr-cwd-');
    mkdirSync(join(cwd, 'demo'));
    const run = await runCli(['-c', 'demo', '-p', 'linux-64', '-q', 'python'], { cwd, env: env(`channel_alias: ${server.url}\n`) });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
  });
});

describe('allowlist_channels and denylist_channels', () => {
  it('refuses a channel on the denylist before fetching anything', async () => {
    const before = server.log.length;
    const run = await runCli(['-c', 'demo', '-p', 'linux-64', '-q', 'python'], {
      env: env(`channel_alias: ${server.url}\ndenylist_channels: [demo]\n`),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Channel demo (${server.url}/demo) is on denylist_channels`);
    expect(server.log.length).toBe(before);
  });

  it('refuses a channel not on a non-empty allowlist, including the channel of channel::name', async () => {
    const settings = env(`channel_alias: ${server.url}\nallowlist_channels: [demo]\n`);
    let run = await runCli(['-c', DEMO, '-p', 'linux-64', '-q', 'python'], { env: settings });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not on allowlist_channels of your configuration, which allows only');
    run = await runCli(['-c', 'demo', '-p', 'linux-64', '-q', 'other::python'], { env: settings });
    expect(run.stderr).toContain(`Channel other (${server.url}/other) is not on allowlist_channels`);
    run = await runCli(['-c', 'demo', '-p', 'linux-64', '-q', 'python'], { env: settings });
    expect(run.code).toBe(0);
  });
});
