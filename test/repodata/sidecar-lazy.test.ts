/**
 * Format 3 index sidecars, read lazily: any tables survive encode → open → per-name reads; a warm
 * index reads the name table and then only the row blocks of the names asked for; a damaged,
 * truncated or old-format sidecar is detected (at open, or when a damaged row block is read) and
 * rebuilt, and a resolve over it answers as before.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { loadIndexFromCache } from '../../repodata/lazy/cached-repodata.js';
import { RepodataFile } from '../../repodata/lazy/repodata-file.js';
import type { ByteReader } from '../../repodata/lazy/index-rows.js';
import { LazySubdirIndex } from '../../repodata/lazy/lazy-subdir-index.js';
import { decodeIndexSidecar, encodeIndexSidecar, openIndexSidecar, SIDECAR_FIRST_READ } from '../../repodata/lazy/sidecar.js';
import { fingerprintBytes, fnv1a, lookupName, type RepodataIndexTables } from '../../repodata/lazy/span-tables.js';
import { parseRepodata } from '../../repodata/parse.js';
import { RepodataIndexUnsupportedError } from '../../repodata/parse-errors.js';
import type { ChannelRef } from '../../repodata/types.js';
import { runCli, tempDir } from '../cli/run-cli.js';

const CHANNEL: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };
const SOURCE = { channel: CHANNEL, subdir: 'linux-64' };
const encoder = new TextEncoder();

/** Tables as a scan would build them, over made-up names and spans inside a document of `byteLength`. */
function buildTables(
  names: readonly string[],
  rowsPerName: readonly (readonly [number, number, number][])[],
  byteLength: number,
): RepodataIndexTables {
  const nameOffsets = new Uint32Array(names.length + 1);
  const rows = rowsPerName.flat();
  const fnStart = new Uint32Array(rows.length);
  const fnEnd = new Uint32Array(rows.length);
  const recStart = new Uint32Array(rows.length);
  const recEnd = new Uint32Array(rows.length);
  rows.forEach(([start, keyLength, recordLength], r) => {
    fnStart[r] = start;
    fnEnd[r] = start + keyLength;
    recStart[r] = fnEnd[r] + 2;
    recEnd[r] = recStart[r] + recordLength;
  });
  rowsPerName.forEach((nameRows, id) => (nameOffsets[id + 1] = nameOffsets[id] + nameRows.length));
  const encoded = names.map((name) => encoder.encode(name));
  const nameBytes = new Uint8Array(encoded.reduce((sum, bytes) => sum + bytes.length, 0));
  const nameByteOffsets = new Uint32Array(names.length + 1);
  let capacity = 16;
  while (capacity < names.length * 2) capacity *= 2;
  const nameSlots = new Int32Array(capacity).fill(-1);
  encoded.forEach((bytes, id) => {
    nameBytes.set(bytes, nameByteOffsets[id]);
    nameByteOffsets[id + 1] = nameByteOffsets[id] + bytes.length;
    let slot = fnv1a(bytes, 0, bytes.length) & (capacity - 1);
    while (nameSlots[slot] !== -1) slot = (slot + 1) & (capacity - 1);
    nameSlots[slot] = id;
  });
  const info = { subdir: 'linux-64', baseUrl: null };
  return {
    byteLength,
    fingerprint: 12345,
    info,
    fnStart,
    fnEnd,
    recStart,
    recEnd,
    nameOffsets,
    nameBytes,
    nameByteOffsets,
    nameSlots,
  } as unknown as RepodataIndexTables;
}

/** A reader over bytes in memory that records every read. */
function countingReader(bytes: Uint8Array): ByteReader & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return { length: bytes.length, reads, read: (start, end) => (reads.push([start, end]), bytes.slice(start, end)) };
}

describe('format 3 sidecars', () => {
  const DOC = 1 << 20;
  const row = fc.tuple(fc.integer({ min: 1, max: DOC - 5000 }), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 2, max: 4000 }));
  const tablesArbitrary = fc
    .uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 40 })
    .chain((names) =>
      fc.tuple(fc.constant(names), fc.array(fc.array(row, { maxLength: 6 }), { minLength: names.length, maxLength: names.length })),
    );

  it('give back every name and its rows, lazily and whole, for any tables', () => {
    fc.assert(
      fc.property(tablesArbitrary, ([names, rows]) => {
        const tables = buildTables(names, rows, DOC);
        const sidecar = encodeIndexSidecar(tables);
        const expected = { byteLength: DOC, fingerprint: 12345 };
        const lazy = openIndexSidecar(countingReader(sidecar), expected, 'x');
        expect(lazy.nameCount).toBe(names.length);
        expect(lazy.recordCount).toBe(tables.recStart.length);
        names.forEach((name, id) => {
          expect(lazy.lookup(name)).toBe(id);
          expect(lazy.nameAt(id)).toBe(name);
          const got = lazy.rows(id);
          const first = tables.nameOffsets[id];
          const last = tables.nameOffsets[id + 1];
          expect([...got.fnStart]).toEqual([...tables.fnStart.subarray(first, last)]);
          expect([...got.fnEnd]).toEqual([...tables.fnEnd.subarray(first, last)]);
          expect([...got.recStart]).toEqual([...tables.recStart.subarray(first, last)]);
          expect([...got.recEnd]).toEqual([...tables.recEnd.subarray(first, last)]);
        });
        expect(lazy.lookup(`${names.join('')}-absent`)).toBe(
          names.includes(`${names.join('')}-absent`) ? names.indexOf(`${names.join('')}-absent`) : -1,
        );
        expect(decodeIndexSidecar(sidecar, expected, 'x')).toEqual(tables);
      }),
      { numRuns: 150 },
    );
  });

  it('refuse any single damaged byte, at open or when the damaged rows are read', () => {
    const tables = buildTables(
      ['a', 'bb', 'ccc'],
      [
        [[10, 3, 50]],
        [
          [100, 4, 60],
          [300, 4, 60],
        ],
        [],
      ],
      DOC,
    );
    const sidecar = encodeIndexSidecar(tables);
    const expected = { byteLength: DOC, fingerprint: 12345 };
    for (let at = 0; at < sidecar.length; at++) {
      const damaged = sidecar.slice();
      damaged[at] ^= 0x5a;
      expect(() => {
        const lazy = openIndexSidecar(countingReader(damaged), expected, 'x');
        for (let id = 0; id < lazy.nameCount; id++) lazy.rows(id);
      }, `byte ${at}`).toThrow(RepodataIndexUnsupportedError);
    }
    // Truncated anywhere, or with bytes after the end.
    for (const length of [0, 5, 12, 40, sidecar.length - 16, sidecar.length - 1]) {
      expect(() => openIndexSidecar(countingReader(sidecar.subarray(0, length)), expected, 'x'), `length ${length}`).toThrow(
        RepodataIndexUnsupportedError,
      );
    }
    expect(() => openIndexSidecar(countingReader(new Uint8Array([...sidecar, 0])), expected, 'x')).toThrow(/trailing bytes/);
  });
});

describe('a warm index over a format 3 sidecar', () => {
  let dir: string;
  let jsonPath: string;
  let json: Uint8Array;

  beforeEach(() => {
    dir = tempDir('cr-sidecar3-');
    generateChannel({ out: dir, records: 1500, names: 150, noarchRecords: 60, noarchNames: 30, seed: 11 });
    jsonPath = join(dir, 'linux-64', 'repodata.json');
    json = readFileSync(jsonPath);
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function eagerRecords(name: string) {
    return parseRepodata(json, SOURCE).records.filter((record) => record.name === name);
  }

  it('reads the name table once, then only the rows of each name asked, and nothing for names asked again or absent', () => {
    const tables = LazySubdirIndex.fromBytes(json, SOURCE).tables;
    const sidecar = encodeIndexSidecar(tables);
    const reader = countingReader(sidecar);
    const rows = openIndexSidecar(reader, { byteLength: json.length, fingerprint: fingerprintBytes(json) }, 'x');
    const opening = reader.reads.length;
    expect(opening).toBeLessThanOrEqual(2);
    // The name table is all that was read (past a first read of a fixed size): the row blocks start after it.
    const rowsAt = sidecar.length - 16 * tables.recStart.length;
    expect(rowsAt).toBeGreaterThan(SIDECAR_FIRST_READ);
    expect(Math.max(...reader.reads.map(([, end]) => end))).toBe(rowsAt);

    const index = new LazySubdirIndex(rows, RepodataFile.open(jsonPath), SOURCE);
    const asked = ['python', 'numpy', 'libzlib'];
    for (const name of asked) expect(index.records(name)).toEqual(eagerRecords(name));
    expect(index.records('no-such-package')).toEqual([]);
    for (const name of asked) index.records(name);
    expect(index.has('python')).toBe(true);
    // Four reads per name asked (one per row table), each exactly that name's range.
    const rowCount = tables.recStart.length;
    const ranges = asked.flatMap((name) => {
      const id = lookupName(tables, name);
      return [0, 1, 2, 3].map((k) => [
        rowsAt + 4 * (k * rowCount + tables.nameOffsets[id]),
        rowsAt + 4 * (k * rowCount + tables.nameOffsets[id + 1]),
      ]);
    });
    expect(reader.reads.slice(opening)).toEqual(ranges);
    expect(index.recordCount).toBe(tables.recStart.length);
    index.close();
  });

  it('can still hand the whole tables to a worker thread (read and checked once)', () => {
    const tables = LazySubdirIndex.fromBytes(json, SOURCE).tables;
    const reader = countingReader(encodeIndexSidecar(tables));
    const index = new LazySubdirIndex(
      openIndexSidecar(reader, { byteLength: json.length, fingerprint: fingerprintBytes(json) }, 'x'),
      RepodataFile.open(jsonPath),
      SOURCE,
    );
    const handle = index.toShared();
    expect(handle.tables).toEqual(tables);
    expect(handle.tables.recStart.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(LazySubdirIndex.fromShared(handle).records('numpy')).toEqual(eagerRecords('numpy'));
    index.close();
  });

  it('a warm positional index from the cache crosses to a worker thread and answers the same there', async () => {
    loadIndexFromCache({ jsonPath, source: SOURCE }).index.close();
    const { index, from } = loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'positional' });
    expect(from).toBe('sidecar');
    const handle = (index as LazySubdirIndex).toShared();
    const worker = new Worker(new URL('./lazy-index-worker.mjs', import.meta.url));
    try {
      const reply = await new Promise<{ recordCount: number; records: Record<string, unknown[]>; shared: boolean }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ handle, names: ['python', 'numpy', 'missing'] });
      });
      expect(reply.shared).toBe(true);
      expect(reply.recordCount).toBe(index.recordCount);
      expect(reply.records).toEqual({ python: eagerRecords('python'), numpy: eagerRecords('numpy'), missing: [] });
    } finally {
      await worker.terminate();
      index.close();
    }
  });

  function damage(path: string, at: (bytes: Buffer) => number, value?: number): void {
    const bytes = readFileSync(path);
    const i = at(bytes);
    bytes[i] = value ?? bytes[i] ^ 0xff;
    writeFileSync(path, bytes);
  }

  /** Where the rows of `name` start in the sidecar of `tables` (its range of `fnStart`). */
  function blockOf(tables: RepodataIndexTables, sidecarLength: number, name: string): number {
    return sidecarLength - 16 * tables.recStart.length + 4 * tables.nameOffsets[lookupName(tables, name)];
  }

  function expectRebuilt(sidecarPath: string): void {
    const fresh = encodeIndexSidecar(LazySubdirIndex.fromBytes(json, SOURCE).tables);
    expect(Buffer.compare(readFileSync(sidecarPath), fresh)).toBe(0);
  }

  it('rebuilds a sidecar whose name table is damaged, truncated, or of format 2', () => {
    const sidecarPath = `${jsonPath}.index`;
    const cases: [string, () => void][] = [
      ['a byte of the name table', () => damage(sidecarPath, (bytes) => bytes.indexOf('numpy') + 2)],
      ['truncated', () => writeFileSync(sidecarPath, readFileSync(sidecarPath).subarray(0, -7))],
      ['format 2', () => damage(sidecarPath, () => 7, 2)],
    ];
    for (const [what, spoil] of cases) {
      expect(loadIndexFromCache({ jsonPath, source: SOURCE }).from).not.toBe('sidecar');
      spoil();
      for (const bytes of ['positional', 'memory'] as const) {
        const loaded = loadIndexFromCache({ jsonPath, source: SOURCE, bytes });
        expect(loaded.from, what).toBe('scan');
        expect(loaded.index.records('python'), what).toEqual(eagerRecords('python'));
        loaded.index.close();
        expectRebuilt(sidecarPath);
        if (bytes === 'positional') spoil();
      }
      rmSync(sidecarPath);
    }
  });

  it('notices a damaged row block when it reads it, answers from a new scan, and rewrites the sidecar', () => {
    const sidecarPath = `${jsonPath}.index`;
    expect(loadIndexFromCache({ jsonPath, source: SOURCE }).from).toBe('scan');
    const tables = LazySubdirIndex.fromBytes(json, SOURCE).tables;
    const spoilPython = () => damage(sidecarPath, (bytes) => blockOf(tables, bytes.length, 'python') + 5);
    spoilPython();
    const warm = loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'positional' });
    expect(warm.from).toBe('sidecar'); // the name table is sound
    expect(warm.index.records('numpy')).toEqual(eagerRecords('numpy'));
    expect(warm.index.records('python')).toEqual(eagerRecords('python'));
    expect(warm.index.records('numpy')).toEqual(eagerRecords('numpy'));
    warm.index.close();
    expectRebuilt(sidecarPath);
    // Reading the whole tables (the server's `memory` mode) checks every block at open.
    spoilPython();
    expect(loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'memory' }).from).toBe('scan');
    expectRebuilt(sidecarPath);
  });

  it('a resolve over a local channel answers the same after its sidecars are damaged', async () => {
    const cacheDir = tempDir('cr-sidecar3-cache-');
    try {
      const args = ['python=3.9', 'numpy', '-c', dir, '-p', 'linux-64', '--json'];
      // In this process: a run's record cache is saved in an immediate after its solve, so each
      // run is let finish that before the files are looked at.
      const settled = () => new Promise((resolve) => setImmediate(resolve));
      const first = await runCli(args, { cacheDir });
      await settled();
      expect(first.code, first.stderr).toBe(0);
      const sidecars = readdirSync(join(cacheDir, 'local'))
        .filter((file) => file.endsWith('.index'))
        .map((file) => join(cacheDir, 'local', file));
      expect(sidecars).toHaveLength(2);
      const sound = sidecars.map((path) => readFileSync(path));
      // Which one is linux-64's, and where python's rows are in it (a name every resolve reads).
      const tables = LazySubdirIndex.fromBytes(json, SOURCE).tables;
      const linux = sound.findIndex((bytes) => Buffer.compare(bytes, encodeIndexSidecar(tables)) === 0);
      expect(linux).toBeGreaterThanOrEqual(0);
      const spoils: [string, (b: Buffer) => number][] = [
        ['the rows of python', (b) => blockOf(tables, b.length, 'python') + 3],
        ['the name table', (b) => b.indexOf('python') + 1],
        ['the header', () => 30],
      ];
      for (const [what, spoil] of spoils) {
        damage(sidecars[linux]!, spoil);
        // Without the record caches, so that the run reads python's rows from the sidecar.
        for (const file of readdirSync(join(cacheDir, 'local'))) if (file.endsWith('.records')) rmSync(join(cacheDir, 'local', file));
        const again = await runCli(args, { cacheDir });
        await settled();
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout, what).toEqual(first.stdout);
        sidecars.forEach((path, i) => expect(Buffer.compare(readFileSync(path), sound[i]!), what).toBe(0));
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
