/**
 * The disk cache as users meet it: where it lives, when it is fresh, what `--offline` and
 * `--refresh` do, that a damaged entry is fetched again instead of used, that a missing subdir is
 * remembered, and that two processes fetching the same index at once both end with a valid cache.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCacheDir, freshnessMs, RepodataCache } from '../../repodata/cache.js';
import { RepodataOfflineError } from '../../repodata/fetch-errors.js';
import { RepodataStore } from '../../repodata/store.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared, PROJECT_ROOT } from '../helpers/shared.js';
import { deferred, hidePaths, recordCacheSaved, tempDir, type Deferred } from './store-helpers.js';

describe('defaultCacheDir', () => {
  it('follows each platform', () => {
    expect(defaultCacheDir({}, 'linux', '/home/u')).toBe('/home/u/.cache/conda-resolve');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'linux', '/home/u')).toBe('/xdg/conda-resolve');
    // XDG: a relative value is ignored.
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'rel' }, 'linux', '/home/u')).toBe('/home/u/.cache/conda-resolve');
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'darwin', '/Users/u')).toBe('/Users/u/Library/Caches/conda-resolve');
    expect(defaultCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u')).toMatch(/conda-resolve[\\/]Cache$/);
    expect(defaultCacheDir({ CONDA_RESOLVE_CACHE_DIR: '/srv/cache' }, 'linux', '/home/u')).toBe('/srv/cache');
  });
});

describe('freshness', () => {
  it('reads Cache-Control max-age, no-cache and no-store, else the default TTL', () => {
    expect(freshnessMs('public, max-age=1200', 60)).toBe(1_200_000);
    expect(freshnessMs('max-age="30"', 60)).toBe(30_000);
    expect(freshnessMs('no-cache', 60)).toBe(0);
    expect(freshnessMs('private, no-store, max-age=100', 60)).toBe(0);
    expect(freshnessMs(null, 60)).toBe(60_000);
    expect(freshnessMs('must-revalidate', 5)).toBe(5_000);
  });
});

describe('entry keys', () => {
  it('keep credentials apart and out of file names', () => {
    const cache = new RepodataCache('/tmp/x');
    const plain = cache.entryKey('private', 'linux-64', 'https://h/private/linux-64', null);
    const alice = cache.entryKey('private', 'linux-64', 'https://h/private/linux-64', 'tok-alice');
    const bob = cache.entryKey('private', 'linux-64', 'https://h/private/linux-64', 'tok-bob');
    expect(new Set([plain, alice, bob]).size).toBe(3);
    expect(alice).not.toContain('tok');
    expect(plain).toMatch(/^private-linux-64-[0-9a-f]{16}$/);
  });
});

describeShared('the repodata cache', () => {
  let server: ChannelServer;
  const work = tempDir('cache');
  const channelAt = (): ReturnType<typeof parseChannel> => parseChannel(`${server.url}/conda-forge-py39`);

  beforeAll(async () => {
    server = await startChannelServer({ root: CHANNELS_DIR, maxAge: 0 });
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  async function load(cacheDir: string, options: { offline?: boolean; refresh?: boolean; subdir?: string } = {}) {
    const store = new RepodataStore({ cacheDir, offline: options.offline, refresh: options.refresh });
    try {
      const [index] = await store.prepare([channelAt()], [options.subdir ?? 'noarch'], []);
      return index!;
    } finally {
      await store.close();
    }
  }

  function dataFiles(cacheDir: string, suffix: string): string[] {
    return readdirSync(join(cacheDir, 'repodata')).filter((f) => f.endsWith(suffix));
  }

  it("keeps the records a download's first solve read beside its sidecar, for the next run", async () => {
    const cacheDir = join(work.path, 'record-cache');
    const read = async (): Promise<unknown> => {
      const store = new RepodataStore({ cacheDir, indexBytes: 'positional' });
      try {
        const [index] = await store.prepare([channelAt()], ['linux-64'], []);
        return ['python', 'openssl', 'setuptools'].map((name) => index!.records(name));
      } finally {
        await store.close();
      }
    };
    const cold = await read();
    await recordCacheSaved();
    expect(dataFiles(cacheDir, '.json.index.records')).toHaveLength(1);
    expect(await read()).toEqual(cold);
  });

  it('stores the decompressed JSON, its sidecar index and a state with the validators', async () => {
    const cacheDir = join(work.path, 'layout');
    await load(cacheDir, { subdir: 'linux-64' });
    const [json] = dataFiles(cacheDir, '.json');
    const cached = readFileSync(join(cacheDir, 'repodata', json!));
    expect(cached.equals(readFileSync(join(CHANNELS_DIR, 'conda-forge-py39', 'linux-64', 'repodata.json')))).toBe(true);
    expect(dataFiles(cacheDir, '.json.index')).toHaveLength(1);
    const [stateFile] = dataFiles(cacheDir, '.state.json');
    const state = JSON.parse(readFileSync(join(cacheDir, 'repodata', stateFile!), 'utf8'));
    expect(state).toMatchObject({
      url: `${server.url}/conda-forge-py39/linux-64`,
      format: 'zst',
      sourceUrl: `${server.url}/conda-forge-py39/linux-64/repodata.json.zst`,
      cacheControl: 'public, max-age=0',
      size: 2281843,
      dataFile: json,
    });
    expect(state.etag).toMatch(/^"/);
    expect(state.sha256).toBe(
      createHash('sha256')
        .update(readFileSync(join(cacheDir, 'repodata', json!)))
        .digest('hex'),
    );
    expect(dataFiles(cacheDir, '.tmp')).toEqual([]);
  });

  it('offline: uses the cache whatever its age, never the network; fails clearly without one', async () => {
    const cacheDir = join(work.path, 'offline');
    await load(cacheDir);
    const before = server.log.length;
    const index = await load(cacheDir, { offline: true });
    expect(index.recordCount).toBe(205);
    expect(server.log.length).toBe(before);
    const error = await load(join(work.path, 'offline-empty'), { offline: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RepodataOfflineError);
    expect((error as Error).message).toBe(
      `Cannot fetch repodata for ${server.url}/conda-forge-py39/noarch: offline mode is on and the cache has no copy of it`,
    );
  });

  it('refresh: revalidates even a fresh entry', async () => {
    const fresh = await startChannelServer({ root: CHANNELS_DIR, maxAge: 3600 });
    try {
      const cacheDir = join(work.path, 'refresh');
      const channel = parseChannel(`${fresh.url}/conda-forge-py39`);
      for (const refresh of [false, false, true]) {
        const store = new RepodataStore({ cacheDir, refresh });
        await store.prepare([channel], ['noarch'], []);
        await store.close();
      }
      // First: probe shards, zst, then json 200. Second: fresh, nothing. Third: conditional json
      // (the shard index, found absent minutes ago, is not asked again).
      expect(fresh.log.map((e) => e.status)).toEqual([404, 404, 200, 304]);
    } finally {
      await fresh.close();
    }
  });

  it('fetches a truncated, rewritten or deleted data file again instead of using it', async () => {
    const cacheDir = join(work.path, 'damaged');
    await load(cacheDir);
    const path = (): string => join(cacheDir, 'repodata', dataFiles(cacheDir, '.json')[0]!);

    const damage = [
      () => truncateSync(path(), 1000),
      () => {
        // Same size, different content (the mtime changes, so the hash is checked).
        const bytes = readFileSync(path());
        bytes.write('0', bytes.indexOf('"build_number": ') + 16);
        writeFileSync(path(), bytes);
      },
      () => writeFileSync(path(), ''),
      () => writeFileSync(join(cacheDir, 'repodata', dataFiles(cacheDir, '.state.json')[0]!), '{"version": 1, "trunc'),
    ];
    for (const act of damage) {
      act();
      server.log.length = 0;
      const index = await load(cacheDir);
      expect(index.recordCount).toBe(205);
      // A full download, not a 304 that would keep the damaged copy.
      expect(server.log.filter((e) => e.path.endsWith('repodata.json')).map((e) => e.status)).toEqual([200]);
      expect(server.log.some((e) => e.headers['if-none-match'] !== undefined)).toBe(false);
    }
  });

  it('remembers a subdir the channel does not have (one probe, then cached)', async () => {
    const fresh = await startChannelServer({ root: CHANNELS_DIR, maxAge: 3600 });
    try {
      const cacheDir = join(work.path, 'missing');
      const channel = parseChannel(`${fresh.url}/conda-forge-py39`);
      for (let round = 0; round < 2; round++) {
        const store = new RepodataStore({ cacheDir });
        const [win32, noarch] = await store.prepare([channel], ['win-32', 'noarch'], []);
        expect(win32!.recordCount).toBe(0);
        expect([...win32!.names()]).toEqual([]);
        expect(noarch!.recordCount).toBe(205);
        await store.close();
      }
      expect(fresh.log.filter((e) => e.path.includes('/win-32/')).map((e) => e.status)).toEqual([404, 404, 404]);
    } finally {
      await fresh.close();
    }
  });

  it('two stores fetching the same index at once both succeed and leave one valid entry', async () => {
    const cacheDir = join(work.path, 'race');
    const slow = await startChannelServer({ root: CHANNELS_DIR, maxAge: 0 });
    // Hold each request until the other store has asked for the same file, so both fetches overlap.
    const firstAsked = new Map<string, Deferred>();
    slow.intercept = async (req, res) => {
      const path = req.url ?? '/';
      const other = firstAsked.get(path);
      if (other) {
        other.resolve();
      } else {
        const both = deferred();
        firstAsked.set(path, both);
        await both.promise;
      }
      return hidePaths(/repodata_shards/)(req, res);
    };
    try {
      const channel = parseChannel(`${slow.url}/conda-forge-py39`);
      const stores = [new RepodataStore({ cacheDir }), new RepodataStore({ cacheDir })];
      const results = await Promise.all(stores.map((s) => s.prepare([channel], ['linux-64'], [])));
      await Promise.all(stores.map((s) => s.close()));
      expect(results.map(([i]) => i!.recordCount)).toEqual([2709, 2709]);
      expect(slow.log.filter((e) => e.status === 200)).toHaveLength(2);
      const entry = await new RepodataCache(cacheDir).readState(dataFiles(cacheDir, '.state.json')[0]!.replace('.state.json', ''));
      expect(entry).not.toBeNull();
      expect(dataFiles(cacheDir, '.tmp')).toEqual([]);
      const data = readFileSync(join(cacheDir, 'repodata', entry!.dataFile));
      expect(createHash('sha256').update(data).digest('hex')).toBe(entry!.sha256);
    } finally {
      await slow.close();
    }
  });

  it('two processes fetching the same index at once both end with a valid cache', async () => {
    const cacheDir = join(work.path, 'processes');
    const script = join(PROJECT_ROOT, 'test', 'repodata', 'store-fetch-process.ts');
    const run = promisify(execFile);
    const tsx = join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
    const outputs = await Promise.all(
      [0, 1].map(() => run(tsx, [script, cacheDir, `${server.url}/conda-forge-py39`, 'linux-64'], { cwd: PROJECT_ROOT, timeout: 60_000 })),
    );
    expect(outputs.map((o) => o.stdout.trim())).toEqual(['2709', '2709']);
    const index = await load(cacheDir, { offline: true, subdir: 'linux-64' });
    expect(index.recordCount).toBe(2709);
    expect(dataFiles(cacheDir, '.tmp')).toEqual([]);
  }, 60_000);
});
