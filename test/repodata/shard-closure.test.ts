/**
 * The cold sharded path on a small synthetic channel: the shards of names found together are asked
 * for together (up to the store's connection pool), a large closure prints no listener-leak warning,
 * the shard index's name table answers like a map (repeated names, non-ASCII names, absent names),
 * the walk goes on to the next level while the shards it has are still being written to the
 * cache (and completes only once they are written), and a shard checked once before caching is
 * still refused under another hash.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '@msgpack/msgpack';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardClosures } from '../../repodata/sharded/closure.js';
import { decodeShardIndex } from '../../repodata/sharded/shard-index.js';
import { ShardedSubdirIndex, type ShardFetcher } from '../../repodata/sharded/sharded-subdir.js';
import { decodeShard, shardMatchesHash } from '../../repodata/sharded/shard.js';
import { recordContext } from '../../repodata/record-normalise.js';
import { RepodataStore } from '../../repodata/store.js';
import { zstdCompress } from '../../repodata/zstd.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { shardChannel } from '../tools/shard-channel.js';
import { tempDir } from './store-helpers.js';

/** `app` depends on WIDTH leaves, each of which depends on `base`: three levels. */
const WIDTH = 16;
const leaves = Array.from({ length: WIDTH }, (_, i) => `leaf${i}`);

function record(name: string, depends: string[]): Record<string, unknown> {
  return { name, version: '1.0', build: '0', build_number: 0, depends, subdir: 'linux-64', md5: '0'.repeat(32), size: 1 };
}

describe('the shard closure over HTTP', () => {
  const work = tempDir('shard-closure');
  let server: ChannelServer;

  beforeAll(async () => {
    const source = join(work.path, 'source');
    const packages: Record<string, unknown> = {
      'app-1.0-0.tar.bz2': record(
        'app',
        leaves.map((leaf) => `${leaf} >=1`),
      ),
      'base-1.0-0.tar.bz2': record('base', []),
    };
    for (const leaf of leaves) packages[`${leaf}-1.0-0.tar.bz2`] = record(leaf, ['base']);
    mkdirSync(join(source, 'linux-64'), { recursive: true });
    writeFileSync(join(source, 'linux-64', 'repodata.json'), JSON.stringify({ info: { subdir: 'linux-64' }, packages }));
    await shardChannel({ source, out: join(work.path, 'www', 'ch'), subdirs: ['linux-64'] });
    server = await startChannelServer({ root: join(work.path, 'www') });
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  it('asks for the shards of one level together, as many at once as the pool allows, with no listener warning', async () => {
    const pool = 6;
    let inFlight = 0;
    let most = 0;
    // After the root's shard, shard requests are held until `pool` of them are waiting at once,
    // then all go: a client asking one shard after another would never get there (the fallback
    // only ends the test).
    let shards = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const fallback = setTimeout(open, 10_000);
    server.intercept = async (req) => {
      if (!req.url?.includes('/shards/') || shards++ === 0) return false;
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (inFlight >= pool) open();
      await gate;
      inFlight -= 1;
      return false;
    };
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-gate'), concurrency: pool });
    try {
      const indexes = await store.prepare([parseChannel(`${server.url}/ch`)], ['linux-64'], ['app'], {
        signal: new AbortController().signal,
      });
      expect(indexes[0]!.records('base')).toHaveLength(1);
      for (const leaf of leaves) expect(indexes[0]!.records(leaf)).toHaveLength(1);
    } finally {
      clearTimeout(fallback);
      server.intercept = undefined;
      process.off('warning', onWarning);
      await store.close();
    }
    expect(most).toBe(pool);
    // Node prints MaxListenersExceededWarning past 10 listeners on one signal; 16 shards waited at once.
    expect(warnings).toEqual([]);
    const shardRequests = server.log.filter((e) => e.path.includes('/shards/'));
    expect(shardRequests).toHaveLength(WIDTH + 2);
  });
});

describe('the shard index name table', () => {
  const hash = (n: number): Uint8Array => new Uint8Array(32).fill(n);
  const hex = (n: number): string => Buffer.from(hash(n)).toString('hex');

  it('answers like a map built from the same entries, for any names', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }), fc.integer({ min: 0, max: 255 })), {
          maxLength: 200,
        }),
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 20 }),
        (entries, probes) => {
          // A msgpack map written entry by entry, repeats included (encode() would drop them).
          const expected = new Map<string, string>();
          const body: Uint8Array[] = [];
          for (const [name, n] of entries) {
            expected.set(name, hex(n));
            body.push(encode(name), new Uint8Array([0xc4, 32]), hash(n));
          }
          const count = entries.length;
          const bytes = Buffer.concat([
            new Uint8Array([0x82]),
            encode('info'),
            encode({ subdir: 'linux-64' }),
            encode('shards'),
            new Uint8Array([0xde, count >> 8, count & 0xff]),
            ...body,
          ]);
          const index = decodeShardIndex(bytes, 'ch', 'linux-64');
          expect(index.shards.size).toBe(expected.size);
          expect(new Set(index.shards.keys())).toEqual(new Set(expected.keys()));
          for (const name of [...expected.keys(), ...probes]) {
            expect(index.shards.has(name)).toBe(expected.has(name));
            expect(index.shards.get(name)).toBe(expected.get(name));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a map that claims more entries than its bytes can hold', () => {
    const bytes = Buffer.concat([new Uint8Array([0x81]), encode('shards'), new Uint8Array([0xdf, 0xff, 0xff, 0xff, 0xff])]);
    expect(() => decodeShardIndex(bytes, 'ch', 'linux-64')).toThrow(/not valid msgpack|shards/);
  });
});

describe('a shard checked before caching', () => {
  it('is still refused when decoded under another hash', async () => {
    const raw = encode({ packages: { 'a-1.0-0.tar.bz2': record('a', []) } });
    const compressed = await zstdCompress(raw, 3);
    const good = createHash('sha256').update(compressed).digest('hex');
    const other = createHash('sha256').update('something else').digest('hex');
    const context = recordContext(
      { channel: { name: 'ch', baseUrl: 'https://h/ch' }, subdir: 'linux-64' },
      { subdir: 'linux-64', baseUrl: 'https://h/ch/linux-64/', repodataVersion: 2, removed: [] },
    );
    const where = { channel: 'ch', subdir: 'linux-64' };
    expect(await shardMatchesHash(compressed, good)).toBe(true);
    await expect(decodeShard(compressed, other, 'a', context, where)).rejects.toThrow(/does not match its hash/);
    expect(await shardMatchesHash(compressed, good)).toBe(true);
    expect((await decodeShard(compressed, good, 'a', context, where)).map((r) => r.fn)).toEqual(['a-1.0-0.tar.bz2']);
  });
});

describe('cache writes during the closure walk', () => {
  /** A one-subdir sharded index over `app -> leaf`, served by `fetchShard`. */
  async function appAndLeaf(fetchShard: (name: string, bytes: Uint8Array) => ReturnType<ShardFetcher>): Promise<ShardedSubdirIndex> {
    const shards: Record<string, Uint8Array> = {};
    const hashes: Record<string, Uint8Array> = {};
    for (const [name, depends] of [
      ['app', ['leaf']],
      ['leaf', []],
    ] as const) {
      shards[name] = await zstdCompress(encode({ packages: { [`${name}-1.0-0.tar.bz2`]: record(name, [...depends]) } }), 3);
      hashes[name] = createHash('sha256').update(shards[name]!).digest();
    }
    const index = decodeShardIndex(encode({ info: { subdir: 'linux-64' }, shards: hashes }), 'ch', 'linux-64');
    return new ShardedSubdirIndex({
      channel: { name: 'ch', baseUrl: 'https://h/ch' },
      subdir: 'linux-64',
      index,
      packageBase: 'https://h/ch/linux-64/',
      fetchShard: async (_sha256, name) => fetchShard(name, shards[name]!),
    });
  }

  it("asks for the next level before the last level's shards are written, and completes once they are", async () => {
    const events: string[] = [];
    let releaseApp!: () => void;
    const appWritten = new Promise<void>((resolve) => (releaseApp = resolve));
    const index = await appAndLeaf(async (name, bytes) => {
      events.push(`fetch ${name}`);
      // The leaf is asked for while the app's shard is still being written (a walk that waited
      // for the write would never get here).
      if (name === 'leaf') releaseApp();
      const saved = name === 'app' ? appWritten.then(() => void events.push('app written')) : Promise.resolve();
      return { bytes, fromCache: false, saved };
    });
    await new ShardClosures().complete([index], ['app'], undefined);
    expect(events).toEqual(['fetch app', 'fetch leaf', 'app written']);
    expect(index.records('leaf')).toHaveLength(1);
  });

  it('fails the closure when a shard cannot be written to the cache', async () => {
    const index = await appAndLeaf(async (name, bytes) => ({
      bytes,
      fromCache: false,
      saved: name === 'leaf' ? Promise.reject(new Error('disk full')) : Promise.resolve(),
    }));
    await expect(new ShardClosures().complete([index], ['app'], undefined)).rejects.toThrow('disk full');
  });
});
