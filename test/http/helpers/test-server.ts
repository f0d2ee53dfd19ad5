/**
 * The real server for tests, two ways: `startTestServer` runs `startServer` (the code
 * `conda-resolve serve` runs) on 127.0.0.1 and a free port, for what needs sockets (client
 * disconnects, shutdown, pre-warming before listening); `injectTestServer` wires the same
 * dependencies with `buildServerApp` and takes requests through fastify's `inject()`, with no port
 * and no worker started until a solve needs one. Both use a fresh cache directory and collect the
 * JSON log lines for assertions; `call` sends a request to either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { RepodataStore } from '../../../repodata/store.js';
import { loadRegistry } from '../../../src/exporters/index.js';
import { buildApp } from '../../../src/http/app.js';
import { createChannelPolicy } from '../../../src/http/channel-policy.js';
import { loadConfig, type ServeFlags, type ServerConfig } from '../../../src/http/config.js';
import { buildServerApp, closeServerApp, startServer, type RunningServer, type ServerApp } from '../../../src/http/server.js';
import type { PlatformSolver } from '../../../src/solving/types.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

export const DEMO_CHANNEL_DIR = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');
export const DEMO_CHANNEL = pathToFileURL(DEMO_CHANNEL_DIR).href;

/** Lock files carry their creation time; a fixed clock makes answers comparable byte for byte. */
export const FIXED_CLOCK = { now: () => new Date('2026-01-02T03:04:05Z') };

/**
 * The app without `startServer` (not listening; `inject()` or `listen()` it), with the given store
 * and solver, the installed exporters, local channels allowed and silent logs.
 */
export async function buildTestApp(config: ServerConfig, deps: { store: RepodataStore; solver: PlatformSolver }): Promise<FastifyInstance> {
  return withOpenInjectedSockets(
    buildApp(config, {
      ...deps,
      registry: (await loadRegistry({ env: {}, cwd: PROJECT_ROOT })).registry,
      policy: createChannelPolicy({ allowed: config.allowedChannels, allowLocal: true, cwd: PROJECT_ROOT }),
      logger: pino({ level: 'silent' }),
      env: {},
      cwd: PROJECT_ROOT,
    }),
  );
}

/**
 * `inject()` gives each request a stand-in socket without a `destroyed` flag, which the resolve
 * route would read as a client already gone; mark it open, as a connected socket is.
 */
function withOpenInjectedSockets(app: FastifyInstance): FastifyInstance {
  app.addHook('onRequest', (request, _reply, done) => {
    const socket = request.raw.socket as { destroyed?: boolean } | null;
    if (socket && socket.destroyed === undefined) socket.destroyed = false;
    done();
  });
  return app;
}

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  readonly config: ServerConfig;
  /** Every log line so far, raw. */
  readonly logs: string[];
  /** Settles with the first log line (so far or to come) that `match` accepts. */
  logged(match: (line: string) => boolean): Promise<string>;
  close(): Promise<void>;
}

export interface InjectedServer {
  readonly app: FastifyInstance;
  /** The store, pool and policy behind the app. */
  readonly wired: ServerApp;
  readonly config: ServerConfig;
  readonly logs: string[];
  logged(match: (line: string) => boolean): Promise<string>;
  close(): Promise<void>;
}

/** Log lines kept as they come, and promises for lines still to come. */
function logCollector(): { stream: Writable; logs: string[]; logged(match: (line: string) => boolean): Promise<string> } {
  const logs: string[] = [];
  const waiting: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        logs.push(line);
        for (const waiter of waiting.filter((w) => w.match(line))) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      callback();
    },
  });
  const logged = (match: (line: string) => boolean): Promise<string> => {
    const seen = logs.find(match);
    return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ match, resolve }));
  };
  return { stream, logs, logged };
}

function testConfig(flags: ServeFlags, env: Record<string, string>): { config: ServerConfig; cacheDir: string } {
  const cacheDir = mkdtempSync(join(tmpdir(), 'cr-http-cache-'));
  const config = loadConfig(env, {
    port: '0',
    'rate-limit': '0',
    workers: '2',
    'cache-dir': cacheDir,
    'default-channel': [DEMO_CHANNEL],
    'allow-local-channels': true,
    ...flags,
  });
  return { config, cacheDir };
}

export async function startTestServer(flags: ServeFlags = {}, env: Record<string, string> = {}): Promise<TestServer> {
  const { config, cacheDir } = testConfig(flags, env);
  const { stream, logs, logged } = logCollector();
  const server = await startServer(config, { env, cwd: PROJECT_ROOT, logStream: stream, clock: FIXED_CLOCK });
  return {
    url: server.url,
    server,
    config,
    logs,
    logged,
    close: async () => {
      await server.close('test finished');
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export async function injectTestServer(flags: ServeFlags = {}, env: Record<string, string> = {}): Promise<InjectedServer> {
  const { config, cacheDir } = testConfig(flags, env);
  const { stream, logs, logged } = logCollector();
  const wired = await buildServerApp(config, { env, cwd: PROJECT_ROOT, logStream: stream, clock: FIXED_CLOCK });
  await withOpenInjectedSockets(wired.app).ready();
  return {
    app: wired.app,
    wired,
    config,
    logs,
    logged,
    close: async () => {
      await closeServerApp(wired);
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly type: string;
  json<T = unknown>(): T;
}

/** A request to a listening server (its base URL) or, through `inject()`, to an app. */
export async function call(
  target: string | FastifyInstance,
  method: string,
  path: string,
  options: { json?: unknown; body?: string | Buffer; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  if (typeof target !== 'string') {
    if (options.signal) throw new Error('call: a client that leaves needs a listening server, not inject()');
    const response = await target.inject({ method: method as 'GET', url: path, headers, ...(body !== undefined ? { payload: body } : {}) });
    const injected: Record<string, string | string[] | undefined> = {};
    for (const [name, value] of Object.entries(response.headers)) injected[name] = typeof value === 'number' ? String(value) : value;
    return answer(response.statusCode, injected, response.body);
  }
  const response = await request(`${target}${path}`, { method: method as 'GET', headers, body, signal: options.signal });
  return answer(response.statusCode, response.headers, await response.body.text());
}

function answer(status: number, headers: Record<string, string | string[] | undefined>, text: string): Answer {
  return { status, headers, text, type: String(headers['content-type'] ?? ''), json: <T>() => JSON.parse(text) as T };
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  field?: string;
  available_formats?: string[];
  limit?: number;
  platforms?: { platform: string; error: string; code: string }[];
  retry_after?: number;
  request_id?: string;
}

export interface NativeBody {
  platform: string;
  packages: { name: string; version: string; build: string; channel: string; url: string }[];
  error: string | null;
  warnings?: string[];
}
