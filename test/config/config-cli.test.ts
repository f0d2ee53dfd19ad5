/**
 * The command line with a user's configuration: a temporary HOME whose `.condarc` names the
 * channels and the channel alias (a channel server on 127.0.0.1), solved with no `-c` at all;
 * `-c` channels searched before the configured ones; `--override-channels`; `conda-resolve config`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';
import { NO_PROXY_ENV } from '../helpers/proxy-env.js';

let server: ChannelServer;
beforeAll(async () => {
  server = await startChannelServer({ root: join(DEMO, '..') });
});
afterAll(() => server.close());

function homeWith(condarc: string): string {
  const home = tempDir('cr-home-');
  writeFileSync(join(home, '.condarc'), condarc);
  return home;
}

/** A clean environment for configuration: only HOME (so the machine's own files and proxies stay out). */
function env(home: string, more: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    HOME: home,
    CONDARC: undefined,
    CONDA_CHANNELS: undefined,
    CONDA_CHANNEL_ALIAS: undefined,
    XDG_CONFIG_HOME: undefined,
    ...NO_PROXY_ENV,
    ...more,
  };
}

describe('.condarc', () => {
  it('gives the channels and the channel alias when no -c is given', async () => {
    const home = homeWith(`channels:\n  - demo\nchannel_alias: ${server.url}\n`);
    const before = server.log.length;
    const { code, stdout, stderr } = await runCli(['-p', 'linux-64', '-q', 'python=3.9'], { env: env(home) });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as { packages: { name: string; url: string; channel: string }[] }[];
    const python = result!.packages.find((p) => p.name === 'python')!;
    expect(python.url.startsWith(`${server.url}/demo/linux-64/`)).toBe(true);
    expect(server.log.slice(before).some((e) => e.path.startsWith('/demo/linux-64/'))).toBe(true);
  });

  it('a file:// channel_alias (a local mirror) serves the configured channel names from folders', async () => {
    const mirror = pathToFileURL(dirname(DEMO)).href;
    const home = homeWith(`channels:\n  - demo\nchannel_alias: ${mirror}\n`);
    const { code, stdout, stderr } = await runCli(['-p', 'linux-64', '-q', 'python=3.12'], { env: env(home) });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as { packages: { name: string; url: string; channel: string }[] }[];
    const python = result!.packages.find((p) => p.name === 'python')!;
    expect(python.url).toBe(`${pathToFileURL(DEMO).href}/linux-64/${python.url.split('/').pop()}`);
    expect(python.channel).toBe('demo');
  });

  it('searches -c channels before the configured ones, and --override-channels drops the configured ones', async () => {
    const home = homeWith(`channels:\n  - demo\nchannel_alias: ${server.url}\n`);
    const local = ['-c', DEMO, '-p', 'linux-64', '-q', 'python=3.9'];
    let run = await runCli(local, { env: env(home) });
    expect(run.code).toBe(0);
    // Both channels are searched: the local one first, so python comes from it.
    expect(run.stdout).toContain('file://');
    const before = server.log.length;
    run = await runCli([...local, '--override-channels'], { env: env(home), cacheDir: tempDir() });
    expect(run.code).toBe(0);
    expect(server.log.length).toBe(before);
  });

  it('--override-channels without -c is a usage error', async () => {
    const run = await runCli(['--override-channels', 'python'], { env: env(homeWith('channels: [demo]\n')) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--override-channels needs at least one -c CHANNEL');
  });

  it('expands a custom channel to its own server', async () => {
    const home = homeWith(`channels: [demo]\ncustom_channels:\n  demo: ${server.url}\n`);
    const { code, stdout } = await runCli(['-p', 'linux-64', '-q', 'python=3.9'], { env: env(home) });
    expect(code).toBe(0);
    expect(stdout).toContain(`${server.url}/demo/linux-64/`);
  });

  it('a broken .condarc is a usage error naming the file', async () => {
    const home = homeWith('channels: [demo\n');
    const { code, stderr } = await runCli(['python'], { env: env(home) });
    expect(code).toBe(2);
    expect(stderr).toContain(`${join(home, '.condarc')}", line`);
  });
});

describe('conda-resolve config', () => {
  it('prints each setting with the file or variable it came from, credentials redacted', async () => {
    const home = homeWith(`channels:\n  - demo\nchannel_alias: https://user:secret@mirror.example/t/tk-123/conda\n`);
    const { code, stdout } = await runCli(['config'], { env: env(home, { CONDA_REMOTE_MAX_RETRIES: '5' }) });
    expect(code).toBe(0);
    expect(stdout).toContain(`channels:\n  - demo  # from ${join(home, '.condarc')}`);
    expect(stdout).toContain('remote_max_retries: 5  # from CONDA_REMOTE_MAX_RETRIES');
    expect(stdout).toContain('channel_alias: https://mirror.example/t/<TOKEN>/conda');
    expect(stdout).not.toContain('secret');
    expect(stdout).not.toContain('tk-123');
    const json = JSON.parse((await runCli(['config', '--json'], { env: env(home) })).stdout) as {
      files: string[];
      settings: Record<string, { value: unknown; sources: string[] }>;
    };
    expect(json.files).toEqual([join(home, '.condarc')]);
    expect(json.settings.channels).toEqual({ value: ['demo'], sources: [join(home, '.condarc')] });
  });
});
