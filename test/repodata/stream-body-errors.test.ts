/**
 * What `streamBody` reports when the fault is ours and not the connection's: an error thrown by
 * the consumer (a bug in the indexer, say) must come out as itself, not as "the connection closed
 * after N bytes", and must not be taken for a cut-off body that is worth asking for again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultDispatcher, httpGet, isInterruptedBody, streamBody, type BodyDecoding } from '../../repodata/fetch.js';
import { zstdCompress } from '../../repodata/zstd.js';

const plain = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `"pkg-${i}"`).join(',\n'));
let zst: Buffer;
let server: Server;
let base: string;

beforeAll(async () => {
  zst = await zstdCompress(plain, 3);
  server = createServer((req, res) => {
    const body = req.url === '/zst' ? zst : plain;
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('streamBody, when the consumer throws', () => {
  const cases: { name: string; path: string; decoding: BodyDecoding; synchronous: boolean }[] = [
    { name: 'plain JSON in the data callback', path: '/plain', decoding: 'identity', synchronous: true },
    { name: 'plain JSON through the iterator', path: '/plain', decoding: 'identity', synchronous: false },
    { name: 'zstd', path: '/zst', decoding: 'zstd', synchronous: false },
  ];
  for (const { name, path, decoding, synchronous } of cases) {
    it(`${name}: rejects with the consumer's own error, not a dropped connection`, async () => {
      const dispatcher = createDefaultDispatcher();
      try {
        const context = { channel: 'local', subdir: 'linux-64', dispatcher };
        const response = await httpGet(context, `${base}${path}`);
        let calls = 0;
        const bug = new TypeError('the consumer has a bug');
        const error = await streamBody(context, response, {
          decoding,
          synchronous,
          onData: () => {
            if (++calls === 1) throw bug;
          },
        }).catch((e: unknown) => e);
        expect(error).toBe(bug);
        expect(isInterruptedBody(error)).toBe(false);
      } finally {
        await dispatcher.close();
      }
    });
  }

  it('an async consumer that rejects: its own error too', async () => {
    const dispatcher = createDefaultDispatcher();
    try {
      const context = { channel: 'local', subdir: 'linux-64', dispatcher };
      const response = await httpGet(context, `${base}/zst`);
      const bug = new RangeError('rejected by the consumer');
      const error = await streamBody(context, response, { decoding: 'zstd', onData: () => Promise.reject(bug) }).catch((e: unknown) => e);
      expect(error).toBe(bug);
    } finally {
      await dispatcher.close();
    }
  });
});
