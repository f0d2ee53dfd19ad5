import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRepodata } from '../../repodata/parse.js';
import { RepodataParseError, RepodataVersionError } from '../../repodata/parse-errors.js';
import type { ChannelRef } from '../../repodata/types.js';
import { CHANNELS_DIR, REPODATA_FILES_DIR, describeShared } from '../helpers/shared.js';

const CONDA_FORGE: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };
const LOCAL: ChannelRef = { name: 'http://127.0.0.1:8080/local', baseUrl: 'http://127.0.0.1:8080/local' };

/** A minimal valid record; tests override fields. */
function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    build: 'py39h1234567_0',
    build_number: 0,
    depends: ['python >=3.9,<3.10.0a0'],
    md5: 'd7c89558ba9fa0495403155b64376d81',
    name: 'demo',
    sha256: 'fe51de6107f9edc7aa4f786a70f4a883943bc9d39b3bb7307c04c41410990726',
    size: 1234,
    subdir: 'linux-64',
    timestamp: 1700000000000,
    version: '1.0',
    ...overrides,
  };
}

function document(parts: Record<string, unknown>): string {
  return JSON.stringify({ info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': {}, ...parts });
}

function parseOne(record: Record<string, unknown>, channel: ChannelRef = CONDA_FORGE) {
  const { records } = parseRepodata(document({ 'packages.conda': { 'demo-1.0-py39h1234567_0.conda': record } }), {
    channel,
    subdir: 'linux-64',
  });
  expect(records).toHaveLength(1);
  return records[0];
}

function parseError(input: string, subdir = 'linux-64'): RepodataParseError {
  try {
    parseRepodata(input, { channel: CONDA_FORGE, subdir });
  } catch (error) {
    expect(error).toBeInstanceOf(RepodataParseError);
    return error as RepodataParseError;
  }
  throw new Error('expected a RepodataParseError');
}

/** Every repodata document in ../shared, with the subdir it was published for. */
function sharedDocuments(): Array<{ path: string; subdir: string }> {
  const out: Array<{ path: string; subdir: string }> = [];
  for (const channel of readdirSync(CHANNELS_DIR, { withFileTypes: true })) {
    if (!channel.isDirectory()) continue;
    for (const subdir of readdirSync(join(CHANNELS_DIR, channel.name))) {
      for (const file of readdirSync(join(CHANNELS_DIR, channel.name, subdir))) {
        out.push({ path: join(CHANNELS_DIR, channel.name, subdir, file), subdir });
      }
    }
  }
  for (const file of readdirSync(REPODATA_FILES_DIR)) out.push({ path: join(REPODATA_FILES_DIR, file), subdir: 'linux-64' });
  return out;
}

/** Record counts from ../shared/channels/README.md. */
const EXPECTED_COUNTS: Record<string, number> = {
  'conda-forge-py39/linux-64': 2709,
  'conda-forge-py39/linux-aarch64': 1911,
  'conda-forge-py39/osx-64': 2237,
  'conda-forge-py39/osx-arm64': 832,
  'conda-forge-py39/win-64': 2339,
  'conda-forge-py39/noarch': 205,
  'defaults-main-2022/linux-aarch64': 5486,
  'defaults-main-2022/noarch': 7372,
  'conda-forge-numpy-linux-64.json': 34,
};

function countKey(path: string): string {
  const rel = relative(CHANNELS_DIR, path);
  return rel.startsWith('..') ? relative(REPODATA_FILES_DIR, path) : rel.split('/').slice(0, 2).join('/');
}

/** Decompress the compressed copies the snapshots ship, to check they parse to the same records. */
async function decompress(path: string): Promise<Uint8Array> {
  const bytes = readFileSync(path);
  if (path.endsWith('.bz2')) return execFileSync('bzip2', ['-dc', path], { maxBuffer: 64 << 20 });
  if (path.endsWith('.zst')) {
    const require = createRequire(import.meta.url);
    type Codec = { Streaming: new () => { decompress(b: Uint8Array): Uint8Array | null } };
    const { ZstdCodec } = require('zstd-codec') as { ZstdCodec: { run(cb: (zstd: Codec) => void): void } };
    const out = await new Promise<Uint8Array | null>((resolve) => ZstdCodec.run((zstd) => resolve(new zstd.Streaming().decompress(bytes))));
    if (!out) throw new Error(`cannot decompress ${path}`);
    return out;
  }
  return bytes;
}

describeShared('parseRepodata on the shared snapshots', () => {
  const documents = sharedDocuments();

  it('finds every snapshot file', () => {
    expect(documents.length).toBeGreaterThanOrEqual(11);
  });

  for (const { path, subdir } of documents) {
    const name = relative(join(CHANNELS_DIR, '..'), path);
    const needsBzip2 = path.endsWith('.bz2') && !existsSync('/usr/bin/bzip2') && !existsSync('/bin/bzip2');
    it.skipIf(needsBzip2)(`parses ${name} with the README's record count and exact URLs`, async () => {
      const { records, info } = parseRepodata(await decompress(path), { channel: CONDA_FORGE, subdir });
      expect(records).toHaveLength(EXPECTED_COUNTS[countKey(path)]);
      // Every record checked, the failures named together (one expect per record and check cost
      // more than the parse itself over a snapshot's ~100,000 records).
      const checks: [string, (record: (typeof records)[number]) => boolean][] = [
        ['url ends with fn', (r) => r.url.endsWith(`/${r.fn}`)],
        ['url in its subdir', (r) => r.url.startsWith(`${CONDA_FORGE.baseUrl}/${r.subdir}/`)],
        ['channel', (r) => r.channel === 'conda-forge'],
        ['md5', (r) => r.md5 === null || /^[0-9a-f]{32}$/.test(r.md5)],
        ['sha256', (r) => r.sha256 === null || /^[0-9a-f]{64}$/.test(r.sha256)],
        ['timestamp in ms', (r) => r.timestamp === null || r.timestamp > 1e12],
        ['constrains and track_features are lists', (r) => Array.isArray(r.constrains) && Array.isArray(r.track_features)],
      ];
      const failures = records.flatMap((record) => checks.filter(([, holds]) => !holds(record)).map(([what]) => `${record.fn}: ${what}`));
      expect(failures).toEqual([]);
      expect(info.removed).toEqual([]);
    });
  }

  it('computes the same URL conda-forge-py39 records carry in their own "url" keys', () => {
    for (const subdir of ['linux-64', 'win-64', 'noarch']) {
      const path = join(CHANNELS_DIR, 'conda-forge-py39', subdir, 'repodata.json');
      const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, { url: string }>>;
      const own = new Map(Object.entries({ ...raw.packages, ...raw['packages.conda'] }).map(([fn, r]) => [fn, r.url]));
      const { records } = parseRepodata(readFileSync(path), { channel: CONDA_FORGE, subdir });
      expect(records.filter((record) => record.url !== own.get(record.fn)).map((record) => record.fn)).toEqual([]);
    }
  });

  it('reads "metadata" in place of "info"', () => {
    const { info } = parseRepodata(readFileSync(join(CHANNELS_DIR, 'conda-forge-py39/linux-64/repodata.json')), { channel: CONDA_FORGE });
    expect(info).toMatchObject({ subdir: 'linux-64', repodataVersion: 2, baseUrl: null });
  });

  it('keeps both the .tar.bz2 and the .conda record of a package published as both', () => {
    const { records } = parseRepodata(readFileSync(join(CHANNELS_DIR, 'defaults-main-2022/linux-aarch64/repodata.json')), {
      channel: CONDA_FORGE,
    });
    const stems = new Map<string, string[]>();
    for (const r of records)
      stems.set(`${r.name}-${r.version}-${r.build}`, [...(stems.get(`${r.name}-${r.version}-${r.build}`) ?? []), r.fn]);
    const both = [...stems.values()].filter((fns) => fns.length === 2);
    expect(both.length).toBeGreaterThan(0);
    for (const fns of both)
      expect(fns.sort().map((fn) => fn.slice(fn.lastIndexOf('-')).replace(/^[^.]*/, ''))).toEqual(['.conda', '.tar.bz2']);
  });

  it('turns timestamps in seconds into milliseconds and "" track_features into none (numpy file)', () => {
    const path = join(REPODATA_FILES_DIR, 'conda-forge-numpy-linux-64.json');
    const raw = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, { timestamp: number }> };
    const { records } = parseRepodata(readFileSync(path), { channel: CONDA_FORGE, subdir: 'linux-64' });
    const mutex = records.find((r) => r.fn === '_libgcc_mutex-0.1-conda_forge.tar.bz2');
    expect(raw.packages['_libgcc_mutex-0.1-conda_forge.tar.bz2'].timestamp).toBe(1578324546);
    expect(mutex).toMatchObject({ timestamp: 1578324546000, track_features: [], constrains: [], depends: [] });
    // linux-64 and noarch records share this file; each URL uses the record's own subdir.
    const noarch = records.filter((r) => r.subdir === 'noarch');
    expect(noarch.length).toBeGreaterThan(0);
    for (const r of noarch) expect(r.url).toBe(`${CONDA_FORGE.baseUrl}/noarch/${r.fn}`);
  });
});

describe('parseRepodata record normalisation', () => {
  it('builds the record from the entry, its key and the channel', () => {
    expect(parseOne(entry({ license: 'BSD-3-Clause', license_family: 'BSD' }))).toEqual({
      name: 'demo',
      version: '1.0',
      build: 'py39h1234567_0',
      build_number: 0,
      channel: 'conda-forge',
      subdir: 'linux-64',
      fn: 'demo-1.0-py39h1234567_0.conda',
      url: 'https://conda.anaconda.org/conda-forge/linux-64/demo-1.0-py39h1234567_0.conda',
      md5: 'd7c89558ba9fa0495403155b64376d81',
      sha256: 'fe51de6107f9edc7aa4f786a70f4a883943bc9d39b3bb7307c04c41410990726',
      size: 1234,
      depends: ['python >=3.9,<3.10.0a0'],
      constrains: [],
      track_features: [],
      features: null,
      license: 'BSD-3-Clause',
      license_family: 'BSD',
      noarch: null,
      timestamp: 1700000000000,
      python_site_packages_path: null,
    });
  });

  it.each([
    ['null constrains', { constrains: null }, 'constrains', []],
    ['null depends', { depends: null }, 'depends', []],
    ['empty track_features string', { track_features: '' }, 'track_features', []],
    ['comma-separated track_features', { track_features: 'mkl,debug' }, 'track_features', ['mkl', 'debug']],
    ['space-separated track_features', { track_features: 'mkl  debug' }, 'track_features', ['mkl', 'debug']],
    ['track_features list', { track_features: ['pypy'] }, 'track_features', ['pypy']],
    ['features string', { features: 'vc14' }, 'features', 'vc14'],
    ['timestamp in seconds', { timestamp: 1578324546 }, 'timestamp', 1578324546000],
    ['fractional seconds', { timestamp: 1578324546.5 }, 'timestamp', 1578324546500],
    ['timestamp in milliseconds', { timestamp: 1578324546067 }, 'timestamp', 1578324546067],
    ['the largest seconds value (9999-12-31)', { timestamp: 253402300799 }, 'timestamp', 253402300799000],
    ['just above it, read as milliseconds', { timestamp: 253402300800 }, 'timestamp', 253402300800],
    ['no timestamp', { timestamp: undefined }, 'timestamp', null],
    ['missing sha256', { sha256: undefined }, 'sha256', null],
    ['uppercase md5', { md5: 'D7C89558BA9FA0495403155B64376D81' }, 'md5', 'd7c89558ba9fa0495403155b64376d81'],
    ['no size', { size: undefined }, 'size', null],
    ['noarch true', { noarch: true }, 'noarch', 'generic'],
    ['noarch false', { noarch: false }, 'noarch', null],
    ['noarch "python"', { noarch: 'python' }, 'noarch', 'python'],
    ['noarch "Generic"', { noarch: 'Generic' }, 'noarch', 'generic'],
    ['noarch "true" (old conda-build)', { noarch: 'true' }, 'noarch', 'generic'],
    ['no build_number', { build_number: undefined }, 'build_number', 0],
    [
      'python_site_packages_path (CEP 17)',
      { python_site_packages_path: 'lib/python3.13t/site-packages' },
      'python_site_packages_path',
      'lib/python3.13t/site-packages',
    ],
  ])('accepts %s', (_label, overrides, field, expected) => {
    expect(parseOne(entry(overrides))[field as 'name']).toEqual(expected);
  });

  it('ignores a record\'s own "url" and "channel" keys, as conda does', () => {
    const record = parseOne(entry({ url: 'https://elsewhere.example/x.conda', channel: 'https://elsewhere.example' }), LOCAL);
    expect(record.url).toBe('http://127.0.0.1:8080/local/linux-64/demo-1.0-py39h1234567_0.conda');
    expect(record.channel).toBe(LOCAL.name);
  });

  it('takes subdir from the record, else info.subdir, else the requested subdir', () => {
    const fn = 'demo-1.0-0.conda';
    const one = (doc: Record<string, unknown>, subdir?: string) =>
      parseRepodata(JSON.stringify(doc), { channel: CONDA_FORGE, subdir }).records[0];
    expect(one({ info: { subdir: 'linux-64' }, 'packages.conda': { [fn]: entry({ subdir: 'noarch' }) } }).subdir).toBe('noarch');
    expect(one({ info: { subdir: 'osx-64' }, 'packages.conda': { [fn]: entry({ subdir: undefined }) } }, 'linux-64').subdir).toBe('osx-64');
    expect(one({ 'packages.conda': { [fn]: entry({ subdir: undefined }) } }, 'win-64').url).toBe(`${CONDA_FORGE.baseUrl}/win-64/${fn}`);
    expect(() => one({ 'packages.conda': { [fn]: entry({ subdir: undefined }) } })).toThrow(/field "subdir" is missing/);
  });

  it.each([
    ['an absolute URL', 'https://repo.example/main/linux-64/', 'https://repo.example/main/linux-64/'],
    ['an absolute URL without a trailing slash', 'https://repo.example/main/linux-64', 'https://repo.example/main/linux-64/'],
    ['a path relative to the subdir', '../../mirror/linux-64', 'https://conda.anaconda.org/mirror/linux-64/'],
    ['a path from the host root', '/pkgs/linux-64/', 'https://conda.anaconda.org/pkgs/linux-64/'],
  ])('resolves info.base_url given as %s (CEP 15)', (_label, baseUrl, expected) => {
    const doc = JSON.stringify({
      info: { subdir: 'linux-64', base_url: baseUrl },
      repodata_version: 2,
      'packages.conda': { 'demo-1.0-0.conda': entry() },
    });
    expect(parseRepodata(doc, { channel: CONDA_FORGE, subdir: 'linux-64' }).records[0].url).toBe(`${expected}demo-1.0-0.conda`);
  });

  it('drops the files listed under "removed" from both sections', () => {
    const doc = document({
      packages: { 'demo-1.0-0.tar.bz2': entry(), 'demo-1.1-0.tar.bz2': entry({ version: '1.1' }) },
      'packages.conda': { 'demo-1.0-0.conda': entry(), 'demo-1.1-0.conda': entry({ version: '1.1' }) },
      removed: ['demo-1.0-0.tar.bz2', 'demo-1.1-0.conda', 'not-there-1-0.conda'],
    });
    const { records, info } = parseRepodata(doc, { channel: CONDA_FORGE });
    expect(records.map((r) => r.fn)).toEqual(['demo-1.1-0.tar.bz2', 'demo-1.0-0.conda']);
    expect(info.removed).toHaveLength(3);
  });

  it('lists packages (.tar.bz2) before packages.conda, each in document order', () => {
    const doc = JSON.stringify({
      'packages.conda': { 'b-1-0.conda': entry({ name: 'b' }), 'a-1-0.conda': entry({ name: 'a' }) },
      packages: { 'c-1-0.tar.bz2': entry({ name: 'c' }) },
      info: { subdir: 'linux-64' },
    });
    expect(parseRepodata(doc, { channel: CONDA_FORGE }).records.map((r) => r.fn)).toEqual(['c-1-0.tar.bz2', 'b-1-0.conda', 'a-1-0.conda']);
  });

  it('accepts a UTF-8 byte order mark and an empty document', () => {
    const bytes = new TextEncoder().encode(`\uFEFF${document({ 'packages.conda': { 'demo-1.0-0.conda': entry() } })}`);
    expect(parseRepodata(bytes, { channel: CONDA_FORGE }).records).toHaveLength(1);
    expect(parseRepodata('{}', { channel: CONDA_FORGE, subdir: 'noarch' }).records).toEqual([]);
  });
});

describe('parseRepodata errors', () => {
  it('reports invalid JSON with the channel/subdir, byte offset, line and column', () => {
    const error = parseError('{\n  "packages": {\n    "a": }\n}');
    expect(error.code).toBe('CR_ERR_REPODATA_PARSE');
    expect(error.message).toMatch(/^Cannot parse repodata for conda-forge\/linux-64: invalid JSON at byte 27 \(line 3, column 10\)/);
    expect(error.byteOffset).toBe(27);
  });

  it('says a truncated document ends unexpectedly', () => {
    expect(parseError('{"packages": {"a-1-0.conda": {"name"').message).toMatch(/ends unexpectedly/);
  });

  it.each([
    ['a JSON array', '[]', /the document is not a JSON object/],
    ['"packages" as a list', '{"packages": []}', /"packages" must be an object/],
    ['a record that is not an object', document({ packages: { 'x-1-0.tar.bz2': 3 } }), /record "x-1-0.tar.bz2" must be an object/],
    [
      'a record without a name',
      document({ packages: { 'x-1-0.tar.bz2': entry({ name: undefined }) } }),
      /record "x-1-0.tar.bz2" field "name" is missing/,
    ],
    [
      'a record without a version',
      document({ packages: { 'x-1-0.tar.bz2': entry({ version: undefined }) } }),
      /field "version" is missing/,
    ],
    ['a record without a build', document({ packages: { 'x-1-0.tar.bz2': entry({ build: undefined }) } }), /field "build" is missing/],
    [
      'a numeric version',
      document({ packages: { 'x-1-0.tar.bz2': entry({ version: 1.1 }) } }),
      /field "version" must be a non-empty string, got 1.1/,
    ],
    [
      'depends with a number',
      document({ packages: { 'x-1-0.tar.bz2': entry({ depends: ['a', 2] }) } }),
      /field "depends" must be a list of strings/,
    ],
    ['a bad md5', document({ packages: { 'x-1-0.tar.bz2': entry({ md5: 'xyz' }) } }), /field "md5" must be a hex digest, got "xyz"/],
    ['a negative size', document({ packages: { 'x-1-0.tar.bz2': entry({ size: -1 }) } }), /field "size" must be a non-negative integer/],
    [
      'an unknown noarch kind',
      document({ packages: { 'x-1-0.tar.bz2': entry({ noarch: 'rust' }) } }),
      /field "noarch" must be "python", "generic" or a boolean, got "rust"/,
    ],
    ['"removed" that is not a list', document({ removed: 'x' }), /"removed" must be a list of file names/],
    ['an invalid base_url', JSON.stringify({ info: { base_url: 'http://[bad' } }), /"info.base_url" "http:\/\/\[bad" is not a valid URL/],
  ])('rejects %s with a RepodataParseError naming it', (_label, input, pattern) => {
    const error = parseError(input);
    expect(error.message).toMatch(/^Cannot parse repodata for conda-forge\/linux-64: /);
    expect(error.message).toMatch(pattern);
  });

  it('refuses repodata_version 3, as conda does', () => {
    expect(() => parseRepodata('{"repodata_version": 3}', { channel: CONDA_FORGE, subdir: 'noarch' })).toThrow(RepodataVersionError);
    expect(() => parseRepodata('{"repodata_version": 3}', { channel: CONDA_FORGE, subdir: 'noarch' })).toThrow(
      /repodata_version 3 is newer than the supported versions 1 and 2/,
    );
  });

  it('never throws anything but RepodataParseError on corrupted documents', () => {
    const valid = document({
      packages: { 'demo-1.0-0.tar.bz2': entry() },
      'packages.conda': { 'demo-1.0-0.conda': entry({ track_features: 'a b' }) },
    });
    fc.assert(
      fc.property(fc.nat(valid.length), fc.string({ maxLength: 3 }), fc.nat(3), (at, insert, cut) => {
        const corrupted = valid.slice(0, at) + insert + valid.slice(at + cut);
        try {
          parseRepodata(corrupted, { channel: CONDA_FORGE, subdir: 'linux-64' });
        } catch (error) {
          expect(error).toBeInstanceOf(RepodataParseError);
        }
      }),
      { numRuns: 300 },
    );
  });
});
