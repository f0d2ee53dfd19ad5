/**
 * Bounds on what one repodata record may carry (issue 11, item 9): a record with 200,000 `depends`
 * entries cost a solve that reached it 13 s and 400 MB. A record over a bound is left out of its
 * subdir (as a `removed` one is); the channel's other records stay usable, through every path that
 * reads records (eager parse, lazy index, shards, the store, a whole resolve).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '@msgpack/msgpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexRepodata } from '../../repodata/monolithic.js';
import { LazySubdirIndex } from '../../repodata/lazy/lazy-subdir-index.js';
import { parseRepodata } from '../../repodata/parse.js';
import { RepodataParseError } from '../../repodata/parse-errors.js';
import {
  MAX_RECORD_FIELD_LENGTH,
  MAX_RECORD_SPEC_CHARS,
  MAX_RECORD_SPECS,
  normaliseRecord,
  OversizedRecordError,
  recordContext,
} from '../../repodata/record-normalise.js';
import { decodeShard } from '../../repodata/sharded/shard.js';
import { RepodataStore } from '../../repodata/store.js';
import type { ChannelRef } from '../../repodata/types.js';
import { zstdCompress } from '../../repodata/zstd.js';
import { resolveEnvironments, toNative } from '../../src/index.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { MAX_SPEC_LENGTH } from '../../vocabulary/version-spec.js';
import { tempDir } from './store-helpers.js';

const CHANNEL: ChannelRef = { name: 'test', baseUrl: 'https://example.org/test' };
const SOURCE = { channel: CHANNEL, subdir: 'linux-64' };

function entry(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    version: '1.0',
    build: '0',
    build_number: 0,
    depends: [],
    md5: 'd7c89558ba9fa0495403155b64376d81',
    sha256: 'fe51de6107f9edc7aa4f786a70f4a883943bc9d39b3bb7307c04c41410990726',
    size: 1,
    subdir: 'linux-64',
    ...overrides,
  };
}

/** The record: 200,000 distinct depends (4.6 MB of JSON). */
const HUGE_DEPENDS = Array.from({ length: 200_000 }, (_, i) => `dep${i} >=1.${i}`);

/** `huge` over the bound, `tiny` and `needs-huge` ordinary; names sorted as conda writes them. */
function repodata(): Record<string, unknown> {
  return {
    info: { subdir: 'linux-64' },
    packages: {},
    'packages.conda': {
      'huge-1.0-0.conda': entry('huge', { depends: HUGE_DEPENDS }),
      'huge-2.0-0.conda': entry('huge', { version: '2.0', depends: ['tiny'] }),
      'needs-huge-1.0-0.conda': entry('needs-huge', { depends: ['huge <2'] }),
      'tiny-1.0-0.conda': entry('tiny', { depends: [] }),
    },
  };
}

describe('one record', () => {
  const context = recordContext(SOURCE, { subdir: 'linux-64', baseUrl: null, repodataVersion: null, removed: [] });
  const over =
    (overrides: Record<string, unknown>, name = 'x') =>
    () =>
      normaliseRecord(entry(name, overrides), 'x-1.0-0.conda', context);

  it('the bounds are the documented numbers', () => {
    expect([MAX_RECORD_SPECS, MAX_RECORD_SPEC_CHARS, MAX_RECORD_FIELD_LENGTH]).toEqual([4096, 262_144, 256]);
  });

  it.each([
    ['200,000 depends', { depends: HUGE_DEPENDS }, /has 200000 depends entries, more than the limit of 4096/],
    ['4097 depends', { depends: Array.from({ length: 4097 }, (_, i) => `d${i}`) }, /has 4097 depends entries, more than the limit of 4096/],
    ['4097 constrains', { constrains: Array.from({ length: 4097 }, (_, i) => `d${i} <1`) }, /has 4097 constrains entries/],
    [
      'a depends entry over the spec length',
      { depends: ['python', `x ${'1'.repeat(MAX_SPEC_LENGTH)}`] },
      /has a depends entry of 4098 characters, more than the limit of 4096/,
    ],
    [
      '300 KB of specs in all',
      { depends: Array.from({ length: 100 }, (_, i) => `d${i} ${'1'.repeat(3000)}`) },
      /characters of depends and constrains, more than the limit of 262144/,
    ],
    ['a 257-character version', { version: '1'.repeat(257) }, /has a version of 257 characters, more than the limit of 256/],
    ['a 300-character build', { build: 'b'.repeat(300) }, /has a build of 300 characters/],
  ])('%s: OversizedRecordError naming the record and the limit', (_name, overrides, message) => {
    const f = over(overrides);
    expect(f).toThrow(OversizedRecordError);
    expect(f).toThrow(RepodataParseError);
    expect(f).toThrow(message);
    expect(f).toThrow(/^Cannot parse repodata for test\/linux-64: record "x-1\.0-0\.conda" /);
    try {
      f();
    } catch (error) {
      expect(error).toMatchObject({ code: 'CR_ERR_REPODATA_RECORD_TOO_LARGE', fn: 'x-1.0-0.conda' });
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });

  it('a record at every bound is kept', () => {
    const record = normaliseRecord(
      entry('n'.repeat(MAX_RECORD_FIELD_LENGTH), {
        version: '1'.repeat(MAX_RECORD_FIELD_LENGTH),
        depends: Array.from({ length: MAX_RECORD_SPECS }, (_, i) => `d${i}`),
        constrains: [`c ${'1'.repeat(MAX_SPEC_LENGTH - 2)}`, ...Array.from({ length: MAX_RECORD_SPECS - 1 }, (_, i) => `c${i} <1`)],
      }),
      'n-1-0.conda',
      context,
    );
    expect(record.depends).toHaveLength(MAX_RECORD_SPECS);
    expect(record.constrains).toHaveLength(MAX_RECORD_SPECS);
  });

  it('a malformed record still fails the document, as before', () => {
    expect(over({ depends: 'python' })).toThrow(/field "depends" must be a list of strings/);
    expect(() =>
      parseRepodata(JSON.stringify({ info: { subdir: 'linux-64' }, packages: { 'x.conda': entry('x', { depends: [1] }) } }), SOURCE),
    ).toThrow(RepodataParseError);
  });
});

describe('a channel with one huge record', () => {
  let dir: ReturnType<typeof tempDir>;
  let channelDir: string;
  let bytes: Uint8Array;

  beforeAll(() => {
    dir = tempDir('record-bounds');
    channelDir = join(dir.path, 'channel');
    mkdirSync(join(channelDir, 'linux-64'), { recursive: true });
    mkdirSync(join(channelDir, 'noarch'), { recursive: true });
    const text = JSON.stringify(repodata());
    expect(text.length).toBeGreaterThan(4_000_000);
    bytes = new TextEncoder().encode(text);
    writeFileSync(join(channelDir, 'linux-64', 'repodata.json'), text);
    writeFileSync(
      join(channelDir, 'noarch', 'repodata.json'),
      JSON.stringify({ info: { subdir: 'noarch' }, packages: {}, 'packages.conda': {} }),
    );
  });
  afterAll(() => dir?.remove());

  const versions = (records: readonly { version: string }[]) => records.map((r) => r.version).sort();

  it('eager parse: the huge record is left out, the others are there', () => {
    const { records } = parseRepodata(bytes, SOURCE);
    expect(records.map((r) => `${r.name}-${r.version}`).sort()).toEqual(['huge-2.0', 'needs-huge-1.0', 'tiny-1.0']);
  });

  it('lazy index (and the index a store builds): the same', () => {
    for (const index of [LazySubdirIndex.fromBytes(bytes, SOURCE), indexRepodata(bytes, SOURCE)]) {
      expect(versions(index.records('huge'))).toEqual(['2.0']);
      expect(versions(index.records('tiny'))).toEqual(['1.0']);
      expect(index.records('needs-huge')[0]!.depends).toEqual(['huge <2']);
    }
  });

  it('a shard holding the huge record: the same', async () => {
    const shard = encode({
      packages: {},
      'packages.conda': {
        'huge-1.0-0.conda': entry('huge', { depends: HUGE_DEPENDS }),
        'huge-2.0-0.conda': entry('huge', { version: '2.0' }),
      },
    });
    const compressed = await zstdCompress(shard);
    const sha256 = createHash('sha256').update(compressed).digest('hex');
    const context = recordContext(SOURCE, { subdir: 'linux-64', baseUrl: null, repodataVersion: null, removed: [] });
    const records = await decodeShard(compressed, sha256, 'huge', context, { channel: 'test', subdir: 'linux-64' });
    expect(versions(records)).toEqual(['2.0']);
  });

  it('the store serves the channel; a resolve uses the normal records and cannot reach the huge one', async () => {
    const cache = tempDir('record-bounds-cache');
    try {
      const store = new RepodataStore({ cacheDir: cache.path, offline: false, refresh: false });
      const channel = parseChannel(channelDir);
      const index = (await store.load(channel, 'linux-64'))!;
      expect(versions(index.records('huge'))).toEqual(['2.0']);
      expect(versions(index.records('tiny'))).toEqual(['1.0']);

      const options = { cacheDir: cache.path, env: {} };
      const ok = toNative(await resolveEnvironments({ specs: ['huge'], channels: [channelDir], platforms: ['linux-64'] }, options));
      expect(ok[0]!.error).toBeNull();
      expect(ok[0]!.packages.map((p) => `${p.name}-${p.version}`)).toEqual(['huge-2.0', 'tiny-1.0']);
      const unreachable = toNative(
        await resolveEnvironments({ specs: ['needs-huge'], channels: [channelDir], platforms: ['linux-64'] }, options),
      );
      expect(unreachable[0]!.error).toMatch(/needs-huge 1\.0 requires huge <2, but no huge matches \(available: 2\.0\)/);
    } finally {
      cache.remove();
    }
  });
});
