import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EntryScan, RowFlag, Stop } from '../../repodata/lazy/entry-scan.js';
import { ENTRY_SCAN_SOURCE_SHA256 } from '../../repodata/lazy/entry-scan-wasm.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `text` placed in a fresh scanner's buffer; the scan's rows as text, and where and why it stopped. */
function scan(text: string, at = 0, base = 1000) {
  const scanner = EntryScan.create();
  if (scanner === null) throw new Error('no WebAssembly entry scan');
  const bytes = encoder.encode(text);
  const buffer = scanner.buffer(bytes.length);
  buffer.set(bytes);
  const count = scanner.scan(at, bytes.length, base);
  const out = scanner.rows;
  const rows = Array.from({ length: count }, (_, r) => ({
    file: decoder.decode(bytes.subarray(out.fnStart[r] - base, out.fnEnd[r] - base)),
    record: decoder.decode(bytes.subarray(out.recStart[r] - base, out.recEnd[r] - base)),
    name: decoder.decode(bytes.subarray(out.nameStart[r], out.nameEnd[r])),
    sameName: (out.flags[r] & RowFlag.SameName) !== 0,
  }));
  return { rows, stopAt: out.results[0], reason: out.results[1], unsortedRow: out.results[2] };
}

describe('the WebAssembly entry scan', () => {
  it('was built from the C source as it is (node scripts/build-entry-scan.mjs)', () => {
    const source = readFileSync(fileURLToPath(new URL('../../repodata/lazy/wasm/entry-scan.c', import.meta.url)));
    expect(createHash('sha256').update(source).digest('hex')).toBe(ENTRY_SCAN_SOURCE_SHA256);
  });

  it('is available on this Node, so the scan of a download uses it', () => {
    expect(EntryScan.create()).not.toBeNull();
  });

  it('reads entries up to the end of the section, with their file names, records and names', () => {
    const text = ' "a-1.conda": {"name": "a", "depends": ["name"]},\n "a-2.conda": {"v": {"name": "x"}, "name" : "a"} }';
    const result = scan(text);
    expect(result.rows).toEqual([
      { file: 'a-1.conda', record: '{"name": "a", "depends": ["name"]}', name: 'a', sameName: false },
      { file: 'a-2.conda', record: '{"v": {"name": "x"}, "name" : "a"}', name: 'a', sameName: true },
    ]);
    expect(result.reason).toBe(Stop.Separator);
    expect(text.slice(result.stopAt).trim()).toBe('}');
    expect(result.unsortedRow).toBeGreaterThan(2);
  });

  it('leaves unusual entries to the byte scan: it stops before them', () => {
    for (const unusual of [
      '"b\\u0031.conda": {"name": "b"}',
      '"1b.conda": {"name": "b"}',
      '"b.conda": {"name": "b\\"c"}',
      '"b.conda": {"note": "\\\\", "name": "b"}',
      '"b.conda": {"version": "1"}',
      '"b.conda": {"name": ""}',
      '"b.conda": {"name": 5}',
      '"b.conda": ["name"]',
      '"b.conda": {"a": 1, ["name"]: "b"}',
    ]) {
      const text = `"a.conda": {"name": "a"}, ${unusual}, "c.conda": {"name": "c"}}`;
      const result = scan(text);
      expect(
        result.rows.map((row) => row.file),
        unusual,
      ).toEqual(['a.conda']);
      expect(text.slice(result.stopAt).trimStart().startsWith(unusual), unusual).toBe(true);
    }
  });

  it('stops before an entry the bytes end in', () => {
    const text = '"a.conda": {"name": "a"}, "b.conda": {"name": "b", "x": "}';
    const result = scan(text);
    expect(result.rows.map((row) => row.file)).toEqual(['a.conda']);
    expect(text.slice(result.stopAt).trimStart()).toBe('"b.conda": {"name": "b", "x": "}');
  });

  it('says which row first breaks the file names order', () => {
    expect(scan('"b": {"name": "x"}, "c": {"name": "x"}, "c": {"name": "x"}, "a": {"name": "x"}}').unsortedRow).toBe(2);
  });
});
