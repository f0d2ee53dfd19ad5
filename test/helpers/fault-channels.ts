/**
 * Channels that misbehave the way real servers do, on one local HTTP server, and a mixed load of
 * valid and invalid resolve requests against them. Used by the reliability test and by
 * bench/reliability.ts.
 *
 * Channels under `base`: `good` (a synthetic channel of about 400 kB), `hang` (accepts, never
 * answers), `trickle` (`repodata.json` one byte a second, forever), `bomb` (`repodata.json.zst`: 64
 * KiB that decode to 2 GiB) and `gzip-bomb` (`repodata.json` with `Content-Encoding: gzip`, 2 MiB
 * that decode to 2 GiB).
 */
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { writeSyntheticChannel } from './synthetic-channel.js';

export const FAULT_CHANNELS = ['good', 'hang', 'trickle', 'bomb', 'gzip-bomb'] as const;

/** A zstd frame of RLE blocks, 4 bytes each, 128 KiB each once decoded: a decompression bomb. */
export function zstdBomb(blocks: number, byte = 0x20): Buffer {
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])]; // magic, no size, 128 KiB window
  for (let i = 0; i < blocks; i++) {
    const value = (131072 << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    parts.push(Buffer.from([value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, byte]));
  }
  return Buffer.concat(parts);
}

/**
 * `members` times 64 MiB of spaces as gzip members of 1 MiB each, one after another (gzip readers
 * take them as one stream): as much as 64 MiB members decode to, without deflating 64 MiB (2.6 s).
 */
function gzipBomb(members: number): Buffer {
  const member = gzipSync(Buffer.alloc(1024 ** 2, 0x20), { level: 9 });
  return Buffer.concat(Array.from({ length: members * 64 }, () => member));
}

export interface FaultServer {
  readonly base: string;
  close(): Promise<void>;
}

export async function startFaultServer(dir: string): Promise<FaultServer> {
  writeSyntheticChannel(join(dir, 'good'), 400_000);
  const zst = zstdBomb(16_384);
  const gzip = gzipBomb(32);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const channel = path.split('/')[1];
    if (channel === 'good') {
      try {
        const bytes = readFileSync(join(dir, path));
        res.writeHead(200, { 'content-length': bytes.length, 'cache-control': 'max-age=3600' }).end(bytes);
      } catch {
        res.writeHead(404).end();
      }
    } else if (channel === 'trickle' && path.endsWith('/repodata.json')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 1000);
      res.once('close', () => clearInterval(timer));
    } else if (channel === 'bomb' && path.endsWith('/repodata.json.zst')) {
      res.writeHead(200, { 'content-length': zst.length }).end(zst);
    } else if (channel === 'gzip-bomb' && path.endsWith('/repodata.json')) {
      res.writeHead(200, { 'content-length': gzip.length, 'content-encoding': 'gzip', 'content-type': 'application/json' }).end(gzip);
    } else if (channel !== 'hang') {
      res.writeHead(404).end();
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const base = await new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
  return {
    base,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** One request on its own connection: the status, or the socket error's code. */
export function send(url: string, path: string, body?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = httpRequest(new URL(path, url), { method: body === undefined ? 'GET' : 'POST', agent: false, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    req.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end(body);
  });
}

/** Kinds of request in the mixed load, and what each must get when the server is not shutting down. */
export interface LoadKind {
  readonly kind: string;
  /** Statuses this kind may get (besides the 503 of a shutdown). */
  readonly expect: readonly number[];
  run(url: string): Promise<number | string>;
}

export function mixedLoad(faultBase: string): LoadKind[] {
  const channel = (name: string) => encodeURIComponent(`${faultBase}/${name}`);
  const resolve = (query: string) => (url: string) => send(url, `/resolve?${query}`);
  const post = (body: unknown) => (url: string) => send(url, '/resolve', typeof body === 'string' ? body : JSON.stringify(body));
  // The spec: 25,000 comma-joined constraints, 189 kB, under the body limit.
  const constraints = `python ${Array.from({ length: 25_000 }, (_, i) => `>=${i}`).join(',')}`;
  return [
    // A valid request's answer is its solution, or the 504 of its time limit when the machine is
    // too loaded to load the channel and solve in time: which one is the machine's, not the server's, doing.
    { kind: 'valid', expect: [200, 504], run: resolve('spec=app&platform=linux-64') },
    { kind: 'valid-post', expect: [200, 504], run: post({ specs: ['app', 'lib3'], platforms: ['linux-64'] }) },
    { kind: 'bad-spec', expect: [400], run: resolve(`spec=${encodeURIComponent('python >=>=3')}&platform=linux-64`) },
    { kind: '25000-constraints', expect: [400], run: post({ specs: [constraints], platforms: ['linux-64'] }) },
    { kind: 'bad-json', expect: [400], run: post('{"specs": [') },
    { kind: 'bad-platform', expect: [400], run: resolve('spec=app&platform=linux-65') },
    {
      kind: 'refused-channel',
      expect: [400],
      run: resolve(`spec=app&platform=linux-64&channel=${encodeURIComponent('http://10.0.0.1/x')}`),
    },
    // A channel that fails answers 200 with the platform's error in native JSON; one still loading at the time limit, 504.
    { kind: 'hang', expect: [504], run: resolve(`spec=app&platform=linux-64&channel=${channel('hang')}`) },
    { kind: 'trickle', expect: [200, 504], run: resolve(`spec=app&platform=linux-64&channel=${channel('trickle')}`) },
    { kind: 'bomb', expect: [200, 504], run: resolve(`spec=app&platform=linux-64&channel=${channel('bomb')}`) },
    { kind: 'gzip-bomb', expect: [200, 504], run: resolve(`spec=app&platform=linux-64&channel=${channel('gzip-bomb')}`) },
  ];
}
