/**
 * A hostile channel's repodata.json with one gigantic JSON value (a string of a gigabyte in one
 * record, or as a top-level value) is refused as it streams in, never buffered whole (issue 32,
 * item 5): the scanner holds at most MAX_UNIT_BYTES (plus one batch) of one value, then fails
 * with a parse error naming the byte, and lets the buffer go.
 */
import { describe, expect, it } from 'vitest';
import { RepodataParseError } from '../../repodata/parse-errors.js';
import { MAX_UNIT_BYTES, RepodataStreamScanner } from '../../repodata/lazy/stream-scan.js';

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

/** Push `head`, then `fill` repeated until the scanner fails or `limit` bytes went in; how far it got. */
function feed(head: string, fill: Uint8Array, limit: number, options: { exact?: boolean } = {}) {
  const scanner = new RepodataStreamScanner('hostile/linux-64', { read: () => new Uint8Array(0), ...options });
  scanner.push(encoder.encode(head));
  let pushed = head.length;
  let held = 0;
  while (pushed < limit) {
    try {
      scanner.push(fill);
    } catch (error) {
      return { error, pushed, held: scanner.heldBytes, peak: held };
    }
    pushed += fill.length;
    held = Math.max(held, scanner.heldBytes);
  }
  return { error: null, pushed, held: scanner.heldBytes, peak: held };
}

describe('one JSON value larger than the scanner holds', () => {
  const chunk = new Uint8Array(MiB).fill(0x61); // "aaaa..."
  it.each([
    [
      'a string in a record',
      '{"info":{"subdir":"linux-64"},"packages":{"a-1-0.tar.bz2":{"name":"a","version":"1","build":"0","build_number":0,"depends":[],"x":"',
    ],
    ['a top-level string', '{"info":{"subdir":"linux-64"},"junk":"'],
  ])('%s: a parse error once it passes the bound, with the buffer let go', (_, head) => {
    for (const exact of [false, true]) {
      const { error, pushed, held, peak } = feed(head, chunk, 64 * MiB, { exact });
      expect(error).toBeInstanceOf(RepodataParseError);
      expect((error as Error).message).toMatch(/a single JSON value at byte \d+ is larger than 16 MiB/);
      expect(pushed).toBeLessThan(MAX_UNIT_BYTES + 2 * MiB);
      expect(peak).toBeLessThanOrEqual(2 * MAX_UNIT_BYTES + 2 * MiB);
      expect(held).toBe(0);
    }
  });

  it('a whitespace run between values is no value: it streams through without failing', () => {
    const spaces = new Uint8Array(MiB).fill(0x20);
    const { error, peak } = feed('{"info":{"subdir":"linux-64"},"packages":{}', spaces, 24 * MiB);
    expect(error).toBeNull();
    expect(peak).toBeLessThan(4 * MiB);
  });
});
