/**
 * Local channels (a folder or `file://`) keep a persisted name index in the cache directory, as
 * downloaded ones do: the records are the same as an eager parse of the file; a second run reuses
 * the index; a changed file gets a new one (the old is deleted); the channel folder is never
 * written to; a `.zst`-only subdir and a CEP 16 sharded layout are read from the folder too.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexRepodata } from '../../repodata/monolithic.js';
import { ShardedSubdirIndex } from '../../repodata/sharded/sharded-subdir.js';
import { RepodataStore } from '../../repodata/store.js';
import type { SubdirIndex } from '../../repodata/types.js';
import { zstdCompress } from '../../repodata/zstd.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { generateChannel } from '../../bench/generate-channel.js';
import { shardChannel } from '../tools/shard-channel.js';
import { allRecords, recordCacheSaved, snapshotDir, tempDir } from './store-helpers.js';

const DEMO = join(import.meta.dirname, '..', '..', 'fixtures', 'channels', 'demo');
const SUBDIRS = ['linux-64', 'noarch'];

describe('local channels keep a name index in the cache', () => {
  const work = tempDir('local-index');
  afterAll(() => work.remove());

  async function load(channelDir: string, cacheDir: string, indexBytes: 'memory' | 'positional' = 'positional'): Promise<SubdirIndex[]> {
    const store = new RepodataStore({ cacheDir, indexBytes });
    try {
      const indexes = await store.prepare([parseChannel(channelDir)], SUBDIRS, []);
      for (const index of indexes) if (index instanceof ShardedSubdirIndex) await index.prefetch(index.names());
      return indexes;
    } finally {
      await store.close();
    }
  }

  function eager(channelDir: string, subdir: string): SubdirIndex {
    const bytes = readFileSync(join(channelDir, subdir, 'repodata.json'));
    return indexRepodata(new Uint8Array(bytes), { channel: { name: 'x', baseUrl: 'file:///x' }, subdir });
  }

  it('indexes once, reuses the sidecar, and gives the records an eager parse gives', async () => {
    const channel = join(work.path, 'plain');
    cpSync(DEMO, channel, { recursive: true });
    const before = snapshotDir(channel);
    const cache = join(work.path, 'cache-plain');

    const first = await load(channel, cache);
    const sidecars = readdirSync(join(cache, 'local')).filter((f) => f.endsWith('.index'));
    expect(sidecars).toHaveLength(2);
    const written = new Map(sidecars.map((f) => [f, statSync(join(cache, 'local', f)).mtimeMs]));

    const second = await load(channel, cache);
    // Not rewritten: the second run read the sidecars it found.
    expect(new Map(sidecars.map((f) => [f, statSync(join(cache, 'local', f)).mtimeMs]))).toEqual(written);
    SUBDIRS.forEach((subdir, i) => {
      const expected = allRecords(eager(channel, subdir));
      for (const index of [first[i]!, second[i]!]) {
        const got = allRecords(index);
        expect([...got.keys()]).toEqual([...expected.keys()]);
        for (const [name, records] of got)
          expect(records.map((r) => [r.fn, r.version, r.build, r.depends])).toEqual(
            expected.get(name)!.map((r) => [r.fn, r.version, r.build, r.depends]),
          );
      }
    });
    // The channel folder is read, never written (a read-only mirror works).
    expect(snapshotDir(channel)).toEqual(before);
  });

  it('keeps the records a run read beside the sidecar, for the runs after it', async () => {
    const channel = join(work.path, 'records');
    cpSync(DEMO, channel, { recursive: true });
    const cache = join(work.path, 'cache-records');
    const first = await load(channel, cache); // scans, writes the sidecars
    const expected = first.map((index) => allRecords(index));
    await recordCacheSaved();
    const kept = () => readdirSync(join(cache, 'local')).filter((f) => f.endsWith('.index.records'));
    expect(kept()).toHaveLength(2);
    const warm = await load(channel, cache);
    expect(warm.map((index) => allRecords(index))).toEqual(expected);
    // The next run keeps them (only older versions' files are deleted) and reads the same records.
    const again = await load(channel, cache);
    expect(kept()).toHaveLength(2);
    expect(again.map((index) => allRecords(index))).toEqual(expected);
  });

  it('a changed repodata.json is indexed again; the old sidecar is deleted', async () => {
    const channel = join(work.path, 'changing');
    cpSync(DEMO, channel, { recursive: true });
    const cache = join(work.path, 'cache-changing');
    await load(channel, cache);
    const old = readdirSync(join(cache, 'local')).sort();

    // Same names, one version changed: the new record must show (a stale index would point at old spans).
    const path = join(channel, 'linux-64', 'repodata.json');
    const text = readFileSync(path, 'utf8');
    const changed = text.replace('"version": "3.12.3"', '"version": "3.12.30"');
    expect(changed).not.toBe(text);
    writeFileSync(path, changed);

    const [linux] = await load(channel, cache);
    expect(linux!.records('python').map((r) => r.version)).toContain('3.12.30');
    const now = readdirSync(join(cache, 'local')).sort();
    expect(now).toHaveLength(old.length);
    expect(now.filter((f) => !old.includes(f))).toHaveLength(1);
  });

  it('a long-lived store looks at a local file at most once a second, and then sees a change', async () => {
    const channel = join(work.path, 'recheck');
    cpSync(DEMO, channel, { recursive: true });
    let clock = 1_000_000;
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-recheck'), indexBytes: 'positional', now: () => clock });
    try {
      const first = await store.load(parseChannel(channel), 'linux-64');
      const path = join(channel, 'linux-64', 'repodata.json');
      writeFileSync(path, readFileSync(path, 'utf8').replace('"version": "3.12.3"', '"version": "3.12.31"'));
      clock += 500;
      expect(await store.load(parseChannel(channel), 'linux-64')).toBe(first);
      clock += 600;
      const later = await store.load(parseChannel(channel), 'linux-64');
      expect(later).not.toBe(first);
      expect(later!.records('python').map((r) => r.version)).toContain('3.12.31');
    } finally {
      await store.close();
    }
  });

  it('a truncated repodata.json is a corrupt-repodata error said once', async () => {
    const channel = join(work.path, 'truncated');
    cpSync(DEMO, channel, { recursive: true });
    const path = join(channel, 'linux-64', 'repodata.json');
    writeFileSync(path, readFileSync(path).subarray(0, 3000));
    for (const indexBytes of ['positional', 'memory'] as const) {
      const store = new RepodataStore({ cacheDir: join(work.path, `cache-truncated-${indexBytes}`), indexBytes });
      try {
        const error = await store.load(parseChannel(channel), 'linux-64').then(
          () => null,
          (e: unknown) => e as Error & { code: string },
        );
        expect(error?.code).toBe('CR_ERR_REPODATA_CORRUPT');
        expect(error!.message).toMatch(/^Cannot fetch repodata for file:.*linux-64: the JSON ends unexpectedly/);
        expect(error!.message).not.toContain('Cannot parse repodata');
      } finally {
        await store.close();
      }
    }
  });

  it('a .zst-only subdir with broken JSON or broken zstd data is a corrupt-repodata error, leaving nothing in the cache', async () => {
    const cases: Array<[string, () => Promise<Uint8Array>, RegExp]> = [
      [
        'json',
        async () => zstdCompress(Buffer.from('{"packages": {"a-1-0.tar.bz2": {"name": "a"},, "b": 1}}')),
        /linux-64: invalid JSON at byte 45 \(line 1, column 46\): expected a file name in "packages"/,
      ],
      [
        'zstd',
        async () => (await zstdCompress(readFileSync(join(DEMO, 'linux-64', 'repodata.json')))).subarray(0, 200),
        /linux-64: bad zstd data in repodata.json.zst/,
      ],
    ];
    for (const [name, bytes, message] of cases) {
      const channel = join(work.path, `zst-broken-${name}`);
      mkdirSync(join(channel, 'linux-64'), { recursive: true });
      writeFileSync(join(channel, 'linux-64', 'repodata.json.zst'), await bytes());
      const cacheDir = join(work.path, `cache-zst-broken-${name}`);
      const store = new RepodataStore({ cacheDir });
      try {
        const error = await store.load(parseChannel(channel), 'linux-64').then(
          () => null,
          (e: unknown) => e as Error & { code: string },
        );
        expect(error?.code).toBe('CR_ERR_REPODATA_CORRUPT');
        expect(error!.message).toMatch(message);
        expect(readdirSync(join(cacheDir, 'local'))).toEqual(['CACHEDIR.TAG']); // the cache's marker only
      } finally {
        await store.close();
      }
    }
  });

  it('memory mode (the server) gives the same records from the sidecar', async () => {
    const cache = join(work.path, 'cache-memory');
    const positional = await load(DEMO, cache, 'positional');
    const memory = await load(DEMO, cache, 'memory');
    SUBDIRS.forEach((_, i) => expect(allRecords(memory[i]!)).toEqual(allRecords(positional[i]!)));
  });

  it('reads a .zst-only subdir of many zstd blocks: each read of the file decodes to several pieces, all kept', async () => {
    // ~3,000 records: a 1.6 MB repodata.json, several 128 kB zstd blocks in each 256 kB read. The
    // native decoder handed out pieces of one read in a reused block and wrote each over the one
    // before: the index then read garbage ('invalid JSON at byte 7').
    const plain = join(work.path, 'blocks-plain');
    generateChannel({ out: plain, records: 3_000, names: 200, noarchRecords: 300, noarchNames: 30, seed: 5 });
    const zst = join(work.path, 'blocks-zst');
    await shardChannel({ source: plain, out: zst, subdirs: SUBDIRS, shards: false, zst: true });
    expect(statSync(join(plain, 'linux-64', 'repodata.json')).size).toBeGreaterThan(1 << 20);
    const expected = await load(plain, join(work.path, 'cache-blocks-plain'));
    const fromZst = await load(zst, join(work.path, 'cache-blocks-zst'));
    const strip = (m: Map<string, unknown[]>) => new Map([...m].map(([name, records]) => [name, records.map((r) => JSON.stringify(r))]));
    SUBDIRS.forEach((_, i) => expect(strip(allRecords(fromZst[i]!))).toEqual(strip(allRecords(expected[i]!))));
  });

  it('reads a .zst-only subdir and a sharded (CEP 16) layout from the folder', async () => {
    const zst = join(work.path, 'zst');
    const sharded = join(work.path, 'sharded');
    await shardChannel({ source: DEMO, out: zst, subdirs: SUBDIRS, shards: false, zst: true });
    await shardChannel({ source: DEMO, out: sharded, subdirs: SUBDIRS });
    const plain = await load(DEMO, join(work.path, 'cache-ref'));
    const fromZst = await load(zst, join(work.path, 'cache-zst'));
    const fromShards = await load(sharded, join(work.path, 'cache-shards'));
    expect(fromShards.every((index) => index instanceof ShardedSubdirIndex)).toBe(true);
    SUBDIRS.forEach((_, i) => {
      const expected = allRecords(plain[i]!);
      const strip = (m: Map<string, unknown[]>) => new Map([...m].map(([name, records]) => [name, records.map((r) => JSON.stringify(r))]));
      expect(strip(allRecords(fromZst[i]!))).toEqual(strip(expected));
      expect([...allRecords(fromShards[i]!).keys()]).toEqual([...expected.keys()]);
      for (const [name, records] of allRecords(fromShards[i]!)) {
        expect(records.map((r) => [r.fn, r.version, r.build, r.depends])).toEqual(
          expected.get(name)!.map((r) => [r.fn, r.version, r.build, r.depends]),
        );
      }
    });
  });
});
