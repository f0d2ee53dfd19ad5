/**
 * A download's bytes go through the scanner as they arrive and reach the temp file behind it
 * (`DownloadIndexer`), and a plain body is handed over inside the network callback
 * (`ResponseBody.pipeTo`). What a user sees must not depend on how far the writes have got: the
 * same tables, the same file, the same error with the same line number.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { CacheWriter } from '../../repodata/cache.js';
import { ResponseBody } from '../../repodata/http-response.js';
import { DownloadIndexer } from '../../repodata/lazy/stream-index.js';
import { scanRepodata } from '../../repodata/lazy/stream-scan.js';
import type { RepodataIndexTables } from '../../repodata/lazy/span-tables.js';
import { RepodataParseError } from '../../repodata/parse-errors.js';

const dir = mkdtempSync(join(tmpdir(), 'download-indexer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const source = { channel: { name: 'c', baseUrl: 'https://example.test/c' }, subdir: 'linux-64' };

/**
 * A temp-file writer whose positional writes finish only when `release()` is called (or at once
 * with `held: false`), so a test can keep bytes in flight; `failWith` makes every write fail.
 */
async function testWriter(options: { held: boolean; failWith?: Error }) {
  const path = join(dir, `doc-${files++}.json`);
  const handle = await open(path, 'w+');
  const waiting: Array<() => void> = [];
  const writer: CacheWriter & { release(): void } = {
    path,
    async write(...chunks) {
      for (const chunk of chunks) await handle.write(chunk);
    },
    async writeAt(position, chunks) {
      if (options.failWith) throw options.failWith;
      if (options.held) await new Promise<void>((resolve) => waiting.push(resolve));
      await handle.writev([...chunks], position);
    },
    close: () => handle.close(),
    discard: () => handle.close(),
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
  return writer;
}

function plain(tables: RepodataIndexTables | null): Record<string, unknown> | null {
  if (tables === null) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tables)) out[key] = ArrayBuffer.isView(value) ? Array.from(value as Uint32Array) : value;
  return out;
}

/** A repodata.json of `count` records, indented as conda-index writes it, ~600 bytes a record. */
function documentOf(count: number): Uint8Array {
  const packages: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    packages[`pkg${i % 7}-1.${i}-h${i}_0.tar.bz2`] = {
      build: `h${i}_0`,
      build_number: 0,
      depends: [`dep${i % 3} >=1`, 'python >=3.9'],
      md5: 'd8dc46cdf8d352ab55306fced7b14c04'.repeat(1),
      name: `pkg${i % 7}`,
      sha256: 'c6285ed789172c43d83681f51ec32738c44a93802e4922341d2024af86da67fd',
      size: 1000 + i,
      subdir: 'linux-64',
      timestamp: 1617740328384,
      version: `1.${i}`,
    };
  }
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : 1)));
  return new TextEncoder().encode(JSON.stringify({ info: { subdir: 'linux-64' }, packages: sorted, repodata_version: 1 }, null, 2));
}

function cutInto(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.slice(at, at + size));
  return out;
}

describe('DownloadIndexer', () => {
  const document = documentOf(6000); // ~2.4 MB: more than two write batches

  it('writes the document as received and indexes it as a whole-document scan does, whatever the chunk sizes', async () => {
    const reference = plain(scanRepodata(document, 'c/linux-64'));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1000, max: 300_000 }), fc.boolean(), async (size, hashOffThread) => {
        const writer = await testWriter({ held: false });
        const indexer = new DownloadIndexer(writer, source, document.length, hashOffThread);
        for (const chunk of cutInto(document, size)) await indexer.push(chunk);
        const done = await indexer.finish();
        await writer.close();
        expect(done.size).toBe(document.length);
        expect(done.sha256).toBe(createHash('sha256').update(document).digest('hex'));
        expect(plain(done.tables)).toEqual(reference);
        expect(Buffer.compare(readFileSync(writer.path), document)).toBe(0);
      }),
      { numRuns: 8 },
    );
  });

  it('hashes a large download on the worker thread while its writes are held, and reuses no batch before both are done', async () => {
    const writer = await testWriter({ held: true });
    const indexer = new DownloadIndexer(writer, source, document.length, true);
    const waits: Array<Promise<void>> = [];
    for (const chunk of cutInto(document, 65536)) {
      const wait = indexer.push(chunk);
      if (wait) waits.push(wait);
      // Let the hashing thread's answers in: a batch hashed but not written must still not be reused.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const finishing = indexer.finish();
    // Nothing is written yet: the batches are all still held, and the digest must wait for them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    writer.release();
    const done = await finishing;
    await writer.close();
    expect(done.sha256).toBe(createHash('sha256').update(document).digest('hex'));
    expect(Buffer.compare(readFileSync(writer.path), document)).toBe(0);
  });

  it('hashes two downloads at once on the worker thread, each its own', async () => {
    const other = documentOf(3000);
    const [a, b] = await Promise.all(
      [document, other].map(async (bytes) => {
        const writer = await testWriter({ held: false });
        const indexer = new DownloadIndexer(writer, source, bytes.length, true);
        for (const chunk of cutInto(bytes, 40_000)) {
          await indexer.push(chunk);
          await new Promise((resolve) => setImmediate(resolve));
        }
        const done = await indexer.finish();
        await writer.close();
        return done.sha256;
      }),
    );
    expect(a).toBe(createHash('sha256').update(document).digest('hex'));
    expect(b).toBe(createHash('sha256').update(other).digest('hex'));
  });

  it('names the same line for a syntax error whether the bytes before it are on disk or still being written', async () => {
    // Break the document deep inside (past the first write batch): the "," between two entries of
    // "packages" becomes ";" (inside a record the scan leaves syntax to JSON.parse at read time).
    const text = new TextDecoder().decode(document);
    expect(text.length).toBeGreaterThan(2 << 20);
    const at = text.indexOf('},\n    "pkg', Math.floor(text.length * 0.8)) + 1;
    expect(at).toBeGreaterThan(0);
    const broken = new TextEncoder().encode(`${text.slice(0, at)};${text.slice(at + 1)}`);
    let expected = '';
    try {
      scanRepodata(broken, 'c/linux-64');
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).toMatch(/line \d+, column \d+/);

    for (const held of [false, true]) {
      const writer = await testWriter({ held });
      const indexer = new DownloadIndexer(writer, source);
      let thrown: unknown = null;
      try {
        for (const chunk of cutInto(broken, 65536)) {
          const wait = indexer.push(chunk);
          if (!held) await wait;
        }
      } catch (error) {
        thrown = error;
      }
      indexer.abort();
      writer.release();
      await writer.close();
      expect(thrown).toBeInstanceOf(RepodataParseError);
      expect((thrown as Error).message.replace(/^[^:]*: /, '')).toBe(expected.replace(/^[^:]*: /, ''));
    }
  });

  it('stops with the write error when the temp file cannot be written', async () => {
    const failure = new Error('ENOSPC: no space left on device');
    const writer = await testWriter({ held: false, failWith: failure });
    const indexer = new DownloadIndexer(writer, source);
    const attempt = async (): Promise<void> => {
      for (const chunk of cutInto(document, 65536)) {
        await indexer.push(chunk);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await indexer.finish();
    };
    await expect(attempt()).rejects.toBe(failure);
    await writer.close();
  });
});

describe('ResponseBody.pipeTo', () => {
  function fakeController() {
    const aborted: Error[] = [];
    const calls: string[] = [];
    const controller = {
      paused: false,
      aborted: false,
      reason: null,
      pause() {
        controller.paused = true;
        calls.push('pause');
      },
      resume() {
        controller.paused = false;
        calls.push('resume');
      },
      abort(reason: Error) {
        aborted.push(reason);
      },
    };
    return { controller, aborted, calls };
  }

  it('pauses a kept-alive response while the sink is behind, and resumes it when the sink catches up', async () => {
    const body = new ResponseBody();
    const { controller, calls } = fakeController();
    body.start(controller as never, true, null);
    let catchUp = (): void => undefined;
    const behind = new Promise<void>((resolve) => (catchUp = resolve));
    const piped = body.pipeTo((chunk) => (chunk.toString() === 'slow' ? behind : undefined));
    body.push(Buffer.from('fast'));
    expect(calls).toEqual([]);
    body.push(Buffer.from('slow'));
    expect(calls).toEqual(['pause']);
    catchUp();
    await behind;
    expect(calls).toEqual(['pause', 'resume']);
    body.end();
    await piped;
  });

  it('resumes a kept-alive response that its queue paused before the reader came', async () => {
    // A download's reader starts after a few awaits (its temp file is opened first): a fast server
    // fills the queue past its high-water mark meanwhile, and the response is paused.
    const body = new ResponseBody();
    const { controller, calls } = fakeController();
    body.start(controller as never, true, null);
    body.push(Buffer.alloc(5 << 20));
    expect(calls).toEqual(['pause']);
    let received = 0;
    const piped = body.pipeTo((chunk) => {
      received += chunk.length;
    });
    expect(received).toBe(5 << 20);
    expect(calls).toEqual(['pause', 'resume']);
    body.push(Buffer.from('rest'));
    body.end();
    await piped;
    expect(received).toBe((5 << 20) + 4);
  });

  it('does not pause a response that may not be paused (no keep-alive): its bytes wait in the sink', async () => {
    const body = new ResponseBody();
    const { controller, calls } = fakeController();
    body.start(controller as never, false, null);
    const piped = body.pipeTo(() => new Promise<void>(() => undefined));
    body.push(Buffer.from('x'));
    expect(calls).toEqual([]);
    body.end();
    await piped;
  });

  it('hands over the chunks queued before it first, in order, then each chunk as it arrives', async () => {
    const body = new ResponseBody();
    const { controller } = fakeController();
    body.start(controller as never, false, null);
    body.push(Buffer.from('ab'));
    body.push(Buffer.from('cd'));
    const seen: string[] = [];
    const piped = body.pipeTo((chunk) => {
      seen.push(chunk.toString());
    });
    expect(seen).toEqual(['ab', 'cd']);
    body.push(Buffer.from('ef'));
    expect(seen).toEqual(['ab', 'cd', 'ef']); // synchronously, inside the push
    body.end();
    await piped;
    expect(body.received).toBe(6);
  });

  it('stops the download with what the sink threw', async () => {
    const body = new ResponseBody();
    const { controller, aborted } = fakeController();
    body.start(controller as never, false, null);
    const broken = new Error('the document is broken');
    const piped = body.pipeTo(() => {
      throw broken;
    });
    body.push(Buffer.from('x'));
    await expect(piped).rejects.toBe(broken);
    expect(aborted).toEqual([broken]);
  });

  it('rejects when the sink throws on a chunk of a body that had already ended', async () => {
    const body = new ResponseBody();
    const { controller } = fakeController();
    body.start(controller as never, false, null);
    body.push(Buffer.from('x'));
    body.end();
    const broken = new Error('bad last chunk');
    await expect(
      body.pipeTo(() => {
        throw broken;
      }),
    ).rejects.toBe(broken);
  });

  it('rejects with the connection error', async () => {
    const body = new ResponseBody();
    const { controller } = fakeController();
    body.start(controller as never, false, null);
    const piped = body.pipeTo(() => undefined);
    body.push(Buffer.from('x'));
    const lost = new Error('other side closed');
    body.fail(lost);
    await expect(piped).rejects.toBe(lost);
  });
});
