/**
 * zstd as the fetcher uses it: round trips, multi-frame and skippable-frame inputs, and above all
 * that input cut anywhere (a dropped download) is an error, never a short "successful" output.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { zstdBomb } from '../helpers/fault-channels.js';
import {
  createZstdDecoder,
  nativeContextsMade,
  ZstdDataError,
  zstdBuild,
  zstdCompress,
  zstdDecompress as decompress,
  type ZstdDecoderOptions,
} from '../../repodata/zstd.js';

const text = Buffer.from(
  Array.from({ length: 4000 }, (_, i) => `{"name": "pkg-${i % 97}", "version": "1.${i}", "build": "h${(i * 7919) % 100000}_0"}`).join(
    ',\n',
  ),
);

/** Whether zstd-napi (an optional dependency, built by node-gyp) is installed and loads here. */
const nativeInstalled = (() => {
  try {
    createRequire(import.meta.url)('zstd-napi/binding.js');
    return true;
  } catch {
    return false;
  }
})();

it('decodes with the native libzstd when zstd-napi is installed, else with WebAssembly', async () => {
  expect(await zstdBuild()).toBe(nativeInstalled ? 'native' : 'wasm');
});

it.runIf(nativeInstalled)('one native decoding context serves shard after shard (it is reset and kept, not made anew)', async () => {
  const frame = await zstdCompress(text, 3);
  await decompress(frame);
  const before = nativeContextsMade();
  for (let i = 0; i < 200; i++) expect((await decompress(frame)).equals(text)).toBe(true);
  // A context left inside a frame (corrupt data, a cap reached, a bare end) is reset and serves the next frame whole.
  const broken = Buffer.from(frame);
  broken.fill(0x5a, frame.length >> 1, (frame.length >> 1) + 64);
  await expect(decompress(broken)).rejects.toThrow(ZstdDataError);
  expect((await decompress(frame)).equals(text)).toBe(true);
  await expect(decompress(frame, { maxOutputBytes: 1000 })).rejects.toThrow('exceeds 1000 bytes');
  expect((await decompress(frame)).equals(text)).toBe(true);
  await expect(decompress(frame.subarray(0, frame.length >> 1))).rejects.toThrow(/truncated/);
  expect((await decompress(frame)).equals(text)).toBe(true);
  expect(nativeContextsMade() - before).toBe(0);
});

// Every test runs against both builds: the default one (native when installed) and WebAssembly,
// which is what the action's one-file CLI and a machine without the addon use.
describe.each([
  { name: 'default build', build: undefined },
  { name: 'WebAssembly', build: 'wasm' as const },
])('zstd ($name)', ({ build }) => {
  const options = (more: ZstdDecoderOptions = {}): ZstdDecoderOptions => ({ ...more, build });
  const zstdDecompress = (bytes: Uint8Array, more?: ZstdDecoderOptions) => decompress(bytes, options(more));

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
    const decoder = await createZstdDecoder((chunk) => out.push(chunk), options());
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

  it('hands out pieces the caller may keep, across many output blocks (12 MB)', async () => {
    const big = Buffer.from(
      Array.from(
        { length: 200_000 },
        (_, i) => `{"name": "pkg-${i % 997}", "version": "1.${i}", "build": "h${(i * 7919) % 100000}_0"}`,
      ).join(',\n'),
    );
    const compressed = await zstdCompress(big, 3);
    const kept: Buffer[] = [];
    const decoder = await createZstdDecoder((chunk) => kept.push(chunk), options());
    for (let i = 0; i < compressed.length; i += 65_536) decoder.push(compressed.subarray(i, i + 65_536));
    decoder.end();
    expect(big.length).toBeGreaterThan(12_000_000);
    expect(Buffer.concat(kept).equals(big)).toBe(true);
  });

  it('a small one-shot decode does not hold on to a large output block', async () => {
    const small = await zstdDecompress(await zstdCompress(Buffer.from('{"packages": {}}'), 3));
    expect(small.toString()).toBe('{"packages": {}}');
    expect(small.buffer.byteLength).toBeLessThan(64 * 1024);
  });

  it('with reuseOutput, pieces consumed before the next push add up to the document', async () => {
    const big = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `{"name": "p-${i % 31}", "n": ${i}}`).join(',\n'));
    const compressed = await zstdCompress(big, 3);
    const copies: Buffer[] = [];
    const decoder = await createZstdDecoder((chunk) => copies.push(Buffer.from(chunk)), options({ reuseOutput: true }));
    for (let i = 0; i < compressed.length; i += 100_000) decoder.push(compressed.subarray(i, i + 100_000));
    decoder.end();
    expect(Buffer.concat(copies).equals(big)).toBe(true);
  });

  it('with reuseOutput, every piece of one push stays as it was until the next push, however many slices it takes', async () => {
    // A 256 kB push decodes in many slices; the native build once started each slice at its first
    // block again, writing over the pieces of the slices before it within the same push.
    const big = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `{"name": "p-${i % 31}", "n": ${i}}`).join(',\n'));
    const compressed = await zstdCompress(big, 3);
    const copies: Buffer[] = [];
    let views: Buffer[] = [];
    const decoder = await createZstdDecoder((chunk) => views.push(chunk), options({ reuseOutput: true }));
    const keep = () => {
      for (const view of views) copies.push(Buffer.from(view));
      views = [];
    };
    for (let i = 0; i < compressed.length; i += 256 * 1024) {
      decoder.push(compressed.subarray(i, i + 256 * 1024));
      keep();
    }
    decoder.end();
    keep();
    expect(Buffer.concat(copies).equals(big)).toBe(true);
  });

  it('stops a decompression bomb at the cap without expanding it whole', async () => {
    const bomb = zstdBomb(2048); // 256 MB in 8 kB
    let seen = 0;
    const decoder = await createZstdDecoder((chunk) => (seen += chunk.length), options({ maxOutputBytes: 8 << 20 }));
    const error = (() => {
      try {
        for (let at = 0; at < bomb.length; ) {
          const slice = bomb.subarray(at, at + decoder.nextSlice);
          decoder.push(slice);
          at += slice.length;
        }
        decoder.end();
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ZstdDataError);
    expect((error as ZstdDataError).tooLarge).toBe(true);
    expect(seen).toBeLessThanOrEqual(8 << 20);
  });
});
