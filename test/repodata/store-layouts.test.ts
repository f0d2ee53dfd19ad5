/**
 * The same channel snapshot served four ways gives the same records: plain repodata.json over
 * HTTP, repodata.json.zst over HTTP, a CEP 16 sharded layout over HTTP, and a file:// channel.
 * And a second fetch is a conditional request answered 304.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { ShardedSubdirIndex } from '../../repodata/sharded/sharded-subdir.js';
import type { LoadProgressEvent, SubdirIndex } from '../../repodata/types.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { shardChannel } from '../tools/shard-channel.js';
import { allRecords, hidePaths, tempDir } from './store-helpers.js';

const SUBDIRS = ['linux-64', 'noarch', 'osx-arm64'];

describeShared('one snapshot, four layouts', () => {
  const work = tempDir('layouts');
  let plain: ChannelServer;
  let zst: ChannelServer;
  let sharded: ChannelServer;

  beforeAll(async () => {
    await shardChannel({
      source: join(CHANNELS_DIR, 'conda-forge-py39'),
      out: join(work.path, 'sharded', 'conda-forge-py39'),
      subdirs: SUBDIRS,
    });
    // zstd layout: conda-forge's own linux-64 .zst, and ours for the subdirs the snapshot has only as JSON.
    const zstRoot = join(work.path, 'zst', 'conda-forge-py39');
    await shardChannel({
      source: join(CHANNELS_DIR, 'conda-forge-py39'),
      out: zstRoot,
      subdirs: SUBDIRS.slice(1),
      shards: false,
      zst: true,
    });
    mkdirSync(join(zstRoot, 'linux-64'), { recursive: true });
    copyFileSync(join(CHANNELS_DIR, 'conda-forge-py39', 'linux-64', 'repodata.json.zst'), join(zstRoot, 'linux-64', 'repodata.json.zst'));
    plain = await startChannelServer({ root: CHANNELS_DIR, maxAge: 0 });
    plain.intercept = hidePaths(/\.zst$/);
    zst = await startChannelServer({ root: join(work.path, 'zst'), maxAge: 0 });
    sharded = await startChannelServer({ root: join(work.path, 'sharded') });
  });

  afterAll(async () => {
    await Promise.all([plain?.close(), zst?.close(), sharded?.close()]);
    work.remove();
  });

  async function loadAll(url: string, cacheName: string): Promise<SubdirIndex[]> {
    const store = new RepodataStore({ cacheDir: join(work.path, cacheName) });
    try {
      const indexes = await store.prepare([parseChannel(url)], SUBDIRS, []);
      for (const index of indexes) {
        if (index instanceof ShardedSubdirIndex) await index.prefetch(index.names());
      }
      return indexes;
    } finally {
      await store.close();
    }
  }

  it('gives identical records from plain JSON, zstd, shards and file://', async () => {
    const fromPlain = await loadAll(`${plain.url}/conda-forge-py39`, 'cache-plain');
    const fromZst = await loadAll(`${zst.url}/conda-forge-py39`, 'cache-zst');
    const fromShards = await loadAll(`${sharded.url}/conda-forge-py39`, 'cache-shards');
    const fromFile = await loadAll(join(CHANNELS_DIR, 'conda-forge-py39'), 'cache-file');

    expect(fromShards.every((index) => index instanceof ShardedSubdirIndex)).toBe(true);
    expect(fromPlain.some((index) => index instanceof ShardedSubdirIndex)).toBe(false);
    // The files each server actually sent.
    expect(plain.log.filter((e) => e.status === 200).map((e) => e.path.split('/').pop())).toEqual(SUBDIRS.map(() => 'repodata.json'));
    expect(zst.log.filter((e) => e.status === 200).map((e) => e.path.split('/').pop())).toEqual(SUBDIRS.map(() => 'repodata.json.zst'));

    expect(fromPlain.map((i) => i.recordCount)).toEqual([2709, 205, 832]);
    for (let s = 0; s < SUBDIRS.length; s++) {
      const reference = allRecords(fromPlain[s]!);
      expect(allRecords(fromZst[s]!)).toEqual(reference);
      expect(allRecords(fromShards[s]!)).toEqual(reference);
      expect(allRecords(fromFile[s]!)).toEqual(reference);
    }
    // Records name their channel and carry download URLs under it.
    const python = fromShards[0]!.records('python')[0]!;
    expect(python.channel).toBe(`${sharded.url}/conda-forge-py39`);
    expect(python.url).toBe(`${sharded.url}/conda-forge-py39/linux-64/${python.fn}`);
  });

  it('revalidates with a conditional request answered 304, and reuses the index in memory', async () => {
    const cacheDir = join(work.path, 'cache-conditional');
    const channel = parseChannel(`${zst.url}/conda-forge-py39`);
    const first = new RepodataStore({ cacheDir });
    const [index] = await first.prepare([channel], ['linux-64'], []);
    zst.log.length = 0;
    // maxAge 0: stale at once, so the same store revalidates; 304 keeps the very same index object.
    const [again] = await first.prepare([channel], ['linux-64'], []);
    expect(again).toBe(index);
    expect(zst.log.map((e) => [e.path, e.status])).toEqual([['/conda-forge-py39/linux-64/repodata.json.zst', 304]]);
    expect(zst.log[0]!.headers['if-none-match']).toMatch(/^"/);
    await first.close();

    // A new process (a new store) over the same cache: one conditional request, no body.
    zst.log.length = 0;
    const second = new RepodataStore({ cacheDir });
    const [fromCache] = await second.prepare([channel], ['linux-64'], []);
    await second.close();
    expect(zst.log.map((e) => e.status)).toEqual([304]);
    expect(allRecords(fromCache!)).toEqual(allRecords(index!));
  });

  it('reports progress: bytes as they arrive, then the records indexed', async () => {
    const events: LoadProgressEvent[] = [];
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-progress'), onProgress: (e) => events.push(e) });
    await store.prepare([parseChannel(`${zst.url}/conda-forge-py39`)], ['linux-64'], []);
    await store.close();
    const fetches = events.filter((e) => e.phase === 'fetch');
    expect(fetches.length).toBeGreaterThanOrEqual(1);
    expect(fetches.map((e) => e.bytes)).toEqual([...fetches.map((e) => e.bytes!)].sort((a, b) => a - b));
    expect(fetches.at(-1)).toMatchObject({ channel: `${zst.url}/conda-forge-py39`, subdir: 'linux-64', bytes: 229342, totalBytes: 229342 });
    expect(events.at(-1)).toMatchObject({ phase: 'done', records: 2709 });
  });

  it('does not ask the network while the cache is fresh', async () => {
    const fresh = await startChannelServer({ root: CHANNELS_DIR, maxAge: 3600 });
    try {
      const cacheDir = join(work.path, 'cache-fresh');
      const channel = parseChannel(`${fresh.url}/conda-forge-py39`);
      const first = new RepodataStore({ cacheDir });
      await first.prepare([channel], ['noarch'], []);
      await first.close();
      const requests = fresh.log.length;
      const second = new RepodataStore({ cacheDir });
      const [index] = await second.prepare([channel], ['noarch'], []);
      await second.close();
      expect(fresh.log.length).toBe(requests);
      expect(index!.recordCount).toBe(205);
    } finally {
      await fresh.close();
    }
  });
});
