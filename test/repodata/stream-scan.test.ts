import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import type { RepodataIndexTables } from '../../repodata/lazy/span-tables.js';
import { EntryScan } from '../../repodata/lazy/entry-scan.js';
import { RepodataStreamScanner, scanRepodata } from '../../repodata/lazy/stream-scan.js';
import { depth } from '../helpers/depth.js';

const encoder = new TextEncoder();

/** The tables as plain values, so typed arrays over shared and ordinary memory compare equal. */
function plain(tables: RepodataIndexTables): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tables)) out[key] = ArrayBuffer.isView(value) ? Array.from(value as Uint32Array) : value;
  return out;
}

/** The reference: the whole document read by the byte scan alone (no WebAssembly); its tables, or its error's class and message. */
function whole(bytes: Uint8Array): Record<string, unknown> {
  try {
    return plain(scanRepodata(bytes, 'c/linux-64', { exact: true }));
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message };
  }
}

/**
 * The streaming scan of `bytes` cut at `cuts`, with the given batch size: with the WebAssembly
 * entry scan, or with `exact` the byte scan alone.
 */
function streamed(
  bytes: Uint8Array,
  cuts: readonly number[],
  batchBytes: number,
  watch?: (scanner: RepodataStreamScanner, chunk: number) => void,
  exact = false,
): Record<string, unknown> {
  const scanner = new RepodataStreamScanner('c/linux-64', { read: (start, end) => bytes.subarray(start, end), batchBytes, exact });
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  try {
    let from = 0;
    for (const to of [...points, bytes.length]) {
      if (to < from) continue;
      scanner.push(bytes.subarray(from, to));
      watch?.(scanner, to - from);
      from = to;
    }
    return plain(scanner.finish());
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message };
  }
}

/** Documents with what chunk boundaries can cut badly: escapes, multi-byte UTF-8, nesting, numbers. */
const ODD = 'a "q" {b} [c] \\ \\" é 😀 } ] , : \u2028';
const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ':', ',', ' ', 'é', '😀', '\n', 'n'), maxLength: 10 });
const rawRecord = fc.record(
  {
    name: fc.constantFrom('numpy', 'py', 'ñame', 'q"uote', 'br{ace}', 'x'),
    version: fc.constantFrom('1.0', '2.0.1'),
    build: fc.constantFrom('h0_0', 'py39h1_1'),
    build_number: fc.nat(12345),
    depends: fc.array(text, { maxLength: 3 }),
    note: fc.option(fc.constant(ODD), { nil: undefined }),
    extra: fc.option(fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 2 })), { maxKeys: 2 }), {
      nil: undefined,
    }),
  },
  { requiredKeys: ['name', 'version', 'build'] },
);
/**
 * Members spliced into a record's text: where the fast path's search for `"name"` could be fooled
 * (a second "name" key, "name" as a list item or a value, an escaped or spaced spelling).
 */
const trickyMember = fc.constantFrom(
  '"name": "dup"',
  '"name" :  "spaced"',
  '"name": 5',
  '"name": null',
  '"na\\u006de": "escaped"',
  '"depends2": ["name", "x"]',
  '"alias": "name"',
  '"nested": {"name": "inner"}',
  '"list": ["a", "name"]',
  '"n": -1.5e3',
  '"t": true',
);
const splicedRecord = fc.tuple(rawRecord, fc.array(trickyMember, { maxLength: 2 }), fc.boolean()).map(([record, members, atEnd]) => {
  const json = JSON.stringify(record);
  if (members.length === 0) return json;
  return atEnd ? `${json.slice(0, -1)}, ${members.join(', ')}}` : `{${members.join(', ')}, ${json.slice(1)}`;
});
const section = fc.array(
  fc.tuple(
    fc.oneof(fc.constantFrom('f1.conda', 'f2.tar.bz2', 'f3', 'ü.conda'), text),
    fc.oneof(
      rawRecord,
      splicedRecord.map((raw) => ({ raw })),
    ),
  ),
  { maxLength: 8 },
);
const documents = fc
  .tuple(
    section,
    section,
    fc.constantFrom(0, 1, 2, '\t'),
    fc.boolean(),
    fc.boolean(),
    fc.array(fc.constantFrom('f1.conda', 'f3'), { maxLength: 2 }),
  )
  .map(([pkgs, condas, indent, reversed, bom, removed]) => {
    const ser = (value: unknown) =>
      typeof value === 'object' && value !== null && 'raw' in value ? String(value.raw) : JSON.stringify(value, null, indent);
    const sectionText = (entries: typeof pkgs) => `{${entries.map(([fn, r]) => `${ser(fn)}: ${ser(r)}`).join(',\n')}}`;
    const body = [
      `"packages": ${sectionText(pkgs)}`,
      `"packages.conda": ${sectionText(condas)}`,
      `"info": {"subdir": "linux-64", "base_url": "https://x/é"}`,
      `"repodata_version": 1`,
      `"removed": ${ser(removed)}`,
      `"signatures": {"k": [1, {"s": "${ODD.replace(/["\\]/g, '')}"}]}`,
    ];
    return `${bom ? '\ufeff' : ''}{${(reversed ? body.reverse() : body).join(',\n')}}`;
  });

/**
 * Documents shaped like conda-forge's (what the WebAssembly entry scan reads itself): plain records
 * of varied lengths, so records and names fall at every offset of its 64-byte blocks, in sorted or
 * reversed file-name order, in any indentation.
 */
const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 });
const regularRecord = fc.record({
  build: fc.constantFrom('h0_0', 'pyhd8ed1ab_0', 'py39h1234567_12'),
  build_number: fc.nat(40),
  depends: fc.array(fc.constantFrom('python >=3.9', 'libzlib >=1.2.13,<2.0a0', 'numpy', 'name'), { maxLength: 4 }),
  license: fc.string({ unit: fc.constantFrom('A', 'b', ' ', '-', '{', '}', '[', ':', ','), maxLength: 90 }),
  md5: hex,
  name: fc.constantFrom('numpy', 'python', 'py-lib', 'a', 'name', 'nãme'),
  timestamp: fc.nat(),
  version: fc.constantFrom('1.0', '2.0.1', '0.1.0a1'),
});
const regularDocuments = fc
  .tuple(fc.array(regularRecord, { minLength: 1, maxLength: 14 }), fc.constantFrom(0, 1, 2, '\t'), fc.boolean())
  .map(([records, indent, reversed]) => {
    const entries = records.map(
      (record, i) => `${JSON.stringify(`${record.name}-${String(i).padStart(3, '0')}.conda`)}: ${JSON.stringify(record, null, indent)}`,
    );
    if (reversed) entries.reverse();
    return `{"info": {"subdir": "linux-64"}, "packages.conda": {${entries.join(',\n')}}}`;
  });

describe('WebAssembly instances released by finished scanners', () => {
  it('are reused by the next scanner, which reads any document as the byte scan does', () => {
    const released = EntryScan.create()!;
    released.release();
    expect(EntryScan.create()).toBe(released);
    released.release();
    fc.assert(
      fc.property(regularDocuments, documents, fc.constantFrom(64, 1 << 18), (large, next, batch) => {
        // A large document first leaves its bytes in the instance's memory; the next scanner gets it.
        const first = encoder.encode(large);
        expect(streamed(first, [], batch)).toEqual(whole(first));
        const bytes = encoder.encode(next);
        expect(streamed(bytes, [], batch)).toEqual(whole(bytes));
      }),
      { numRuns: depth(50, 200) },
    );
  });
});

// The property runs below are a fast default (a third of the cases each, the four properties together
// still over 600 documents per run, a new seed every run); CR_DEEP=1 runs the full counts.
describe('the streaming repodata scanner', () => {
  it('gives the same tables (or the same error) as the whole-buffer scan for any chunking', () => {
    fc.assert(
      fc.property(documents, fc.array(fc.nat(), { maxLength: 12 }), fc.constantFrom(1, 7, 64, 1 << 18), (doc, cuts, batch) => {
        const bytes = encoder.encode(doc);
        const expected = whole(bytes);
        expect(streamed(bytes, cuts, batch)).toEqual(expected);
        expect(streamed(bytes, cuts, batch, undefined, true)).toEqual(expected);
      }),
      { numRuns: depth(100, 300) },
    );
  });

  it('agrees on corrupted and truncated documents, cut anywhere, errors included (position, line, column)', () => {
    const valid = fc.sample(documents, { numRuns: 1, seed: 7 })[0];
    fc.assert(
      fc.property(
        fc.nat(valid.length),
        fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', ' ', 'n', '1', '\n'), maxLength: 3 }),
        fc.nat(3),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (at, insert, cut, truncate, cuts) => {
          const corrupted = truncate ? valid.slice(0, at) : valid.slice(0, at) + insert + valid.slice(at + cut);
          const bytes = encoder.encode(corrupted);
          const expected = whole(bytes);
          expect(streamed(bytes, cuts, 1)).toEqual(expected);
          expect(streamed(bytes, cuts, 1, undefined, true)).toEqual(expected);
        },
      ),
      { numRuns: depth(150, 400) },
    );
  });

  it('reads conda-forge-shaped documents as the byte scan does, streamed with or without WebAssembly, for any chunking', () => {
    fc.assert(
      fc.property(regularDocuments, fc.array(fc.nat(), { maxLength: 8 }), fc.constantFrom(1, 64, 1 << 18), (doc, cuts, batch) => {
        const bytes = encoder.encode(doc);
        const expected = whole(bytes);
        expect(expected.error).toBeUndefined();
        expect(streamed(bytes, cuts, batch)).toEqual(expected);
        expect(streamed(bytes, cuts, batch, undefined, true)).toEqual(expected);
      }),
      { numRuns: depth(100, 300) },
    );
  });

  it('agrees on conda-forge-shaped documents with tokens spliced in anywhere (keys, brackets, escapes, quotes)', () => {
    const token = fc.constantFrom(
      '"',
      '\\',
      '\\"',
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"name"',
      '"name":',
      ', "name": "x"',
      ' ',
      'é',
      '\n',
      '{"name": 1}',
      ', ["name"]: "y"',
      ', "k", "name" , : "z"',
      ', "name" "k": "w"',
      '"name", "k": "v", ',
      ', "a": "name", : "z"',
      '"a": "name" : "z", ',
    );
    fc.assert(
      fc.property(
        regularDocuments,
        fc.array(fc.tuple(fc.nat(), token), { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (doc, splices, cuts) => {
          let text = doc;
          for (const [at, piece] of splices) {
            const i = at % (text.length + 1);
            text = text.slice(0, i) + piece + text.slice(i);
          }
          const bytes = encoder.encode(text);
          const expected = whole(bytes);
          expect(streamed(bytes, cuts, 1 << 18)).toEqual(expected);
          expect(streamed(bytes, cuts, 1)).toEqual(expected);
        },
      ),
      { numRuns: depth(300, 1000) },
    );
  });

  it('gives the same error for a file name with a bad escape wherever its record is cut', () => {
    // Found by the corrupted-documents property (seed 142144360): a record cut by the end of a
    // chunk had its key decoded for an error message before more bytes came, and the bad escape
    // failed the scan there, where the whole document reports the record before it.
    for (const doc of [
      '{"packages": {"a.conda": {"version": "1"}, "b\\.conda": {"name": "b", "version": "1"}}}',
      '{"packages": {"😀[": {"x": {"[": []}},\n"}\\.conda": {\n\t"name": "br{ace}",\n\t"version": "2.0.1"}}}',
      '{"packages": {"b\\.conda": {"name": "b", "version": "1"}}}',
    ]) {
      const bytes = encoder.encode(doc);
      const expected = whole(bytes);
      expect(expected.error).toBeDefined();
      for (let cut = 0; cut <= bytes.length; cut++) expect(streamed(bytes, [cut], 1)).toEqual(expected);
    }
  });

  it('cuts inside every string, escape and multi-byte character of a document', () => {
    const doc = `{"info": {"subdir": "linux-64"}, "packages": {"a\\u00e9-1.tar.bz2": {"name": "na\\"me", "note": "${'😀é\\\\\\"'}", "version": "1"}, "b-1.tar.bz2": {"nam\\u0065": "ü", "build_number": 12345}}}`;
    const bytes = encoder.encode(doc);
    const expected = whole(bytes);
    expect(expected.error).toBeUndefined();
    for (let cut = 0; cut <= bytes.length; cut++) expect(streamed(bytes, [cut], 1)).toEqual(expected);
  });

  it('on a generated conda-forge-shaped channel, holds one batch plus a chunk, never the document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cr-stream-'));
    try {
      generateChannel({ out: dir, records: 3000, names: 300, noarchRecords: 10, noarchNames: 2, seed: 5, compact: false });
      const bytes = readFileSync(join(dir, 'linux-64', 'repodata.json'));
      const batch = 16 * 1024;
      const chunk = 4096;
      const cuts = Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => i * chunk);
      let most = 0;
      const result = streamed(bytes, cuts, batch, (scanner) => {
        most = Math.max(most, scanner.heldBytes);
        // What is buffered is the unscanned batch plus the one entry cut by its end.
        expect(scanner.bufferedBytes).toBeLessThan(batch + chunk + 4096);
      });
      expect(result).toEqual(whole(bytes));
      expect(bytes.length).toBeGreaterThan(20 * most);
      expect(most).toBeLessThanOrEqual(2 * (batch + chunk + 4096));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds no whitespace between tokens: a decompression bomb of spaces keeps one chunk, not the document', () => {
    // A .zst of RLE blocks decodes to gigabytes of one byte; the size limit stops it at the bound,
    // but until then the scanner must not buffer what it has already skipped.
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    for (const prefix of ['', '{', '{"info"', '{"info":', '{"packages": {', '{"packages": {"a-1.tar.bz2": {"name": "a"}']) {
      const scanner = new RepodataStreamScanner('c/linux-64', { read: () => new Uint8Array(0), batchBytes: 16 * 1024 });
      scanner.push(encoder.encode(prefix));
      for (let i = 0; i < 64; i++) scanner.push(chunk);
      expect(scanner.heldBytes, prefix).toBeLessThan(4 * chunk.length);
    }
  });

  it('reads a huge single value in linear steps (rescans only after the buffer doubles)', () => {
    const big = 'x'.repeat(2_000_000);
    const doc = encoder.encode(
      `{"info": {"subdir": "linux-64"}, "packages": {"a-1.tar.bz2": {"name": "a", "blob": "${big}", "version": "1"}}}`,
    );
    const cuts = Array.from({ length: Math.ceil(doc.length / 1000) }, (_, i) => i * 1000);
    expect(streamed(doc, cuts, 1)).toEqual(whole(doc));
  });

  it('refuses pushes after an error with the same error', () => {
    const scanner = new RepodataStreamScanner('c/linux-64', { read: () => new Uint8Array(0), batchBytes: 1 });
    expect(() => scanner.push(encoder.encode('[1, 2]'))).toThrow(
      /invalid JSON at byte 0 \(line 1, column 1\): expected the "\{" that opens the document/,
    );
    expect(() => scanner.push(encoder.encode('{}'))).toThrow(/invalid JSON at byte 0/);
  });
});
