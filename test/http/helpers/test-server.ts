/**
 * Starts the real server (`startServer`, the code `conda-resolve serve` runs) on 127.0.0.1 and a
 * free port, with a fresh cache directory and its JSON log lines collected for assertions.
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
import { startServer, type RunningServer } from '../../../src/http/server.js';
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
  return buildApp(config, {
    ...deps,
    registry: (await loadRegistry({ env: {}, cwd: PROJECT_ROOT })).registry,
    policy: createChannelPolicy({ allowed: config.allowedChannels, allowLocal: true, cwd: PROJECT_ROOT }),
    logger: pino({ level: 'silent' }),
    env: {},
    cwd: PROJECT_ROOT,
  });
}

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  readonly config: ServerConfig;
  /** Every log line so far, raw. */
  readonly logs: string[];
  close(): Promise<void>;
}

export async function startTestServer(flags: ServeFlags = {}, env: Record<string, string> = {}): Promise<TestServer> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'cr-http-cache-'));
  const config = loadConfig(env, { port: '0', 'rate-limit': '0', workers: '2', 'cache-dir': cacheDir, 'default-channel': [DEMO_CHANNEL], 'allow-local-channels': true, ...flags });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const server = await startServer(config, { env, cwd: PROJECT_ROOT, logStream, clock: FIXED_CLOCK });
  return {
    url: server.url,
    server,
    config,
    logs,
    close: async () => {
      await server.close('test finished');
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

export async function call(
  base: string,
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
  const response = await request(`${base}${path}`, { method: method as 'GET', headers, body, signal: options.signal });
  const text = await response.body.text();
  const type = String(response.headers['content-type'] ?? '');
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    type,
    json: <T>() => JSON.parse(text) as T,
  };
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
