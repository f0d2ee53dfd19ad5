/**
 * The record cache beside a sidecar (`<sidecar>.records`): a later process gets a name's records
 * from it, equal to reading them from the repodata.json; it is ignored (and replaced) when it was
 * made for other repodata or another channel, or is damaged; and a cache directory that cannot be
 * written only means no cache.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { loadIndexFromCache } from '../../repodata/lazy/cached-repodata.js';
import { LazySubdirIndex } from '../../repodata/lazy/lazy-subdir-index.js';
import { RECORD_CACHE_VERSION } from '../../repodata/lazy/record-cache.js';
import { normaliseRecord, recordContext } from '../../repodata/record-normalise.js';
import type { ChannelRef } from '../../repodata/types.js';
import { tempDir } from '../cli/run-cli.js';
import { recordCacheSaved } from './store-helpers.js';

const CHANNEL: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };
const SOURCE = { channel: CHANNEL, subdir: 'linux-64' };

/** The records of `names` read by a fresh index over `jsonPath`'s sidecar. */
function readNames(jsonPath: string, names: readonly string[], source = SOURCE): unknown[] {
  const { index, from } = loadIndexFromCache({ jsonPath, source, bytes: 'positional' });
  expect(from).toBe('sidecar');
  try {
    return names.map((name) => index.records(name));
  } finally {
    index.close();
  }
}

describe('the record cache', () => {
  let dir: string;
  let jsonPath: string;
  let cachePath: string;
  let names: string[];
  let fresh: unknown[];

  beforeEach(() => {
    dir = tempDir('cr-record-cache-');
    generateChannel({ out: dir, records: 1500, names: 150, noarchRecords: 60, noarchNames: 30, seed: 11 });
    jsonPath = join(dir, 'linux-64', 'repodata.json');
    cachePath = `${jsonPath}.index.records`;
    // The sidecar first (a scan); the names and their records as read from the JSON, with no cache.
    const scanned = loadIndexFromCache({ jsonPath, source: SOURCE });
    names = [...scanned.index.names()].slice(0, 12);
    scanned.index.close();
    const bytes = readFileSync(jsonPath);
    const index = LazySubdirIndex.fromBytes(bytes, SOURCE);
    fresh = names.map((name) => index.records(name));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written after a first read and gives the same records to the next process', async () => {
    expect(readNames(jsonPath, names)).toEqual(fresh);
    await recordCacheSaved();
    expect(existsSync(cachePath)).toBe(true);
    // The next index reads them from the cache: the repodata.json could be gone for all it knows.
    const { index } = loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'positional' });
    rmSync(jsonPath);
    expect(names.map((name) => index.records(name))).toEqual(fresh);
    index.close();
  });

  it('adds names read later to those it has', async () => {
    readNames(jsonPath, names.slice(0, 5));
    await recordCacheSaved();
    readNames(jsonPath, names.slice(5));
    await recordCacheSaved();
    const header = JSON.parse(readFileSync(cachePath, 'utf8').split('\n')[0]) as { names: Record<string, unknown> };
    expect(Object.keys(header.names).sort()).toEqual([...names].sort());
    expect(readNames(jsonPath, names)).toEqual(fresh);
  });

  it('is not used for another channel over the same file: the records name that channel', async () => {
    readNames(jsonPath, names);
    await recordCacheSaved();
    const mirror: ChannelRef = { name: 'https://mirror.example/conda-forge', baseUrl: 'https://mirror.example/conda-forge' };
    const records = readNames(jsonPath, names, { channel: mirror, subdir: 'linux-64' }) as { channel: string; url: string }[][];
    for (const list of records) {
      for (const record of list) {
        expect(record.channel).toBe(mirror.name);
        expect(record.url.startsWith('https://mirror.example/conda-forge/linux-64/')).toBe(true);
      }
    }
  });

  it('is ignored when damaged, and replaced', async () => {
    readNames(jsonPath, names);
    await recordCacheSaved();
    const whole = readFileSync(cachePath);
    for (const damaged of [
      whole.subarray(0, whole.length - 10),
      Buffer.from('not a cache'),
      Buffer.concat([whole.subarray(0, whole.length - 3), Buffer.from('!!!')]),
    ]) {
      writeFileSync(cachePath, damaged);
      expect(readNames(jsonPath, names)).toEqual(fresh);
    }
    await recordCacheSaved();
    expect(readFileSync(cachePath).length).toBe(whole.length);
  });

  it('is not trusted for a name whose records name another package', async () => {
    readNames(jsonPath, names.slice(0, 1));
    await recordCacheSaved();
    const text = readFileSync(cachePath, 'latin1');
    const newline = text.indexOf('\n');
    // The same length, so the spans stay right: every record of the first name now names another.
    const other = names[0].slice(0, -1) + (names[0].endsWith('x') ? 'y' : 'x');
    const body = text.slice(newline).replaceAll(`"name":"${names[0]}"`, `"name":"${other}"`);
    expect(body).not.toBe(text.slice(newline));
    writeFileSync(cachePath, text.slice(0, newline) + body, 'latin1');
    expect(readNames(jsonPath, names.slice(0, 1))).toEqual(fresh.slice(0, 1));
  });

  it('works where it cannot be written', async () => {
    // A directory in its place: reading it fails, and so does renaming a file over it (even as root).
    mkdirSync(join(cachePath, 'taken'), { recursive: true });
    expect(readNames(jsonPath, names)).toEqual(fresh);
    await recordCacheSaved();
    expect(statSync(cachePath).isDirectory()).toBe(true);
    expect(readdirSync(join(dir, 'linux-64')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reads the file it opened when another process replaces it meanwhile', async () => {
    readNames(jsonPath, names.slice(0, 6));
    await recordCacheSaved();
    const { index } = loadIndexFromCache({ jsonPath, source: SOURCE, bytes: 'positional' });
    try {
      expect(index.records(names[0])).toEqual(fresh[0]); // opens the file, reads its header
      // Another process adds names: its file, renamed into place, has a longer header.
      readNames(jsonPath, names.slice(6));
      await recordCacheSaved();
      const header = JSON.parse(readFileSync(cachePath, 'utf8').split('\n')[0]) as { names: Record<string, unknown> };
      expect(Object.keys(header.names)).toHaveLength(names.length);
      expect(names.slice(1, 6).map((name) => index.records(name))).toEqual(fresh.slice(1, 6));
    } finally {
      index.close();
    }
  });

  it('keeps its file when nothing new was read', async () => {
    readNames(jsonPath, names);
    await recordCacheSaved();
    const before = statSync(cachePath).mtimeMs;
    readNames(jsonPath, names);
    await recordCacheSaved();
    expect(statSync(cachePath).mtimeMs).toBe(before);
  });
});

describe('the record cache version', () => {
  it('names the shape of a normalised record: a change to it must bump RECORD_CACHE_VERSION', () => {
    const context = recordContext(SOURCE, { subdir: 'linux-64', baseUrl: null, repodataVersion: 1, removed: [] });
    const record = normaliseRecord(
      { name: 'a', version: '1', build: '0', build_number: 0, depends: ['b'], timestamp: 1 },
      'a-1-0.conda',
      context,
    );
    // Kept records are read back as they were written: when the fields below change (or what
    // normalising puts in them), records of the old shape must not be read, so bump the version
    // in repodata/lazy/record-cache.ts together with this list.
    expect({ version: RECORD_CACHE_VERSION, fields: Object.keys(record) }).toEqual({
      version: 1,
      fields: [
        'name',
        'version',
        'build',
        'build_number',
        'channel',
        'subdir',
        'fn',
        'url',
        'md5',
        'sha256',
        'size',
        'depends',
        'constrains',
        'track_features',
        'features',
        'license',
        'license_family',
        'noarch',
        'timestamp',
        'python_site_packages_path',
      ],
    });
  });
});
