/**
 * zstd as the fetcher uses it: round trips, multi-frame and skippable-frame inputs, and above all
 * that input cut anywhere (a dropped download) is an error, never a short "successful" output.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createZstdDecoder, ZstdDataError, zstdCompress, zstdDecompress } from '../../repodata/zstd.js';

const text = Buffer.from(
  Array.from({ length: 4000 }, (_, i) => `{"name": "pkg-${i % 97}", "version": "1.${i}", "build": "h${(i * 7919) % 100000}_0"}`).join(',\n'),
);

describe('zstd', () => {
  it('round-trips, also across several frames and skippable frames', async () => {
    const one = await zstdCompress(text, 3);
    expect((await zstdDecompress(one)).equals(text)).toBe(true);
    const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0]), Buffer.from('abc')]);
    const two = Buffer.concat([skippable, one, one]);
    expect((await zstdDecompress(two)).equals(Buffer.concat([text, text]))).toBe(true);
  });

  it('streams: output arrives in chunks, in order, whatever the input chunking', async () => {
    const compressed = await zstdCompress(text, 3);
    const out: Buffer[] = [];
    const decoder = await createZstdDecoder((chunk) => out.push(chunk));
    for (let i = 0; i < compressed.length; i += 7) decoder.push(compressed.subarray(i, i + 7));
    decoder.end();
    expect(Buffer.concat(out).equals(text)).toBe(true);
    expect(decoder.outputBytes).toBe(text.length);
  });

  it('rejects input cut at any byte', async () => {
    const compressed = await zstdCompress(text, 3);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: compressed.length - 1 }), async (cut) => {
        const error = await zstdDecompress(compressed.subarray(0, cut)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ZstdDataError);
        expect((error as Error).message).toMatch(cut === 0 ? /empty/ : /truncated|corrupt/);
      }),
      { numRuns: 60 },
    );
  });

  it('rejects data that is not zstd, and output over the limit', async () => {
    await expect(zstdDecompress(Buffer.from('{"packages": {}}'))).rejects.toThrow('no zstd frame at byte 0');
    await expect(zstdDecompress(await zstdCompress(text), { maxOutputBytes: 1000 })).rejects.toThrow('exceeds 1000 bytes');
  });
});
