/**
 * A static file server on 127.0.0.1 for tests and benchmarks: serves a folder laid out as conda
 * channels (`<channel>/<subdir>/repodata.json`), with ETag / Last-Modified validators and 304
 * answers, and a log of requests so tests can check what was asked for.
 *
 * `intercept` lets a test answer a request itself (an error status, a truncated body, a dropped
 * connection) before the static handler runs.
 *
 * `auth` makes it a private channel: every path must start with `/t/<token>/` (stripped before the
 * file is looked up; 403 otherwise) and/or carry `Authorization: Basic <user:password>` (401
 * otherwise), as anaconda.org and HTTP-auth mirrors expect.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, normalize, sep } from 'node:path';

export interface RequestLogEntry {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  status: number;
}

export interface ChannelServer {
  /** `http://127.0.0.1:<port>` without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly log: RequestLogEntry[];
  /** Return true when the request was answered. */
  intercept: ((req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>) | undefined;
  close(): Promise<void>;
}

export interface ChannelServerOptions {
  root: string;
  /** Seconds for `Cache-Control: max-age`; omitted when undefined. */
  maxAge?: number;
  host?: string;
  /** Require an anaconda.org-style token in the path and/or Basic credentials. */
  auth?: { token?: string; basic?: { user: string; password: string } };
}

export async function startChannelServer(options: ChannelServerOptions): Promise<ChannelServer> {
  const root = normalize(options.root);
  const log: RequestLogEntry[] = [];
  const state: { intercept: ChannelServer['intercept'] } = { intercept: undefined };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requested = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let path = requested;
    res.on('finish', () => log.push({ method: req.method ?? 'GET', path: requested, headers: req.headers, status: res.statusCode }));
    if (state.intercept && (await state.intercept(req, res))) return;
    const auth = options.auth;
    if (auth?.basic) {
      const expected = `Basic ${Buffer.from(`${auth.basic.user}:${auth.basic.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="channel"' }).end();
        return;
      }
    }
    if (auth?.token !== undefined) {
      const prefix = `/t/${auth.token}/`;
      if (!path.startsWith(prefix)) {
        res.writeHead(403).end();
        return;
      }
      path = path.slice(prefix.length - 1);
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(root + sep) && file !== root) {
      res.writeHead(403).end();
      return;
    }
    let info;
    try {
      info = await stat(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (!info.isFile()) {
      res.writeHead(404).end();
      return;
    }
    const body = await readFile(file);
    const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 20)}"`;
    const lastModified = info.mtime.toUTCString();
    const headers: Record<string, string> = { etag, 'last-modified': lastModified };
    if (options.maxAge !== undefined) headers['cache-control'] = `public, max-age=${options.maxAge}`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    headers['content-type'] = file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  await new Promise<void>((resolvePromise) => server.listen(0, options.host ?? '127.0.0.1', resolvePromise));
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    log,
    get intercept() {
      return state.intercept;
    },
    set intercept(fn) {
      state.intercept = fn;
    },
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}
