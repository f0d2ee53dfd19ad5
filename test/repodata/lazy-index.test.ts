import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { indexRepodata } from '../../repodata/monolithic.js';
import { LazySubdirIndex } from '../../repodata/lazy/lazy-subdir-index.js';
import { parseRepodata } from '../../repodata/parse.js';
import { RepodataIndexUnsupportedError, RepodataParseError } from '../../repodata/parse-errors.js';
import type { ChannelRef, SubdirIndex } from '../../repodata/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { CHANNELS_DIR, REPODATA_FILES_DIR, describeShared } from '../helpers/shared.js';
import { depth } from '../helpers/depth.js';

const CHANNEL: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };
const encoder = new TextEncoder();

const SHARED_FILES: Array<[string, string]> = [
  ['conda-forge-py39/linux-64/repodata.json', 'linux-64'],
  ['conda-forge-py39/linux-aarch64/repodata.json', 'linux-aarch64'],
  ['conda-forge-py39/noarch/repodata.json', 'noarch'],
  ['conda-forge-py39/osx-64/repodata.json', 'osx-64'],
  ['conda-forge-py39/osx-arm64/repodata.json', 'osx-arm64'],
  ['conda-forge-py39/win-64/repodata.json', 'win-64'],
  ['defaults-main-2022/linux-aarch64/repodata.json', 'linux-aarch64'],
  ['defaults-main-2022/noarch/repodata.json', 'noarch'],
];

function groupByName(records: readonly PackageRecord[]): Map<string, PackageRecord[]> {
  const out = new Map<string, PackageRecord[]>();
  for (const record of records) {
    const list = out.get(record.name);
    if (list) list.push(record);
    else out.set(record.name, [record]);
  }
  return out;
}

/** The lazy index answers exactly what the eager parser produces, name by name, in order. */
function expectEquivalent(index: SubdirIndex, input: Uint8Array | string, subdir = 'linux-64'): void {
  const eager = groupByName(parseRepodata(input, { channel: CHANNEL, subdir }).records);
  expect(new Set(index.names())).toEqual(new Set(eager.keys()));
  let total = 0;
  for (const [name, records] of eager) {
    expect(index.has(name)).toBe(true);
    expect(index.records(name)).toEqual(records);
    total += records.length;
  }
  expect(index.recordCount).toBe(total);
}

function lazy(input: string | Uint8Array, subdir = 'linux-64'): LazySubdirIndex {
  return LazySubdirIndex.fromBytes(typeof input === 'string' ? encoder.encode(input) : input, { channel: CHANNEL, subdir });
}

function record(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { build: 'h0_0', build_number: 0, depends: [], name, subdir: 'linux-64', version: '1.0', ...overrides };
}

type Doc = Record<string, unknown> & {
  packages?: Record<string, Record<string, unknown>>;
  'packages.conda'?: Record<string, Record<string, unknown>>;
};

/** Serialise with the keys of every record reversed (so `name` is rarely first) and sections swapped. */
function reorder(doc: Doc): Doc {
  const flip = (section: Record<string, Record<string, unknown>> | undefined) =>
    section && Object.fromEntries(Object.entries(section).map(([fn, r]) => [fn, Object.fromEntries(Object.entries(r).reverse())]));
  const out: Doc = {};
  for (const key of Object.keys(doc).reverse())
    out[key] = key === 'packages' || key === 'packages.conda' ? flip(doc[key] as Doc['packages']) : doc[key];
  return out;
}

/** JSON with every character from `escapeSet` written as a \u escape, keys included. */
function stringifyEscaped(value: unknown, escapeSet: RegExp): string {
  return JSON.stringify(value).replace(
    /"(?:[^"\\]|\\.)*"/g,
    (literal) =>
      literal.slice(0, 1) +
      literal
        .slice(1, -1)
        .replace(/\\.|[^]/g, (ch) =>
          ch.length === 1 && escapeSet.test(ch) ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch,
        ) +
      '"',
  );
}

/** Odd strings a scanner must not trip on. */
const ODD = 'a "quoted" {brace} [bracket] \\ back\\slash \\" é 😀 } ] , : \u2028 \t';

function withOddities(doc: Doc): Doc {
  const out: Doc = { ...doc };
  for (const section of ['packages', 'packages.conda'] as const) {
    const entries = doc[section];
    if (!entries) continue;
    out[section] = Object.fromEntries(
      Object.entries(entries).map(([fn, r], i) =>
        i % 7 === 0
          ? [fn, { note: ODD, nested: { name: 'decoy', deeper: [1, { name: '}' }, '"]'] }, ...r, 'name ': 'not the name' }]
          : [fn, r],
      ),
    );
  }
  return out;
}

describeShared('the lazy index on the shared snapshots', () => {
  for (const [file, subdir] of SHARED_FILES) {
    it(`answers exactly like the eager parser for ${file}`, () => {
      const bytes = readFileSync(join(CHANNELS_DIR, file));
      expectEquivalent(lazy(bytes, subdir), bytes, subdir);
    });
  }

  it('answers exactly like the eager parser for repodata-files/conda-forge-numpy-linux-64.json', () => {
    const bytes = readFileSync(join(REPODATA_FILES_DIR, 'conda-forge-numpy-linux-64.json'));
    expectEquivalent(lazy(bytes), bytes);
  });

  describe('survives formatting variants of conda-forge-py39/osx-arm64', () => {
    const original = JSON.parse(readFileSync(join(CHANNELS_DIR, 'conda-forge-py39/osx-arm64/repodata.json'), 'utf8')) as Doc;
    const variants: Array<[string, string]> = [
      ['compact', JSON.stringify(original)],
      ['indent=4', JSON.stringify(original, null, 4)],
      ['tab indentation and CRLF line ends', JSON.stringify(original, null, '\t').replace(/\n/g, '\r\n')],
      ['keys in reverse order, name not first, packages.conda first', JSON.stringify(reorder(original), null, 1)],
      ['strings with braces, quotes, escapes and decoy "name" keys in nested objects', JSON.stringify(withOddities(original), null, 2)],
      [
        'every letter n, a, m, e and every non-ASCII character escaped, keys included',
        stringifyEscaped(withOddities(original), /[name\u0080-\uffff]/),
      ],
    ];
    // The original's file names, read once for the six variants.
    let originalFiles: string[] | undefined;
    for (const [label, text] of variants) {
      it(label, () => {
        expectEquivalent(lazy(text, 'osx-arm64'), text, 'osx-arm64');
        // And the variant still means the same records as the original.
        expect(
          parseRepodata(text, { channel: CHANNEL })
            .records.map((r) => r.fn)
            .sort(),
        ).toEqual(
          (originalFiles ??= parseRepodata(JSON.stringify(original), { channel: CHANNEL })
            .records.map((r) => r.fn)
            .sort()),
        );
      });
    }
  });
});

describe('the lazy index on generated conda-forge-shaped channels', () => {
  for (const compact of [false, true]) {
    it(`answers exactly like the eager parser (${compact ? 'compact' : 'indent=2'})`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'cr-lazy-'));
      try {
        generateChannel({ out: dir, records: 3000, names: 300, noarchRecords: 400, noarchNames: 60, seed: compact ? 3 : 4, compact });
        for (const subdir of ['linux-64', 'noarch']) {
          const bytes = readFileSync(join(dir, subdir, 'repodata.json'));
          const index = lazy(bytes, subdir);
          expectEquivalent(index, bytes, subdir);
          expect(index.recordCount).toBe(subdir === 'linux-64' ? 3000 : 400);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('the lazy index', () => {
  const doc = {
    info: { subdir: 'linux-64' },
    packages: { 'a-1.0-h0_0.tar.bz2': record('a'), 'b-1.0-h0_0.tar.bz2': record('b', { depends: ['a'] }) },
    'packages.conda': { 'a-1.0-h0_0.conda': record('a'), 'a-2.0-h0_0.conda': record('a', { version: '2.0' }) },
    removed: ['a-1.0-h0_0.tar.bz2'],
  };

  it('parses a name once and hands out the same records afterwards', () => {
    const index = lazy(JSON.stringify(doc));
    const first = index.records('a');
    expect(first.map((r) => r.fn)).toEqual(['a-1.0-h0_0.conda', 'a-2.0-h0_0.conda']);
    expect(index.records('a')).toBe(first);
    expect(index.records('nope')).toEqual([]);
    expect(index.has('nope')).toBe(false);
    expect(index.recordCount).toBe(3);
  });

  it('leaves out names whose only records were removed', () => {
    const index = lazy(JSON.stringify({ ...doc, removed: ['b-1.0-h0_0.tar.bz2'] }));
    expect([...index.names()].sort()).toEqual(['a']);
    expect(index.has('b')).toBe(false);
  });

  it('ignores a removed entry without a name or not an object, as the eager parser does (found by fuzzing)', () => {
    for (const bad of ['{"build":"0","version":"1"}', '3', '{"name":""}']) {
      const text = `{"packages":{"a-1-0.tar.bz2":${bad},"b-1-0.tar.bz2":{"name":"b","build":"0","version":"1"}},"removed":["a-1-0.tar.bz2"],"info":{"subdir":"linux-64"}}`;
      expectEquivalent(lazy(text), text);
      const kept = text.replace('"removed":["a-1-0.tar.bz2"]', '"removed":[]');
      expect(() => lazy(kept)).toThrow(RepodataParseError);
      expect(() => parseRepodata(kept, { channel: CHANNEL })).toThrow(RepodataParseError);
    }
  });

  it('uses the last of repeated "name" keys, as JSON.parse does', () => {
    const text = '{"info":{"subdir":"linux-64"},"packages":{"x-1-0.tar.bz2":{"name":"wrong","build":"0","version":"1","name":"x"}}}';
    expectEquivalent(lazy(text), text);
    expect(lazy(text).has('wrong')).toBe(false);
  });

  it('keeps the first position and last value of a repeated file name, as JSON.parse does', () => {
    const text =
      '{"info":{"subdir":"linux-64"},"packages":{' +
      '"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1","size":1},' +
      '"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"},' +
      '"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1","size":2}}}';
    const index = lazy(text);
    expectEquivalent(index, text);
    expect(index.records('x').map((r) => r.size)).toEqual([2]);
  });

  it('reproduces what JSON.parse makes of repeated sections, renamed repeats and integer-like file names', () => {
    const cases = [
      // A section given twice: the last copy, wherever the other section is.
      '{"packages":{"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1"}},"packages":{"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}}}',
      '{"packages":{"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1"}},"packages.conda":{"z-1-0.conda":{"name":"z","build":"0","version":"1"}},"packages":{"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}}}',
      '{"packages":7,"packages":{"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}}}',
      '{"packages":{"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}},"packages":null}',
      // A file name repeated under another package name: its first position, its last value.
      '{"packages":{"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1"},"w-1-0.tar.bz2":{"name":"y","build":"0","version":"0"},"x-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}}}',
      // An entry without a usable name replaced by a later copy of its file name.
      '{"packages":{"x-1-0.tar.bz2":{"build":"0"},"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1"}}}',
      // Integer-like file names come first, by value; escaped ones too.
      '{"packages":{"b":{"name":"x","build":"0","version":"3"},"12":{"name":"x","build":"0","version":"1"},"a":{"name":"x","build":"0","version":"2"},"\\u0033":{"name":"x","build":"0","version":"4"},"012":{"name":"x","build":"0","version":"5"}}}',
    ];
    for (const text of cases) {
      const index = indexRepodata(encoder.encode(text), { channel: CHANNEL, subdir: 'linux-64' });
      expect(index, text).toBeInstanceOf(LazySubdirIndex);
      expectEquivalent(index, text);
    }
  });

  it('fails as the eager parser does when a later copy of a file name has no usable name', () => {
    const text =
      '{"packages":{"x-1-0.tar.bz2":{"name":"x","build":"0","version":"1"},"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"},"x-1-0.tar.bz2":{"build":"0"}}}';
    expect(() => parseRepodata(text, { channel: CHANNEL, subdir: 'linux-64' })).toThrow(RepodataParseError);
    expect(() => lazy(text)).toThrow(/record "x-1-0.tar.bz2" field "name" is missing/);
    expect(() => lazy('{"packages":7,"packages.conda":{}}')).toThrow(/"packages" must be an object of file name to record/);
  });

  it('rejects a truncated or malformed document at once, with the byte position', () => {
    const text = JSON.stringify(doc);
    for (const cut of [1, 20, text.indexOf('"b-1.0') + 3, text.length - 1]) {
      expect(() => lazy(text.slice(0, cut))).toThrow(RepodataParseError);
    }
    expect(() => lazy('{"packages": {"x": {"name": "x"} "y": {}}}')).toThrow(
      /invalid JSON at byte 33 \(line 1, column 34\): expected "," or "}" in "packages", found "\\""/,
    );
    expect(() => lazy('{"packages": {"x": {"build": "0"}}}')).toThrow(/record "x" field "name" is missing/);
    expect(() => lazy('{"packages": {"x": {"name": 7}}}')).toThrow(/record "x" field "name" must be a non-empty string/);
  });

  it('reports a malformed record when its name is read, and still serves the other names', () => {
    const text =
      '{"info":{"subdir":"linux-64"},"packages":{"x-1-0.tar.bz2":{"name":"x","build":"0","version":01},"y-1-0.tar.bz2":{"name":"y","build":"0","version":"1"}}}';
    const index = lazy(text);
    expect(index.records('y')).toHaveLength(1);
    expect(() => index.records('x')).toThrow(/invalid JSON in record "x-1-0.tar.bz2" at byte 93: expected "," or "}"/);
  });

  it('matches the eager parser on random documents with random formatting', () => {
    const names = ['numpy', 'py', 'a', 'x-y', 'ñame', 'q"uote', 'br{ace}'];
    const text = fc.string({
      unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ':', ',', ' ', 'é', '😀', '\n', 'n'),
      maxLength: 12,
    });
    const rawRecord = fc.record(
      {
        name: fc.constantFrom(...names),
        version: fc.constantFrom('1.0', '2.0.1', '1.0a1'),
        build: fc.constantFrom('h0_0', 'py39h1_1'),
        build_number: fc.nat(5),
        depends: fc.array(text, { maxLength: 3 }),
        license: fc.option(text, { nil: undefined }),
        extra: fc.option(fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 2 })), { maxKeys: 2 }), {
          nil: undefined,
        }),
      },
      { requiredKeys: ['name', 'version', 'build'] },
    );
    const section = fc.array(fc.tuple(fc.oneof(fc.constantFrom('f1.conda', 'f2.tar.bz2', 'f3', '12', '7', '0', '07'), text), rawRecord), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        section,
        section,
        fc.constantFrom(0, 1, 2, '\t'),
        fc.boolean(),
        fc.boolean(),
        (pkgs, condas, indent, escapeNames, reversed) => {
          // Build the text by hand so repeated file names stay repeated.
          const ser = (value: unknown) => (escapeNames ? stringifyEscaped(value, /[nmé]/) : JSON.stringify(value, null, indent));
          const sectionText = (entries: typeof pkgs) =>
            `{${entries.map(([fn, r]) => `${ser(fn)}: ${ser(reversed ? Object.fromEntries(Object.entries(r).reverse()) : r)}`).join(',\n')}}`;
          const body = [`"packages": ${sectionText(pkgs)}`, `"packages.conda": ${sectionText(condas)}`, `"info": {"subdir": "linux-64"}`];
          const doc = `{${(reversed ? body.reverse() : body).join(',\n')}}`;
          expectEquivalent(lazy(doc), doc);
        },
      ),
      // 80 random documents (a new seed each run) keep the default suite fast; CR_DEEP=1 makes 200.
      { numRuns: depth(80, 200) },
    );
  });

  it('on corrupted documents, agrees with the eager parser whenever that succeeds, and only throws typed errors', () => {
    const valid = JSON.stringify(withOddities(doc as Doc), null, 1);
    fc.assert(
      fc.property(
        fc.nat(valid.length),
        fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', ' ', 'n'), maxLength: 3 }),
        fc.nat(3),
        (at, insert, cut) => {
          const corrupted = valid.slice(0, at) + insert + valid.slice(at + cut);
          let eagerOk = true;
          try {
            parseRepodata(corrupted, { channel: CHANNEL, subdir: 'linux-64' });
          } catch (error) {
            expect(error).toBeInstanceOf(RepodataParseError);
            eagerOk = false;
          }
          let index: LazySubdirIndex;
          try {
            index = lazy(corrupted);
          } catch (error) {
            // Whatever the eager parser reads, the scan reads too.
            expect(eagerOk).toBe(false);
            expect(error).toBeInstanceOf(RepodataParseError);
            return;
          }
          if (eagerOk) {
            expectEquivalent(index, corrupted);
            return;
          }
          // The scan accepted a document JSON.parse rejects (bad JSON inside a record): reading
          // fails with a typed error, never a SyntaxError.
          for (const name of index.names()) {
            try {
              index.records(name);
            } catch (error) {
              expect(error instanceof RepodataParseError || error instanceof RepodataIndexUnsupportedError).toBe(true);
            }
          }
        },
      ),
      // 150 corruptions (a new seed each run) keep the default suite fast; CR_DEEP=1 makes 400.
      { numRuns: depth(150, 400) },
    );
  });

  it('crosses to a worker thread over shared memory and answers the same there', async () => {
    const bytes = encoder.encode(JSON.stringify(withOddities(doc as Doc), null, 2));
    const index = lazy(bytes);
    const handle = index.toShared();
    expect(handle.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(LazySubdirIndex.fromShared(handle).records('a')).toEqual(index.records('a'));
    const worker = new Worker(new URL('./lazy-index-worker.mjs', import.meta.url));
    try {
      const reply = await new Promise<{
        recordCount: number;
        nameCount: number;
        records: Record<string, PackageRecord[]>;
        shared: boolean;
      }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ handle, names: ['a', 'b', 'missing'] });
      });
      expect(reply.shared).toBe(true);
      expect(reply.recordCount).toBe(index.recordCount);
      expect(reply.nameCount).toBe(2);
      expect(reply.records).toEqual({ a: index.records('a'), b: index.records('b'), missing: [] });
    } finally {
      await worker.terminate();
    }
  });
});
