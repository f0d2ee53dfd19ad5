/**
 * The store as a long-running process and its users see it: freshness follows the store's clock
 * (no sleeping), a 304 keeps the very index object, concurrent callers share one download, a caller
 * that gives up does not fail the others, missing subdirs and missing channels, the policy sees
 * `base_url` from inside repodata, and credentials reach the server but nothing else.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ChannelNotFoundError,
  RepodataOfflineError,
  RepodataStoreClosedError,
  RepodataUrlRefusedError,
} from '../../repodata/fetch-errors.js';
import { ShardedSubdirIndex } from '../../repodata/sharded/sharded-subdir.js';
import { RepodataStore } from '../../repodata/store.js';
import type { LoadProgressEvent } from '../../repodata/types.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { shardChannel } from '../tools/shard-channel.js';
import { deferred, tempDir } from './store-helpers.js';

const PY39 = join(CHANNELS_DIR, 'conda-forge-py39');
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A small channel of our own: the py39 noarch records, optionally cut to `keep` and with an `info` block. */
function writeChannel(root: string, options: { keep?: number; info?: Record<string, unknown> } = {}): void {
  const document = JSON.parse(readFileSync(join(PY39, 'noarch', 'repodata.json'), 'utf8')) as Record<string, unknown>;
  const packages = Object.entries(document.packages as Record<string, unknown>);
  const out = {
    ...(options.info ? { info: { subdir: 'noarch', ...options.info } } : { info: { subdir: 'noarch' } }),
    packages: Object.fromEntries(packages.slice(0, options.keep ?? packages.length)),
    'packages.conda': options.keep === undefined ? document['packages.conda'] : {},
    repodata_version: 1,
  };
  mkdirSync(join(root, 'noarch'), { recursive: true });
  writeFileSync(join(root, 'noarch', 'repodata.json'), JSON.stringify(out, null, 1));
}

/** Every file name and content under `dir`, as text (binary bytes read as latin1). */
function everythingUnder(dir: string): string {
  const parts: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      parts.push(path);
      if (statSync(path).isDirectory()) walk(path);
      else parts.push(readFileSync(path).toString('latin1'));
    }
  };
  walk(dir);
  return parts.join('\n');
}

describeShared('the repodata store', () => {
  const work = tempDir('store');
  let server: ChannelServer;

  beforeAll(async () => {
    // No Cache-Control: the store's default TTL decides.
    server = await startChannelServer({ root: CHANNELS_DIR });
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  it('follows its clock: fresh for the TTL, then one conditional request whose 304 keeps the same index', async () => {
    let clock = T0;
    const options = { cacheDir: join(work.path, 'clock'), ttlSeconds: 60, now: () => clock };
    const channel = parseChannel(`${server.url}/conda-forge-py39`);
    const store = new RepodataStore(options);
    server.log.length = 0;
    const [first] = await store.prepare([channel], ['noarch'], []);
    expect(server.log.map((e) => [e.path.split('/').pop(), e.status])).toEqual([
      ['repodata_shards.msgpack.zst', 404],
      ['repodata.json.zst', 404],
      ['repodata.json', 200],
    ]);
    const etag = server.log[2]!.headers;
    expect(etag['if-none-match']).toBeUndefined();

    server.log.length = 0;
    clock += 59_000;
    const [fresh] = await store.prepare([channel], ['noarch'], []);
    expect(fresh).toBe(first);
    expect(server.log).toEqual([]);

    clock += 2_000;
    const [revalidated] = await store.prepare([channel], ['noarch'], []);
    expect(revalidated).toBe(first);
    expect(server.log.map((e) => [e.path.split('/').pop(), e.status])).toEqual([['repodata.json', 304]]);
    expect(server.log[0]!.headers['if-none-match']).toMatch(/^"[0-9a-f]+"$/);
    expect(server.log[0]!.headers['if-modified-since']).toBeDefined();
    await store.close();

    // The 304 renewed the entry on disk too: a new process at the same moment asks nothing.
    server.log.length = 0;
    const next = new RepodataStore(options);
    const [fromDisk] = await next.prepare([channel], ['noarch'], []);
    expect(fromDisk!.recordCount).toBe(205);
    expect(server.log).toEqual([]);

    // A day later the channel is asked again whether it serves shards, before the conditional request.
    clock += 25 * 60 * 60 * 1000;
    await next.prepare([channel], ['noarch'], []);
    expect(server.log.map((e) => [e.path.split('/').pop(), e.status])).toEqual([
      ['repodata_shards.msgpack.zst', 404],
      ['repodata.json', 304],
    ]);
    await next.close();
  });

  it("lets the server's max-age win over the default TTL", async () => {
    const longLived = await startChannelServer({ root: CHANNELS_DIR, maxAge: 600 });
    try {
      let clock = T0;
      const store = new RepodataStore({ cacheDir: join(work.path, 'max-age'), ttlSeconds: 60, now: () => clock });
      const channel = parseChannel(`${longLived.url}/conda-forge-py39`);
      const [first] = await store.prepare([channel], ['noarch'], []);
      longLived.log.length = 0;
      clock += 599_000;
      expect((await store.prepare([channel], ['noarch'], []))[0]).toBe(first);
      expect(longLived.log).toEqual([]);
      clock += 2_000;
      expect((await store.prepare([channel], ['noarch'], []))[0]).toBe(first);
      expect(longLived.log.map((e) => e.status)).toEqual([304]);
      await store.close();
    } finally {
      await longLived.close();
    }
  });

  it('gives a new index when the file changed on the server', async () => {
    const root = join(work.path, 'changing');
    writeChannel(join(root, 'ch'), { keep: 50 });
    const changing = await startChannelServer({ root });
    try {
      let clock = T0;
      const store = new RepodataStore({ cacheDir: join(work.path, 'changing-cache'), now: () => clock });
      const channel = parseChannel(`${changing.url}/ch`);
      const [before] = await store.prepare([channel], ['noarch'], []);
      expect(before!.recordCount).toBe(50);
      writeChannel(join(root, 'ch'), { keep: 80 });
      clock += 61_000;
      changing.log.length = 0;
      const [after] = await store.prepare([channel], ['noarch'], []);
      expect(changing.log.map((e) => e.status)).toEqual([200]);
      expect(changing.log[0]!.headers['if-none-match']).toBeDefined();
      expect(after).not.toBe(before);
      expect(after!.recordCount).toBe(80);
      await store.close();
    } finally {
      await changing.close();
    }
  });

  it('shares one download among concurrent prepare calls for the same subdirs', async () => {
    const slow = await startChannelServer({ root: CHANNELS_DIR });
    // No answer until all three calls are made, so none can finish before the others ask.
    const allAsked = deferred();
    slow.intercept = async () => {
      await allAsked.promise;
      return false;
    };
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'shared-download') });
      const channel = parseChannel(`${slow.url}/conda-forge-py39`);
      const calls = [0, 1, 2].map(() => store.prepare([channel], ['linux-64', 'noarch'], ['python']));
      allAsked.resolve();
      const results = await Promise.all(calls);
      await store.close();
      expect(results[1]![0]).toBe(results[0]![0]);
      expect(results[2]![1]).toBe(results[0]![1]);
      const downloads = slow.log.filter((e) => e.status === 200).map((e) => e.path);
      expect(downloads.sort()).toEqual(['/conda-forge-py39/linux-64/repodata.json.zst', '/conda-forge-py39/noarch/repodata.json']);
      expect(slow.log).toHaveLength(5); // + 2 shard probes and the noarch .zst probe, once each
    } finally {
      await slow.close();
    }
  });

  it('fetches subdirs, channels and shards in parallel, never more at once than its pool allows', async () => {
    const root = join(work.path, 'pool');
    await shardChannel({ source: PY39, out: join(root, 'a'), subdirs: ['linux-64', 'noarch'] });
    await shardChannel({ source: PY39, out: join(root, 'b'), subdirs: ['linux-64', 'noarch'] });
    const pooled = await startChannelServer({ root });
    let active = 0;
    let peak = 0;
    // The first request of a run is held until a second one arrives: requests do overlap.
    let arrived = 0;
    let second = deferred();
    pooled.intercept = async (_req, res) => {
      active++;
      peak = Math.max(peak, active);
      res.on('close', () => active--);
      arrived++;
      if (arrived === 1) await second.promise;
      else if (arrived === 2) second.resolve();
      return false;
    };
    try {
      for (const concurrency of [2, 6]) {
        peak = 0;
        arrived = 0;
        second = deferred();
        const store = new RepodataStore({ cacheDir: join(work.path, `pool-cache-${concurrency}`), concurrency });
        const channels = [parseChannel(`${pooled.url}/a`), parseChannel(`${pooled.url}/b`)];
        const indexes = await store.prepare(channels, ['linux-64', 'noarch'], ['python']);
        await store.close();
        expect(indexes.map((index) => index.records('python').length > 0)).toEqual([true, false, true, false]);
        expect(peak).toBeLessThanOrEqual(concurrency);
        expect(peak).toBeGreaterThan(1);
      }
      // Per run: 4 shard indexes, and the 55 shards of the closure (once or twice: the channels share hashes).
      expect(pooled.log.length).toBeGreaterThanOrEqual(2 * (4 + 55));
    } finally {
      await pooled.close();
    }
  });

  it('keeps loading for the others when one caller gives up', async () => {
    const slow = await startChannelServer({ root: CHANNELS_DIR });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reached = deferred();
    slow.intercept = async () => {
      reached.resolve();
      await held;
      return false;
    };
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'give-up') });
      const channel = parseChannel(`${slow.url}/conda-forge-py39`);
      const impatient = new AbortController();
      const first = store.prepare([channel], ['noarch'], [], { signal: impatient.signal });
      const second = store.prepare([channel], ['noarch'], []);
      await reached.promise;
      impatient.abort(new Error('the client went away'));
      await expect(first).rejects.toThrow('the client went away');
      release();
      const [index] = await second;
      expect(index!.recordCount).toBe(205);
      await store.close();
    } finally {
      release();
      await slow.close();
    }
  });

  it('keeps fetching shards for the others when one caller gives up mid-closure', async () => {
    const root = join(work.path, 'give-up-sharded');
    await shardChannel({ source: PY39, out: join(root, 'ch'), subdirs: ['linux-64', 'noarch'] });
    const sharded = await startChannelServer({ root });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const shardAsked = deferred();
    // The shard indexes answer at once; the shards wait until released.
    sharded.intercept = async (req) => {
      if (req.url?.includes('/shards/')) {
        shardAsked.resolve();
        await held;
      }
      return false;
    };
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'give-up-sharded-cache') });
      const channel = parseChannel(`${sharded.url}/ch`);
      const impatient = new AbortController();
      const first = store.prepare([channel], ['linux-64', 'noarch'], ['python'], { signal: impatient.signal });
      const second = store.prepare([channel], ['linux-64', 'noarch'], ['python']);
      await shardAsked.promise;
      impatient.abort(new Error('the client went away'));
      await expect(first).rejects.toThrow('the client went away');
      release();
      const [linux] = await second;
      expect(linux!.records('python').length).toBeGreaterThan(10);
      expect(linux!.records('openssl').length).toBeGreaterThan(0);
      await store.close();
    } finally {
      release();
      await sharded.close();
    }
  });

  it('stops waiting when the only caller gives up', async () => {
    const stalled = await startChannelServer({ root: CHANNELS_DIR });
    const reached = deferred();
    stalled.intercept = () => {
      reached.resolve();
      return new Promise<boolean>(() => undefined); // never answers
    };
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'stalled') });
      const controller = new AbortController();
      const loading = store.prepare([parseChannel(`${stalled.url}/conda-forge-py39`)], ['noarch'], [], { signal: controller.signal });
      await reached.promise;
      controller.abort(new Error('time limit'));
      await expect(loading).rejects.toThrow('time limit');
      await store.close();
    } finally {
      await stalled.close();
    }
  });

  it('stops loads still running when it is closed', async () => {
    const stalled = await startChannelServer({ root: CHANNELS_DIR });
    const reached = deferred();
    stalled.intercept = () => {
      reached.resolve();
      return new Promise<boolean>(() => undefined); // never answers
    };
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'closed') });
      const loading = store.prepare([parseChannel(`${stalled.url}/conda-forge-py39`)], ['noarch'], []).catch((e: unknown) => e);
      // Close once the request has reached the server (it will never be answered).
      await reached.promise;
      await store.close();
      const error = await loading;
      expect(error).toBeInstanceOf(RepodataStoreClosedError);
      expect((error as RepodataStoreClosedError).code).toBe('CR_ERR_REPODATA_STORE_CLOSED');
    } finally {
      await stalled.close();
    }
  });

  it('gives an empty index for a subdir the channel lacks, and ChannelNotFoundError when it lacks them all', async () => {
    const store = new RepodataStore({ cacheDir: join(work.path, 'not-found') });
    const [win, noarch] = await store.prepare([parseChannel(`${server.url}/defaults-main-2022`)], ['win-64', 'noarch'], []);
    expect(win!.recordCount).toBe(0);
    expect(win!.records('python')).toEqual([]);
    expect(noarch!.recordCount).toBe(7372);

    const error = await store
      .prepare([parseChannel(`${server.url}/conda-forge-py39`), parseChannel(`${server.url}/no-such-channel`)], ['linux-64', 'noarch'], [])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChannelNotFoundError);
    expect((error as ChannelNotFoundError).code).toBe('CR_ERR_REPODATA_CHANNEL_NOT_FOUND');
    expect((error as Error).message).toBe(`Cannot find channel ${server.url}/no-such-channel: none of its subdirs linux-64, noarch exist`);

    const local = await store
      .prepare([parseChannel(join(work.path, 'no-such-folder'))], ['linux-64', 'noarch'], [])
      .catch((e: unknown) => e);
    expect(local).toBeInstanceOf(ChannelNotFoundError);
    await store.close();

    // Offline afterwards: the missing subdir is remembered, so the answer is the same.
    const offline = new RepodataStore({ cacheDir: join(work.path, 'not-found'), offline: true });
    const [winOffline] = await offline.prepare([parseChannel(`${server.url}/defaults-main-2022`)], ['win-64', 'noarch'], []);
    expect(winOffline!.recordCount).toBe(0);
    await offline.close();
  });

  it('asks the policy about base_url inside repodata.json, and fails clearly when it refuses', async () => {
    const root = join(work.path, 'mirrored');
    writeChannel(join(root, 'ch'), { keep: 5, info: { base_url: 'https://mirror.example.org/pkgs/noarch' } });
    const mirrored = await startChannelServer({ root });
    try {
      const seen: string[] = [];
      const allowAll = new RepodataStore({
        cacheDir: join(work.path, 'mirrored-ok'),
        checkUrl: (url) => {
          seen.push(url.href);
        },
      });
      const [index] = await allowAll.prepare([parseChannel(`${mirrored.url}/ch`)], ['noarch'], []);
      await allowAll.close();
      expect(seen).toContain('https://mirror.example.org/pkgs/noarch');
      expect(seen).toContain(`${mirrored.url}/ch/noarch/repodata.json`);
      const name = [...index!.names()][0]!;
      expect(index!.records(name)[0]!.url).toMatch(/^https:\/\/mirror\.example\.org\/pkgs\/noarch\/[^/]+$/);

      const refusing = new RepodataStore({
        cacheDir: join(work.path, 'mirrored-refused'),
        checkUrl: (url) => url.hostname !== 'mirror.example.org',
      });
      const error = await refusing.prepare([parseChannel(`${mirrored.url}/ch`)], ['noarch'], []).catch((e: unknown) => e);
      await refusing.close();
      expect(error).toBeInstanceOf(RepodataUrlRefusedError);
      expect((error as Error).message).toBe(
        `Cannot fetch repodata for ${mirrored.url}/ch/noarch: the channel policy refuses to fetch this URL (https://mirror.example.org/pkgs/noarch)`,
      );
    } finally {
      await mirrored.close();
    }
  });

  it('asks the policy about base_url also when a package section is given twice', async () => {
    // "packages" twice: the scan reads the last copy, as JSON.parse does, and its record is served.
    const root = join(work.path, 'eager');
    mkdirSync(join(root, 'ch', 'noarch'), { recursive: true });
    const record = { name: 'a', version: '1', build: '0', build_number: 0, depends: [], subdir: 'noarch' };
    writeFileSync(
      join(root, 'ch', 'noarch', 'repodata.json'),
      `{"info": {"subdir": "noarch", "base_url": "https://10.0.0.7/pkgs"}, "packages": {}, "packages": {"a-1-0.tar.bz2": ${JSON.stringify(record)}}}`,
    );
    const eager = await startChannelServer({ root });
    try {
      const seen: string[] = [];
      const store = new RepodataStore({
        cacheDir: join(work.path, 'eager-cache'),
        checkUrl: (url) => {
          seen.push(url.href);
          return url.hostname !== '10.0.0.7';
        },
      });
      const error = await store.prepare([parseChannel(`${eager.url}/ch`)], ['noarch'], []).catch((e: unknown) => e);
      await store.close();
      expect(seen).toContain('https://10.0.0.7/pkgs');
      expect(error).toBeInstanceOf(RepodataUrlRefusedError);
    } finally {
      await eager.close();
    }
  });

  it('sends the token and password with every request, sharded or not, and keeps them out of progress, cache names and state', async () => {
    const root = join(work.path, 'private');
    await shardChannel({ source: PY39, out: join(root, 'sharded'), subdirs: ['linux-64', 'noarch'] });
    const auth = { token: 'tok-Z9y8X7', basic: { user: 'alice', password: 's3cr3t-pw' } };
    const secrets = ['tok-Z9y8X7', 's3cr3t-pw', 'alice', Buffer.from('alice:s3cr3t-pw').toString('base64')];
    for (const [label, serverRoot, channelPath] of [
      ['sharded', root, 'sharded'],
      ['monolithic', CHANNELS_DIR, 'conda-forge-py39'],
    ] as const) {
      const privateServer = await startChannelServer({ root: serverRoot, auth });
      try {
        const events: LoadProgressEvent[] = [];
        const cacheDir = join(work.path, `private-cache-${label}`);
        const store = new RepodataStore({ cacheDir, onProgress: (event) => events.push(event) });
        const url = `${privateServer.url.replace('http://', 'http://alice:s3cr3t-pw@')}/t/tok-Z9y8X7/${channelPath}`;
        const indexes = await store.prepare([parseChannel(url)], ['linux-64', 'noarch'], ['python']);
        await store.close();

        expect(indexes.map((index) => index instanceof ShardedSubdirIndex)).toEqual(label === 'sharded' ? [true, true] : [false, false]);
        const python = indexes[0]!.records('python');
        expect(python.length).toBeGreaterThan(10);
        expect(python[0]!.url).toBe(`${privateServer.url}/${channelPath}/linux-64/${python[0]!.fn}`);
        expect(python[0]!.channel).toBe(`${privateServer.url}/${channelPath}`);
        // Every request carried both secrets and was answered (shards included).
        expect(privateServer.log.length).toBeGreaterThan(label === 'sharded' ? 10 : 3);
        for (const entry of privateServer.log) {
          expect(entry.path.startsWith('/t/tok-Z9y8X7/')).toBe(true);
          expect(entry.headers.authorization).toBe(`Basic ${secrets[3]}`);
          expect([200, 404]).toContain(entry.status);
        }
        expect(privateServer.log.filter((e) => e.path.includes('/shards/')).length > 0).toBe(label === 'sharded');
        expect(events.length).toBeGreaterThan(2);
        const shown = `${JSON.stringify(events)}\n${everythingUnder(cacheDir)}`;
        for (const secret of secrets) expect(shown).not.toContain(secret);
      } finally {
        await privateServer.close();
      }
    }
  });

  it('does not walk a closure again for roots already prepared over the same indexes', async () => {
    const root = join(work.path, 'hot-sharded');
    await shardChannel({ source: PY39, out: join(root, 'ch'), subdirs: ['linux-64', 'noarch'] });
    const sharded = await startChannelServer({ root, maxAge: 3600 });
    try {
      const store = new RepodataStore({ cacheDir: join(work.path, 'hot-sharded-cache') });
      const channel = parseChannel(`${sharded.url}/ch`);
      const first = await store.prepare([channel], ['linux-64', 'noarch'], ['python']);
      const reads: string[] = [];
      for (const index of first) {
        const records = index.records.bind(index);
        index.records = (name: string) => {
          reads.push(name);
          return records(name);
        };
      }
      const again = await store.prepare([channel], ['linux-64', 'noarch'], ['python']);
      expect(again).toEqual(first);
      expect(reads).toEqual([]);
      // A new root is followed (and only what it adds is fetched).
      const loaded = new Set((first[0] as ShardedSubdirIndex).loadedNames());
      const outside = [...first[0]!.names()].find((name) => !loaded.has(name))!;
      const requests = sharded.log.length;
      await store.prepare([channel], ['linux-64', 'noarch'], ['python', outside]);
      expect(reads).toContain(outside);
      expect(sharded.log.length).toBeGreaterThan(requests);
      expect(first[0]!.records(outside).length).toBeGreaterThan(0);
      await store.close();
    } finally {
      await sharded.close();
    }
  });

  it('offline over a sharded cache: the prepared closure loads with no request; a name never fetched is an offline error', async () => {
    const root = join(work.path, 'offline-sharded');
    await shardChannel({ source: PY39, out: join(root, 'ch'), subdirs: ['linux-64', 'noarch'] });
    const sharded = await startChannelServer({ root });
    try {
      const cacheDir = join(work.path, 'offline-sharded-cache');
      const channel = parseChannel(`${sharded.url}/ch`);
      const online = new RepodataStore({ cacheDir });
      const [linux] = await online.prepare([channel], ['linux-64', 'noarch'], ['python']);
      await online.close();
      const loaded = new Set((linux as ShardedSubdirIndex).loadedNames());
      const untouched = [...linux!.names()].find((name) => !loaded.has(name))!;
      expect(untouched).toBeDefined();

      sharded.log.length = 0;
      const offline = new RepodataStore({ cacheDir, offline: true, now: () => Date.now() + 365 * 24 * 3600 * 1000 });
      const [again] = await offline.prepare([channel], ['linux-64', 'noarch'], ['python']);
      expect(again!.records('python').length).toBe(linux!.records('python').length);
      const error = await offline.prepare([channel], ['linux-64', 'noarch'], [untouched]).catch((e: unknown) => e);
      await offline.close();
      expect(error).toBeInstanceOf(RepodataOfflineError);
      expect(sharded.log).toEqual([]);
    } finally {
      await sharded.close();
    }
  });
});
