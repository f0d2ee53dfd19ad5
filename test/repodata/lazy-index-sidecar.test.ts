import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { fingerprintBytes } from '../../repodata/lazy/span-tables.js';
import { loadIndexFromCache, writeIndexSidecar } from '../../repodata/lazy/cached-repodata.js';
import { RepodataFile } from '../../repodata/lazy/repodata-file.js';
import { decodeIndexSidecar, encodeIndexSidecar } from '../../repodata/lazy/sidecar.js';
import { LazySubdirIndex, bytesInMemory } from '../../repodata/lazy/lazy-subdir-index.js';
import { parseRepodata } from '../../repodata/parse.js';
import { RepodataIndexUnsupportedError } from '../../repodata/parse-errors.js';
import type { ChannelRef, SubdirIndex } from '../../repodata/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';

const CHANNEL: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };
const SOURCE = { channel: CHANNEL, subdir: 'linux-64' };

function eagerByName(bytes: Uint8Array): Map<string, PackageRecord[]> {
  const out = new Map<string, PackageRecord[]>();
  for (const record of parseRepodata(bytes, SOURCE).records) out.set(record.name, [...(out.get(record.name) ?? []), record]);
  return out;
}

function expectSameAsEager(index: SubdirIndex, bytes: Uint8Array): void {
  const eager = eagerByName(bytes);
  expect(new Set(index.names())).toEqual(new Set(eager.keys()));
  for (const [name, records] of eager) expect(index.records(name)).toEqual(records);
}

let dir: string;
let jsonPath: string;
let json: Uint8Array;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cr-sidecar-'));
  // A small generated channel: same shapes as the benchmark's, a few hundred records.
  generateChannel({ out: dir, records: 1500, names: 150, noarchRecords: 60, noarchNames: 30, seed: 7 });
  jsonPath = join(dir, 'linux-64', 'repodata.json');
  json = readFileSync(jsonPath);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('index sidecars', () => {
  it('round-trip the tables exactly', () => {
    const scanned = LazySubdirIndex.fromBytes(json, SOURCE);
    const sidecar = encodeIndexSidecar(scanned.tables);
    const decoded = decodeIndexSidecar(sidecar, { byteLength: json.length, fingerprint: fingerprintBytes(json) }, 'x');
    expect(decoded).toEqual(scanned.tables);
    expectSameAsEager(new LazySubdirIndex(decoded, bytesInMemory(json), SOURCE), json);
    // About 21 bytes per record plus the names.
    expect(sidecar.length).toBeLessThan(scanned.recordCount * 24 + 64 * 1024);
  });

  it('refuse a sidecar for another document, a damaged one, or something else', () => {
    const sidecar = encodeIndexSidecar(LazySubdirIndex.fromBytes(json, SOURCE).tables);
    const expected = { byteLength: json.length, fingerprint: fingerprintBytes(json) };
    const decode =
      (bytes: Uint8Array, wanted = expected) =>
      () =>
        decodeIndexSidecar(bytes, wanted, 'conda-forge/linux-64');
    expect(decode(sidecar, { ...expected, byteLength: expected.byteLength + 1 })).toThrow(/belongs to a different repodata.json/);
    expect(decode(sidecar, { ...expected, fingerprint: expected.fingerprint ^ 1 })).toThrow(/belongs to a different repodata.json/);
    const damaged = sidecar.slice();
    damaged[damaged.length >> 1] ^= 0xff;
    expect(decode(damaged)).toThrow(/is corrupted/);
    expect(decode(sidecar.slice(0, sidecar.length - 100))).toThrow(RepodataIndexUnsupportedError);
    expect(decode(new TextEncoder().encode('{"not": "a sidecar"}'))).toThrow(/is not an index sidecar/);
  });
});

describe('loadIndexFromCache', () => {
  it('scans and writes a sidecar the first time, then starts from the sidecar', () => {
    const first = loadIndexFromCache({ jsonPath, source: SOURCE });
    expect(first.from).toBe('scan');
    expect(existsSync(`${jsonPath}.index`)).toBe(true);
    expectSameAsEager(first.index, json);
    for (const bytes of ['memory', 'positional'] as const) {
      const warm = loadIndexFromCache({ jsonPath, source: SOURCE, bytes });
      expect(warm.from).toBe('sidecar');
      expectSameAsEager(warm.index, json);
      warm.index.close();
    }
  });

  it('rebuilds when the cached JSON changed under the sidecar', () => {
    loadIndexFromCache({ jsonPath, source: SOURCE });
    // Same length, a different byte in the first 4 KiB (a fingerprinted range): one digit of an md5.
    const changed = Buffer.from(json);
    const at = changed.indexOf('"md5": "') + 8;
    expect(at).toBeLessThan(4096);
    changed[at] = changed[at] === 0x61 ? 0x62 : 0x61;
    writeFileSync(jsonPath, changed);
    expect(loadIndexFromCache({ jsonPath, source: SOURCE }).from).toBe('scan');
    // A different length.
    writeFileSync(jsonPath, Buffer.concat([json, Buffer.from('\n')]));
    const again = loadIndexFromCache({ jsonPath, source: SOURCE });
    expect(again.from).toBe('scan');
    expectSameAsEager(again.index, readFileSync(jsonPath));
  });

  it('indexes a document whose package section is given twice as JSON.parse reads it, sidecar included', () => {
    writeFileSync(jsonPath, '{"packages":{"a-1-0.tar.bz2":{"name":"a","build":"0","version":"1"}},"packages":{}}');
    const loaded = loadIndexFromCache({ jsonPath, source: SOURCE });
    expect(loaded.from).toBe('scan');
    expect([...loaded.index.names()]).toEqual([]);
    expect(existsSync(`${jsonPath}.index`)).toBe(true);
    expect(loadIndexFromCache({ jsonPath, source: SOURCE }).from).toBe('sidecar');
  });

  it('still serves when the sidecar cannot be written', () => {
    const loaded = loadIndexFromCache({ jsonPath, source: SOURCE, sidecarPath: join(dir, 'missing-dir', 'x.index') });
    expect(loaded.from).toBe('scan');
    expectSameAsEager(loaded.index, json);
  });

  it('reads only the spans it needs from a positional file, and can still be shared whole', () => {
    writeIndexSidecar(`${jsonPath}.index`, LazySubdirIndex.fromBytes(json, SOURCE).tables);
    const { index } = loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'positional' });
    const python = index.records('python');
    expect(python.length).toBeGreaterThan(50);
    const handle = (index as LazySubdirIndex).toShared();
    expect(handle.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(LazySubdirIndex.fromShared(handle).records('python')).toEqual(python);
    index.close();
    expect(index.records('python')).toBe(python); // cached before closing
    expect(() => index.records('numpy')).toThrow(/closed/);
  });

  it('reports a missing cache file as a file error', () => {
    expect(() => RepodataFile.open(join(dir, 'nope.json'))).toThrow(/ENOENT/);
  });
});
