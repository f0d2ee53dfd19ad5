/**
 * What a user sees when the network or the server misbehaves: a clear typed error that names the
 * channel and subdir and what happened, never a credential, and a cache left exactly as it was (a
 * previous good copy still used afterwards).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RepodataFetchError } from '../../repodata/fetch-errors.js';
import { RepodataStore } from '../../repodata/store.js';
import { parseChannel } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { snapshotDir, tempDir } from './store-helpers.js';

const LINUX = join(CHANNELS_DIR, 'conda-forge-py39', 'linux-64');

type Fault = (req: IncomingMessage, res: ServerResponse) => void;

/** Serve `fault` for `file` of linux-64; everything else (other files answer 404) as usual. */
function faultFor(file: string, fault: Fault): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    // The formats tried before `file` are not served.
    if (path.endsWith('/repodata_shards.msgpack.zst') || (file === 'repodata.json' && path.endsWith('/linux-64/repodata.json.zst'))) {
      res.writeHead(404).end();
      return true;
    }
    if (!path.endsWith(`/linux-64/${file}`)) return false;
    fault(req, res);
    return true;
  };
}

/** Send the headers of a complete body, then `bytes` of it, then drop the connection. */
function dropAfter(body: Buffer, bytes: number): Fault {
  return (_req, res) => {
    res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
    // Dropped once those bytes are handed to the socket (they still reach the client, before the close).
    res.write(body.subarray(0, bytes), () => res.socket?.destroy());
  };
}

function serve(body: Buffer): Fault {
  return (_req, res) => {
    res.writeHead(200, { 'content-length': String(body.length), etag: '"changed"' }).end(body);
  };
}

async function expectFailure(promise: Promise<unknown>): Promise<CondaResolveError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CondaResolveError);
  return error as CondaResolveError;
}

describeShared('fetch failures', () => {
  let server: ChannelServer;
  const work = tempDir('faults');
  const zstBytes = readFileSync(join(LINUX, 'repodata.json.zst'));
  const jsonBytes = readFileSync(join(LINUX, 'repodata.json'));

  beforeAll(async () => {
    server = await startChannelServer({ root: CHANNELS_DIR, maxAge: 0 });
  });
  afterEach(() => {
    server.intercept = undefined;
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  /**
   * Fill a cache with a good copy of linux-64, then make the next revalidation fail with `fault`;
   * the error must name the channel and subdir, the cache must be byte-identical, and the good copy
   * must still be served once the server behaves again.
   */
  async function check(name: string, file: string, fault: Fault): Promise<CondaResolveError> {
    const cacheDir = join(work.path, name);
    const channel = parseChannel(`${server.url}/conda-forge-py39`);
    const good = new RepodataStore({ cacheDir });
    const [before] = await good.prepare([channel], ['linux-64'], []);
    await good.close();
    const snapshot = snapshotDir(cacheDir);

    server.intercept = faultFor(file, fault);
    const failing = new RepodataStore({ cacheDir });
    const error = await expectFailure(failing.prepare([channel], ['linux-64'], []));
    await failing.close();
    expect(error.message).toContain(`${server.url}/conda-forge-py39/linux-64`);
    expect(snapshotDir(cacheDir)).toEqual(snapshot);

    server.intercept = undefined;
    const after = new RepodataStore({ cacheDir });
    const [index] = await after.prepare([channel], ['linux-64'], []);
    await after.close();
    expect(index!.recordCount).toBe(before!.recordCount);
    return error;
  }

  it('reports a connection dropped mid-transfer', async () => {
    const error = await check('drop', 'repodata.json.zst', dropAfter(zstBytes, 50_000));
    expect(error).toBeInstanceOf(RepodataFetchError);
    expect(error.code).toBe('CR_ERR_REPODATA_FETCH');
    expect(error.message).toMatch(/connection closed after \d+ of 229342 bytes/);
  });

  it('reports an HTTP 500', async () => {
    const error = await check('status', 'repodata.json.zst', (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    });
    expect(error.code).toBe('CR_ERR_REPODATA_FETCH');
    expect((error as RepodataFetchError).status).toBe(500);
    expect(error.message).toMatch(
      /^Cannot fetch repodata for .*\/conda-forge-py39\/linux-64: the server answered HTTP 500 Internal Server Error/,
    );
  });

  it('reports truncated zstd data', async () => {
    const error = await check('truncated-zst', 'repodata.json.zst', serve(zstBytes.subarray(0, zstBytes.length - 1000)));
    expect(error.code).toBe('CR_ERR_REPODATA_CORRUPT');
    expect(error.message).toMatch(/truncated, the input ends inside a frame at byte 228342/);
  });

  it('reports bytes that are not zstd at all', async () => {
    const error = await check('not-zst', 'repodata.json.zst', serve(Buffer.from('<html>oops</html>')));
    expect(error.code).toBe('CR_ERR_REPODATA_CORRUPT');
    expect(error.message).toContain('no zstd frame at byte 0');
  });

  it('reports broken JSON with its byte position, and does not cache it', async () => {
    // Break the separator after the first record. (Syntax errors inside one record's object are
    // found when that record is read, by the lazy index; see the limits in repodata/store.ts.)
    const text = jsonBytes.toString('latin1');
    const at = text.indexOf('},', text.indexOf('"packages"')) + 1;
    const broken = Buffer.from(jsonBytes);
    broken.write('X', at);
    const error = await check('broken-json', 'repodata.json', serve(broken));
    expect(error.code).toBe('CR_ERR_REPODATA_CORRUPT');
    expect(error.message).toContain(`invalid JSON at byte ${at}`);
  });

  it('reports a JSON document cut short', async () => {
    const error = await check('short-json', 'repodata.json', serve(jsonBytes.subarray(0, 500_000)));
    expect(error.code).toBe('CR_ERR_REPODATA_CORRUPT');
  });
});

describe('credentials', () => {
  const work = tempDir('creds');
  let server: ChannelServer;
  beforeAll(async () => {
    server = await startChannelServer({ root: work.path });
  });
  afterAll(async () => {
    await server.close();
    work.remove();
  });

  it('sends the token in the path and user:password as Basic auth, and shows neither', async () => {
    server.intercept = (_req, res) => {
      res.writeHead(503).end();
      return true;
    };
    const url = server.url.replace('http://', 'http://alice:s3cr3t-pw@');
    const channel = parseChannel(`${url}/t/tok-123456/private`);
    const store = new RepodataStore({ cacheDir: join(work.path, 'cache') });
    const error = await expectFailure(store.prepare([channel], ['linux-64'], []));
    await store.close();
    expect(error.message).toContain('HTTP 503');
    expect(error.message).not.toContain('tok-123456');
    expect(error.message).not.toContain('s3cr3t');
    expect(error.message).not.toContain('alice');
    const first = server.log[0]!;
    expect(first.path).toBe('/t/tok-123456/private/linux-64/repodata_shards.msgpack.zst');
    expect(first.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cr3t-pw').toString('base64')}`);
  });
});
