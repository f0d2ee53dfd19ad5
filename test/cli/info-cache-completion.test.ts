/**
 * `conda-resolve info`, `cache clean` and `completion` (issue 17, scope 4), through `main` with a
 * home directory and cache of their own; the bash completion script is sourced into a real bash
 * and asked for completions, the zsh and fish ones are syntax-checked by their shells when installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLocalCacheFile, isRepodataCacheFile, isShardCacheFile, makeCacheFolder } from '../../repodata/cache.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startChannelServer } from '../helpers/channel-server.js';
import { runCli, tempDir } from './run-cli.js';

const isolated = (extra: Record<string, string | undefined> = {}) => ({
  HOME: tempDir('cr-home-'),
  XDG_CONFIG_HOME: undefined,
  CONDARC: undefined,
  CONDA_CHANNELS: undefined,
  CONDA_CHANNEL_PRIORITY: undefined,
  CONDA_OVERRIDE_GLIBC: undefined,
  CONDA_OVERRIDE_CUDA: undefined,
  CONDA_OVERRIDE_OSX: undefined,
  ...extra,
});

interface Info {
  version: string;
  platform: string;
  config_files: string[];
  channels: Array<{ name: string; url: string; source: string }>;
  channel_priority: { value: string; source: string };
  overrides: Record<string, string>;
  virtual_packages: Record<string, string[]>;
  cache_dir: string;
  cache_size: { bytes: number; files: number };
}

describe('conda-resolve info', () => {
  it('shows the virtual packages of each platform with CONDA_OVERRIDE_* in effect', async () => {
    const env = isolated({ CONDA_OVERRIDE_GLIBC: '2.17', CONDA_OVERRIDE_CUDA: '12.4' });
    const { code, stdout, stderr } = await runCli(['info', '--json', '-p', 'linux-64', '-p', 'osx-arm64'], { env });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const info = JSON.parse(stdout) as Info;
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.overrides).toEqual({ CONDA_OVERRIDE_CUDA: '12.4', CONDA_OVERRIDE_GLIBC: '2.17' });
    expect(info.virtual_packages).toEqual({
      'linux-64': ['__archspec=1=x86_64', '__cuda=12.4=0', '__glibc=2.17=0', '__linux=4.18=0', '__unix=0=0'],
      'osx-arm64': ['__archspec=1=m1', '__cuda=12.4=0', '__osx=13.0=0', '__unix=0=0'],
    });
  });

  it('names where each channel came from: -c, a .condarc file, or the default', async () => {
    const env = isolated();
    const none = JSON.parse((await runCli(['info', '--json'], { env })).stdout) as Info;
    expect(none.channels).toEqual([{ name: 'conda-forge', url: 'https://conda.anaconda.org/conda-forge', source: 'default' }]);
    expect(none.channel_priority).toEqual({ value: 'strict', source: 'default' });

    const condarc = join(env.HOME, '.condarc');
    writeFileSync(condarc, 'channels:\n  - bioconda\n  - conda-forge\nchannel_priority: flexible\n');
    const configured = JSON.parse((await runCli(['info', '--json', '-c', 'pytorch'], { env })).stdout) as Info;
    expect(configured.config_files).toEqual([condarc]);
    expect(configured.channels).toEqual([
      { name: 'pytorch', url: 'https://conda.anaconda.org/pytorch', source: 'command line (-c)' },
      { name: 'bioconda', url: 'https://conda.anaconda.org/bioconda', source: condarc },
      { name: 'conda-forge', url: 'https://conda.anaconda.org/conda-forge', source: condarc },
    ]);
    expect(configured.channel_priority).toEqual({ value: 'flexible', source: condarc });

    const overridden = JSON.parse((await runCli(['info', '--json', '-c', 'pytorch', '--override-channels'], { env })).stdout) as Info;
    expect(overridden.channels.map((c) => c.name)).toEqual(['pytorch']);
  });

  it('prints a conda-info-style table with the cache directory and its size after a resolve', async () => {
    const cacheDir = tempDir('cr-cache-');
    const env = isolated();
    await makeCacheFolder(join(cacheDir, 'shards'), isShardCacheFile);
    writeFileSync(join(cacheDir, 'shards', `${'e'.repeat(64)}.msgpack.zst`), Buffer.alloc(2048));
    const { code, stdout } = await runCli(['info', '-p', 'win-64'], { env, cacheDir });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\n {2}conda-resolve version : \d+\.\d+\.\d+\n {8}node\.js version : /);
    expect(stdout).toContain(`\nvirtual packages win-64 : __archspec=1=x86_64\n                          __win=0=0\n`);
    expect(stdout).toContain(`\n        cache directory : ${cacheDir}\n             cache size : 2.0 KiB in 1 file\n`);
  });

  it('a bad platform or override is a usage error naming it', async () => {
    expect(await runCli(['info', '-p', 'linux-65'], { env: isolated() })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('linux-65'),
    });
    const bad = await runCli(['info'], { env: isolated({ CONDA_OVERRIDE_GLIBC: 'not a version!' }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('CONDA_OVERRIDE_GLIBC');
  });
});

describe('conda-resolve cache clean', () => {
  it('removes the repodata cache, not other files in the folder; --dry-run removes nothing', async () => {
    const cacheDir = tempDir('cr-cache-');
    // A real cache: one HTTP-less resolve writes nothing, so the layout is made as the cache writes it.
    await makeCacheFolder(join(cacheDir, 'repodata'), isRepodataCacheFile);
    await makeCacheFolder(join(cacheDir, 'shards'), isShardCacheFile);
    const key = 'demo-linux-64-0123456789abcdef';
    writeFileSync(join(cacheDir, 'repodata', `${key}.state.json`), '{}');
    writeFileSync(join(cacheDir, 'repodata', `${key}.0123456789abcdef.json`), Buffer.alloc(3000));
    writeFileSync(join(cacheDir, 'shards', `${'f'.repeat(64)}.msgpack.zst`), Buffer.alloc(1000));
    await makeCacheFolder(join(cacheDir, 'local'), isLocalCacheFile);
    writeFileSync(join(cacheDir, 'local', '0123456789abcdef-0123456789abcdef.index'), Buffer.alloc(100));
    writeFileSync(join(cacheDir, 'notes.txt'), 'mine');

    const dry = await runCli(['cache', 'clean', '--dry-run', '--cache-dir', cacheDir]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(
      `Cache directory: ${cacheDir}\n  repodata/       2 files     2.9 KiB\n  shards/         1 file       1000 B\n  local/          1 file        100 B\nWould remove 4 files (4.0 KiB); nothing was removed (--dry-run).\n`,
    );
    expect(readdirSync(join(cacheDir, 'repodata'))).toHaveLength(3); // with the cache's CACHEDIR.TAG

    const done = await runCli(['cache', 'clean', '--json'], { cacheDir });
    expect(JSON.parse(done.stdout)).toMatchObject({ cache_dir: cacheDir, dry_run: false, removed: true, files: 4, bytes: 4102 });
    expect(readdirSync(cacheDir)).toEqual(['notes.txt']);

    const again = await runCli(['cache', 'clean'], { cacheDir });
    expect(again.stdout).toContain('The repodata cache is empty: nothing to remove.\n');
  });

  it('cleans what a resolve over HTTP cached, and info measures it before', async () => {
    const server = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
    try {
      const cacheDir = tempDir('cr-cache-');
      const env = isolated();
      expect((await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python'], { cacheDir, env })).code).toBe(0);
      const info = JSON.parse((await runCli(['info', '--json'], { cacheDir, env })).stdout) as Info;
      expect(info.cache_size.files).toBeGreaterThanOrEqual(4); // state and data for linux-64 and noarch
      const { stdout } = await runCli(['cache', 'clean', '--json'], { cacheDir, env });
      expect(JSON.parse(stdout)).toMatchObject({ files: info.cache_size.files, bytes: info.cache_size.bytes });
      expect(existsSync(join(cacheDir, 'repodata'))).toBe(false);
      // The next resolve downloads again.
      const before = server.log.length;
      expect((await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python'], { cacheDir, env })).code).toBe(0);
      expect(server.log.length).toBeGreaterThan(before);
    } finally {
      await server.close();
    }
  });

  it('needs the action word', async () => {
    expect(await runCli(['cache'])).toMatchObject({ code: 2, stderr: expect.stringContaining('the cache command has "clean"') });
    expect(await runCli(['cache', 'purge'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown cache action "purge"') });
  });
});

/** What the bash completion offers for the words typed so far (the last one is being completed). */
function bashComplete(script: string, words: string[], cwd: string): string[] {
  const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _conda_resolve; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['--norc', '-c', program], { cwd, encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '');
}

describe('conda-resolve completion', () => {
  it('bash: commands, flags per command, platforms, formats, cache actions and file names', async () => {
    const { code, stdout } = await runCli(['completion', 'bash']);
    expect(code).toBe(0);
    const dir = tempDir();
    writeFileSync(join(dir, 'environment.yml'), '');
    writeFileSync(join(dir, 'envs.txt'), '');
    expect(bashComplete(stdout, ['conda-resolve', 'c'], dir)).toEqual(['cache', 'config', 'completion']);
    expect(bashComplete(stdout, ['conda-resolve', 'numpy', '--dr'], dir)).toEqual(['--dry-run']);
    expect(bashComplete(stdout, ['conda-resolve', 'numpy', '-p', 'osx-'], dir)).toEqual(['osx-64', 'osx-arm64']);
    expect(bashComplete(stdout, ['conda-resolve', '--format', 'pixi'], dir)).toEqual(['pixi', 'pixi-lock-v6', 'pixi-lock-v7', 'pixi-v7']);
    expect(bashComplete(stdout, ['conda-resolve', '-f', 'env'], dir).sort()).toEqual(['environment.yml', 'envs.txt']);
    expect(bashComplete(stdout, ['conda-resolve', 'cache', ''], dir)).toEqual(['clean']);
    expect(bashComplete(stdout, ['conda-resolve', 'info', '--'], dir)).toEqual(
      expect.arrayContaining(['--platform', '--json', '--cache-dir']),
    );
    expect(bashComplete(stdout, ['conda-resolve', 'info', '--'], dir)).not.toContain('--format');
    expect(bashComplete(stdout, ['conda-resolve', 'completion', ''], dir)).toEqual(['bash', 'zsh', 'fish']);
    expect(bashComplete(stdout, ['conda-resolve', 'serve', '--po'], dir)).toEqual(['--port']);
  });

  it.each(['zsh', 'fish'])('%s: the script parses in that shell and names every command', async (shell) => {
    const { code, stdout } = await runCli(['completion', shell]);
    expect(code).toBe(0);
    for (const command of ['resolve', 'info', 'cache', 'completion', 'serve', 'formats', 'config']) expect(stdout).toContain(command);
    expect(stdout).toContain('linux-aarch64');
    expect(stdout).toContain('rattler-lock-v6');
    const available = spawnSync(shell, ['-c', 'true']).status === 0;
    if (!available) return; // CI installs zsh and fish (.ci/run); elsewhere only the content is checked.
    const dir = tempDir();
    writeFileSync(join(dir, `script.${shell}`), stdout);
    const check = spawnSync(shell, ['-n', join(dir, `script.${shell}`)], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('fish: the completions answer through complete -C', async () => {
    if (spawnSync('fish', ['-c', 'true']).status !== 0) return;
    const { stdout } = await runCli(['completion', 'fish']);
    const dir = tempDir();
    writeFileSync(join(dir, 'c.fish'), stdout);
    const asked = (line: string) =>
      execFileSync('fish', ['--no-config', '-c', `source ${join(dir, 'c.fish')}; complete -C '${line}'`], { encoding: 'utf8' })
        .split('\n')
        .map((l) => l.split('\t')[0])
        .filter((l) => l !== '');
    expect(asked('conda-resolve -p linux-a')).toEqual(['linux-aarch64', 'linux-armv6l', 'linux-armv7l']);
    expect(asked('conda-resolve cache ')).toContain('clean');
  });

  it('an unknown or missing shell is a usage error', async () => {
    expect(await runCli(['completion'])).toMatchObject({
      code: 2,
      stderr: 'conda-resolve: error: name a shell: conda-resolve completion bash|zsh|fish\n',
    });
    expect(await runCli(['completion', 'tcsh'])).toMatchObject({
      code: 2,
      stderr: 'conda-resolve: error: unknown shell "tcsh": conda-resolve completion bash|zsh|fish\n',
    });
  });
});
