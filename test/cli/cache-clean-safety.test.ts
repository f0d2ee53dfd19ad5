/**
 * `cache clean` removes only what the cache wrote (issue 32, item 1): a folder named like a cache
 * part is not the cache's by its name, links are never followed below the cache directory, and the
 * dry run and the real run report the same files, which are the files removed.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCacheFileName, isRepodataCacheFile, makeCacheFolder } from '../../repodata/cache.js';
import { startChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { runCli, tempDir } from './run-cli.js';

const KEY = 'demo-linux-64-0123456789abcdef';

interface CleanJson {
  files: number;
  bytes: number;
  link_target: string | null;
  parts: { name: string; files: number; left_alone: string | null }[];
}

const clean = async (cacheDir: string, ...flags: string[]) => {
  const result = await runCli(['cache', 'clean', '--json', '--cache-dir', cacheDir, ...flags]);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as CleanJson;
};

describe('cache clean removes only what the cache wrote', () => {
  it("leaves a user's local/, repodata/ and shards/ alone when the cache did not make them (a cache dir like /usr)", async () => {
    const dir = tempDir('cr-usr-');
    mkdirSync(join(dir, 'local', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'local', 'bin', 'tool'), 'mine');
    writeFileSync(join(dir, 'local', '0123456789abcdef-0123456789abcdef.index'), 'mine too, named like ours');
    mkdirSync(join(dir, 'repodata'));
    writeFileSync(join(dir, 'repodata', `${KEY}.state.json`), '{}');

    const dry = await runCli(['cache', 'clean', '--dry-run', '--cache-dir', dir]);
    expect(dry.stdout).toContain('local/     left alone: it holds no CACHEDIR.TAG written by conda-resolve');
    expect(dry.stdout).toContain('The repodata cache is empty: nothing to remove.');
    const real = await clean(dir);
    expect(real.files).toBe(0);
    expect(existsSync(join(dir, 'local', 'bin', 'tool'))).toBe(true);
    expect(existsSync(join(dir, 'local', '0123456789abcdef-0123456789abcdef.index'))).toBe(true);
    expect(existsSync(join(dir, 'repodata', `${KEY}.state.json`))).toBe(true);
  });

  it('in a folder the cache made, removes only its own file names and keeps the folder while others remain', async () => {
    const dir = tempDir('cr-cache-');
    await makeCacheFolder(join(dir, 'repodata'), isRepodataCacheFile);
    writeFileSync(join(dir, 'repodata', `${KEY}.state.json`), '{}');
    writeFileSync(join(dir, 'repodata', 'notes.txt'), 'a user put this here');
    const dry = await clean(dir, '--dry-run');
    expect(dry.files).toBe(1);
    expect(dry.parts[0]).toMatchObject({ name: 'repodata', files: 1, left_alone: '1 other entries' });
    const real = await clean(dir);
    expect(real.files).toBe(dry.files);
    expect(readdirSync(join(dir, 'repodata')).sort()).toEqual(['CACHEDIR.TAG', 'notes.txt']);
  });

  it('never follows a link inside the cache: a linked part and a linked file are left alone', async () => {
    const dir = tempDir('cr-cache-');
    const elsewhere = tempDir('cr-elsewhere-');
    await makeCacheFolder(join(elsewhere, 'shards'), () => true);
    const shard = `${'a'.repeat(64)}.msgpack.zst`;
    writeFileSync(join(elsewhere, 'shards', shard), 'precious');
    symlinkSync(join(elsewhere, 'shards'), join(dir, 'shards'));
    await makeCacheFolder(join(dir, 'repodata'), isRepodataCacheFile);
    writeFileSync(join(elsewhere, 'target.json'), 'precious');
    symlinkSync(join(elsewhere, 'target.json'), join(dir, 'repodata', `${KEY}.0123456789abcdef.json`));

    const dry = await runCli(['cache', 'clean', '--dry-run', '--cache-dir', dir]);
    expect(dry.stdout).toContain('shards/    left alone: a link (never followed)');
    await clean(dir);
    expect(existsSync(join(elsewhere, 'shards', shard))).toBe(true);
    expect(existsSync(join(elsewhere, 'target.json'))).toBe(true);
  });

  it('covers pypi/ when present, with the same marker', async () => {
    const dir = tempDir('cr-cache-');
    await makeCacheFolder(join(dir, 'pypi'), isCacheFileName);
    writeFileSync(join(dir, 'pypi', 'numpy.json'), '{}');
    const dry = await clean(dir, '--dry-run');
    expect(dry.parts.map((p) => p.name)).toEqual(['repodata', 'shards', 'local', 'pypi']);
    expect(dry.files).toBe(1);
    expect((await clean(dir)).files).toBe(1);
    expect(existsSync(join(dir, 'pypi'))).toBe(false);
  });

  it('a --cache-dir that is a link: dry run and real run name its target and agree on what goes', async () => {
    const server = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
    try {
      const target = tempDir('cr-cache-target-');
      const link = join(tempDir('cr-cache-link-'), 'cache');
      symlinkSync(target, link);
      expect((await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python'], { cacheDir: link })).code).toBe(0);
      const before = readdirSync(join(target, 'repodata')).length;
      expect(before).toBeGreaterThan(1);

      const text = await runCli(['cache', 'clean', '--dry-run', '--cache-dir', link]);
      expect(text.stdout).toContain(`Cache directory: ${link} (a link to `);
      expect(text.stdout).not.toContain('does not exist');
      const dry = await clean(link, '--dry-run');
      expect(dry.files).toBeGreaterThan(0);
      expect(readdirSync(join(target, 'repodata'))).toHaveLength(before);
      const real = await clean(link);
      expect({ files: real.files, bytes: real.bytes }).toEqual({ files: dry.files, bytes: dry.bytes });
      expect(existsSync(join(target, 'repodata'))).toBe(false);
    } finally {
      await server.close();
    }
  });
});
