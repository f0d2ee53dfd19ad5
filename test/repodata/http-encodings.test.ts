/**
 * A repodata.json sent with HTTP compression (`Content-Encoding: gzip`, `br` or `deflate`, as
 * nginx's gzip_static and CDNs send it) is decoded, cached and indexed exactly as the same file
 * sent plain: the same records, and the cached file byte for byte the document. The body is a few
 * megabytes, so the decoder's pieces (256 kB) split it in many places.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { RepodataStore } from '../../repodata/store.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { allRecords, tempDir } from './store-helpers.js';

const ENCODE = {
  gzip: (bytes: Buffer) => gzipSync(bytes),
  // Brotli's default quality (11) takes seconds on a few megabytes.
  br: (bytes: Buffer) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  deflate: (bytes: Buffer) => deflateSync(bytes),
} as const;
type Encoding = keyof typeof ENCODE;

const work = tempDir('http-encodings');
let server: Server;
let base: string;
let plain: Buffer;

beforeAll(async () => {
  // ~8,000 records: a linux-64 repodata.json of ~4 MB.
  generateChannel({ out: join(work.path, 'channel'), records: 8_000, names: 400, noarchRecords: 200, noarchNames: 20, seed: 11 });
  plain = readFileSync(join(work.path, 'channel', 'linux-64', 'repodata.json'));
  const encoded = Object.fromEntries(Object.entries(ENCODE).map(([name, encode]) => [name, encode(plain)])) as Record<Encoding, Buffer>;
  // /<encoding>/linux-64/repodata.json: that encoding; /plain/...: none; /cut/...: half of the gzip
  // body, then the connection is dropped; noarch answers 404.
  server = createServer((req, res) => {
    const [, form, subdir, file] = (req.url ?? '/').split('?')[0]!.split('/');
    if (subdir !== 'linux-64' || file !== 'repodata.json') return void res.writeHead(404).end();
    if (form === 'plain') return void res.writeHead(200, { 'content-length': plain.length }).end(plain);
    if (form === 'cut') {
      res.writeHead(200, { 'content-length': encoded.gzip.length, 'content-encoding': 'gzip', 'content-type': 'application/json' });
      res.write(encoded.gzip.subarray(0, encoded.gzip.length >> 1), () => res.destroy());
      return;
    }
    const body = encoded[form as Encoding];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length, 'content-encoding': form!, 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  work.remove();
});

/** The records the store gives for `/<form>/` (portable: made relative to the channel), and the sha256 of the file it cached. */
async function load(form: string): Promise<{ records: Map<string, string[]>; cachedSha256: string }> {
  const cacheDir = join(work.path, `cache-${form}`);
  const store = new RepodataStore({ cacheDir, indexBytes: 'positional' });
  try {
    const [index] = await store.prepare([parseChannel(`${base}/${form}`)], ['linux-64'], []);
    const records = new Map([...allRecords(index!)].map(([name, list]) => [name, list.map((r) => JSON.stringify(r))]));
    const dir = join(cacheDir, 'repodata');
    const state = readdirSync(dir).find((name) => name.includes('linux-64') && name.endsWith('.state.json'))!;
    const data = readFileSync(join(dir, (JSON.parse(readFileSync(join(dir, state), 'utf8')) as { dataFile: string }).dataFile));
    return { records, cachedSha256: createHash('sha256').update(data).digest('hex') };
  } finally {
    await store.close();
  }
}

describe('a repodata.json with HTTP compression', () => {
  it('cut off mid-body is an error naming the connection, not a crash, and leaves no temp file', async () => {
    // With `pipe` between the body and the decoder, the socket's error was an unhandled 'error'
    // event: the process ended with a stack trace.
    const cacheDir = join(work.path, 'cache-cut');
    const store = new RepodataStore({ cacheDir, indexBytes: 'positional' });
    try {
      await expect(store.prepare([parseChannel(`${base}/cut`)], ['linux-64'], [])).rejects.toThrow(
        /linux-64: the connection closed after \d+ bytes/,
      );
    } finally {
      await store.close();
    }
    expect(readdirSync(join(cacheDir, 'repodata')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.each(['gzip', 'br', 'deflate'] as const)(
    '%s: the same records as the plain file, and the plain bytes in the cache',
    async (encoding) => {
      expect(plain.length).toBeGreaterThan(3 << 20);
      const expected = await load('plain');
      const got = await load(encoding);
      expect(got.records.size).toBeGreaterThan(300);
      expect(got.records).toEqual(expected.records);
      expect(got.cachedSha256).toBe(createHash('sha256').update(plain).digest('hex'));
    },
  );
});
