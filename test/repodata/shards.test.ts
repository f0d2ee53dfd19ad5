/**
 * Sharded repodata (CEP 16): only the shards a solve can reach are fetched, each is cached by its
 * hash, a damaged or mismatching shard is never used, URLs inside the shard index obey the channel
 * policy, and both hash conventions (compressed, as rattler-index writes; decompressed, as
 * conda-index writes) are read.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShardNotLoadedError } from '../../repodata/fetch-errors.js';
import { dependencyName } from '../../repodata/sharded/closure.js';
import { decodeShardIndex, resolveShardUrls } from '../../repodata/sharded/shard-index.js';
import { ShardedSubdirIndex } from '../../repodata/sharded/sharded-subdir.js';
import { RepodataStore } from '../../repodata/store.js';
import type { SubdirIndex } from '../../repodata/types.js';
import { zstdCompress, zstdDecompress } from '../../repodata/zstd.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { shardChannel } from '../tools/shard-channel.js';
import { reviveIndex, shareIndex } from '../../src/solving/shared-index.js';
import { allRecords, tempDir } from './store-helpers.js';

describe('dependencyName', () => {
  it.each([
    ['python >=3.9,<3.10.0a0', 'python'],
    ['libgcc-ng >=12', 'libgcc-ng'],
    ['python_abi 3.9.* *_cp39', 'python_abi'],
    ['tzdata', 'tzdata'],
    ['numpy>=1.21', 'numpy'],
    ["numpy[version='>=1.21']", 'numpy'],
    ['__glibc >=2.17', '__glibc'],
    ['conda-forge::numpy >=1.2', 'numpy'],
    ['conda-forge/linux-64::numpy', 'numpy'],
  ])('%s -> %s', (spec, name) => {
    expect(dependencyName(spec)).toBe(name);
  });
});

describe('shard index', () => {
  const info = (baseUrl: string | null, shardsBaseUrl: string | null) => ({ baseUrl, shardsBaseUrl, subdir: 'linux-64', createdAt: null });
  const indexUrl = 'https://h/ch/linux-64/repodata_shards.msgpack.zst';

  it('resolves relative, absolute and empty bases against the index URL, as directories', () => {
    expect(resolveShardUrls(info('', './shards/'), indexUrl, 'ch', 'linux-64')).toEqual({
      packageBase: 'https://h/ch/linux-64/',
      shardsBase: 'https://h/ch/linux-64/shards/',
    });
    expect(resolveShardUrls(info('https://cdn/pkgs/linux-64', 'https://cdn/shards'), indexUrl, 'ch', 'linux-64')).toEqual({
      packageBase: 'https://cdn/pkgs/linux-64/',
      shardsBase: 'https://cdn/shards/',
    });
    expect(resolveShardUrls(info(null, '../shards'), indexUrl, 'ch', 'linux-64').shardsBase).toBe('https://h/ch/shards/');
  });

  it('reads the usual layout and any other valid msgpack the same way', () => {
    const hash = (n: number): Uint8Array => new Uint8Array(32).fill(n);
    const hex = (n: number): string => Buffer.from(hash(n)).toString('hex');
    // The layout writers produce (raw 32-byte hashes), with extra keys and a non-ASCII name.
    const usual = decodeShardIndex(
      encode({
        version: 1,
        info: { base_url: './', shards_base_url: './shards/', subdir: 'noarch', extra: [1, { a: null }] },
        shards: { numpy: hash(1), päckage: hash(2) },
        removed: [],
      }),
      'ch',
      'noarch',
    );
    // Hashes as hex strings: not what CEP 16 says, but read.
    const other = decodeShardIndex(
      encode({ shards: { numpy: hex(1), päckage: hex(2).toUpperCase() }, info: { subdir: 'noarch' } }),
      'ch',
      'noarch',
    );
    for (const index of [usual, other]) {
      expect([...index.shards.keys()].sort()).toEqual(['numpy', 'päckage']);
      expect(index.shards.get('numpy')).toBe(hex(1));
      expect(index.shards.get('päckage')).toBe(hex(2));
      expect(index.shards.get('scipy')).toBeUndefined();
      expect(index.info.subdir).toBe('noarch');
    }
    expect(usual.info).toMatchObject({ baseUrl: './', shardsBaseUrl: './shards/' });
  });

  it('rejects an index that is not a CEP 16 index', async () => {
    expect(() => decodeShardIndex(encode({ shards: { numpy: new Uint8Array(5) } }), 'ch', 'linux-64')).toThrow(/invalid hash for "numpy"/);
    expect(() => decodeShardIndex(encode([1, 2]), 'ch', 'linux-64')).toThrow(CondaResolveError);
    expect(() => decodeShardIndex(new Uint8Array([0xc1]), 'ch', 'linux-64')).toThrow(/not valid msgpack/);
  });
});

/** Names reachable from `roots` through `depends`, computed on the monolithic indexes. */
function closure(indexes: SubdirIndex[], roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const index of indexes) for (const r of index.records(name)) for (const d of r.depends) queue.push(d.split(/[\s=<>!]/)[0]!);
  }
  return seen;
}

describeShared('sharded channels', () => {
  const work = tempDir('shards');
  const source = join(CHANNELS_DIR, 'conda-forge-py39');
  let server: ChannelServer;
  let monolithic: SubdirIndex[];

  beforeAll(async () => {
    await shardChannel({ source, out: join(work.path, 'www', 'cf'), subdirs: ['linux-64', 'noarch'] });
    await shardChannel({ source, out: join(work.path, 'www', 'cf-decompressed'), subdirs: ['linux-64', 'noarch'], hash: 'decompressed' });
    server = await startChannelServer({ root: join(work.path, 'www') });
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-mono') });
    monolithic = await store.prepare([parseChannel(source)], ['linux-64', 'noarch'], []);
    await store.close();
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  const shardRequests = (): string[] => server.log.filter((e) => e.path.includes('/shards/')).map((e) => e.path);

  it('fetches exactly the shards of the names reachable from the roots, in both subdirs', async () => {
    server.log.length = 0;
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-closure') });
    const indexes = await store.prepare([parseChannel(`${server.url}/cf`)], ['linux-64', 'noarch'], ['python']);
    await store.close();
    const reachable = closure(monolithic, ['python']);
    const expected = indexes.flatMap((index) => [...reachable].filter((name) => index.has(name)).map((name) => `${index.subdir}:${name}`));
    const fetched = indexes.flatMap((index) => [...(index as ShardedSubdirIndex).loadedNames()].map((name) => `${index.subdir}:${name}`));
    expect(fetched.sort()).toEqual(expected.sort());
    expect(shardRequests()).toHaveLength(expected.length);
    // Everything reachable reads synchronously, with the same records as the monolithic file.
    for (const [s, index] of indexes.entries()) {
      for (const name of reachable) {
        expect(index.records(name).map((r) => r.fn)).toEqual(monolithic[s]!.records(name).map((r) => r.fn));
      }
    }
    // An unreachable name was not fetched, and says so instead of answering "no records".
    const unreachable = [...indexes[0]!.names()].find((name) => !reachable.has(name))!;
    expect(() => indexes[0]!.records(unreachable)).toThrow(ShardNotLoadedError);
    // Worker threads get the fetched records as a plain snapshot.
    const revived = reviveIndex(structuredClone(shareIndex(indexes[0]!)));
    expect([...revived.names()].sort()).toEqual([...reachable].filter((n) => indexes[0]!.has(n)).sort());
    expect(revived.records('python')).toEqual(indexes[0]!.records('python'));
  });

  it('caches shards by hash: a second process fetches only the (revalidated) shard index', async () => {
    const cacheDir = join(work.path, 'cache-reuse');
    const channel = parseChannel(`${server.url}/cf`);
    const first = new RepodataStore({ cacheDir, ttlSeconds: 0 });
    await first.prepare([channel], ['linux-64', 'noarch'], ['python']);
    await first.close();
    server.log.length = 0;
    const second = new RepodataStore({ cacheDir, ttlSeconds: 0 });
    const indexes = await second.prepare([channel], ['linux-64', 'noarch'], ['python']);
    await second.close();
    expect(shardRequests()).toEqual([]);
    expect(server.log.map((e) => [e.path, e.status]).sort()).toEqual([
      ['/cf/linux-64/repodata_shards.msgpack.zst', 304],
      ['/cf/noarch/repodata_shards.msgpack.zst', 304],
    ]);
    expect(indexes[0]!.records('python').length).toBeGreaterThan(0);
  });

  it('reads shards hashed over their decompressed bytes (conda-index) the same way', async () => {
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-decompressed') });
    const [linux] = await store.prepare([parseChannel(`${server.url}/cf-decompressed`)], ['linux-64'], ['python']);
    await store.close();
    expect(linux!.records('python').map((r) => r.fn)).toEqual(monolithic[0]!.records('python').map((r) => r.fn));
  });

  it('refuses a shard whose bytes do not match its hash, and does not cache it', async () => {
    const cacheDir = join(work.path, 'cache-bad-shard');
    server.intercept = (req, res) => {
      if (!req.url?.includes('/shards/')) return false;
      const path = join(work.path, 'www', decodeURIComponent(new URL(req.url, 'http://x').pathname));
      const bytes = readFileSync(path);
      res.writeHead(200).end(Buffer.concat([bytes.subarray(0, -1), Buffer.from([bytes.at(-1)! ^ 1])]));
      return true;
    };
    try {
      const store = new RepodataStore({ cacheDir });
      const error = await store.prepare([parseChannel(`${server.url}/cf`)], ['linux-64'], ['python']).catch((e: unknown) => e);
      await store.close();
      expect(error).toBeInstanceOf(CondaResolveError);
      expect((error as CondaResolveError).code).toBe('CR_ERR_REPODATA_CORRUPT');
      expect((error as Error).message).toMatch(
        new RegExp(`^Cannot fetch repodata for ${server.url}/cf/linux-64: the shard of "python" does not match its hash`),
      );
      expect(readdirSync(join(cacheDir, 'shards'))).toEqual(['CACHEDIR.TAG']); // the cache's marker only
    } finally {
      server.intercept = undefined;
    }
  });

  it('replaces a damaged cached shard instead of using it', async () => {
    const cacheDir = join(work.path, 'cache-damaged-shard');
    const channel = parseChannel(`${server.url}/cf`);
    const first = new RepodataStore({ cacheDir });
    await first.prepare([channel], ['linux-64'], ['python']);
    await first.close();
    const shardsDir = join(cacheDir, 'shards');
    const shardFiles = () => readdirSync(shardsDir).filter((file) => file !== 'CACHEDIR.TAG');
    for (const file of shardFiles()) writeFileSync(join(shardsDir, file), 'garbage');
    server.log.length = 0;
    const second = new RepodataStore({ cacheDir });
    const [linux] = await second.prepare([channel], ['linux-64'], ['python']);
    await second.close();
    expect(linux!.records('python').length).toBe(monolithic[0]!.records('python').length);
    expect(shardRequests().length).toBeGreaterThan(0);
    for (const file of shardFiles()) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(shardsDir, file)))
          .digest('hex'),
      ).toBe(file.replace('.msgpack.zst', ''));
    }
  });

  it('asks the channel policy about every URL, including shards_base_url and base_url from the index', async () => {
    // An index whose shards live elsewhere: the policy must see (and here refuse) that host.
    const dir = join(work.path, 'www', 'cf-elsewhere', 'linux-64');
    await shardChannel({ source, out: join(work.path, 'www', 'cf-elsewhere'), subdirs: ['linux-64'] });
    const indexPath = join(dir, 'repodata_shards.msgpack.zst');
    const index = decode(await zstdDecompress(readFileSync(indexPath))) as { info: Record<string, unknown> };
    index.info.shards_base_url = 'http://10.1.2.3/shards/';
    writeFileSync(indexPath, await zstdCompress(encode(index)));

    const seen: string[] = [];
    const checkUrl = (url: URL): boolean => {
      seen.push(url.href);
      return url.hostname !== '10.1.2.3';
    };
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-policy'), checkUrl });
    const error = await store.prepare([parseChannel(`${server.url}/cf-elsewhere`)], ['linux-64'], ['python']).catch((e: unknown) => e);
    await store.close();
    expect((error as CondaResolveError).code).toBe('CR_ERR_REPODATA_URL_REFUSED');
    expect((error as Error).message).toContain('http://10.1.2.3/shards/');
    expect(seen).toContain(`${server.url}/cf-elsewhere/linux-64/repodata_shards.msgpack.zst`);
    expect(seen).toContain(`${server.url}/cf-elsewhere/linux-64/`);
    expect(server.log.some((e) => e.path.includes('/cf-elsewhere/') && e.path.includes('/shards/'))).toBe(false);
  });

  it('follows redirects only where the policy allows', async () => {
    server.intercept = (req, res) => {
      if (!req.url?.startsWith('/moved/')) return false;
      res.writeHead(302, { location: req.url.replace('/moved/', '/cf/') }).end();
      return true;
    };
    try {
      const seen: string[] = [];
      const store = new RepodataStore({ cacheDir: join(work.path, 'cache-redirect'), checkUrl: (url) => void seen.push(url.pathname) });
      const [linux] = await store.prepare([parseChannel(`${server.url}/moved`)], ['linux-64'], ['python']);
      await store.close();
      expect(seen).toContain('/moved/linux-64/repodata_shards.msgpack.zst');
      expect(seen).toContain('/cf/linux-64/repodata_shards.msgpack.zst');
      expect(linux!.records('python').length).toBeGreaterThan(0);

      const refusing = new RepodataStore({
        cacheDir: join(work.path, 'cache-redirect-refused'),
        checkUrl: (url) => !url.pathname.startsWith('/cf/'),
      });
      const error = await refusing.prepare([parseChannel(`${server.url}/moved`)], ['linux-64'], ['python']).catch((e: unknown) => e);
      await refusing.close();
      expect((error as CondaResolveError).code).toBe('CR_ERR_REPODATA_URL_REFUSED');
    } finally {
      server.intercept = undefined;
    }
  });

  it('gives the whole subdir the same records as the monolithic file once every shard is fetched', async () => {
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache-all') });
    const indexes = await store.prepare([parseChannel(`${server.url}/cf`)], ['linux-64', 'noarch'], []);
    try {
      for (const [s, index] of indexes.entries()) {
        await (index as ShardedSubdirIndex).prefetch(index.names());
        expect(allRecords(index)).toEqual(allRecords(monolithic[s]!));
      }
    } finally {
      await store.close();
    }
  });
});
