/**
 * Test fixtures for the action: stand-in `pixi` and spying `curl` on PATH, a seed-shaped stand-in
 * HTTP server for the shell-logic cases, a TLS front with the test certificate, and a real
 * `conda-resolve serve` child process.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { cleanupRun, type ActionRun } from './action-runner.js';
import { parseTomlSubset } from './toml-subset.mjs';

/**
 * The action checkout the end-to-end tests run: the repository itself, or (to try a build kept
 * outside dist/) a folder named by CONDA_RESOLVE_ACTION_ROOT that holds action.yml, pixi.toml,
 * package.json, node_modules and dist/.
 */
export const ACTION_ROOT = process.env.CONDA_RESOLVE_ACTION_ROOT ? resolve(process.env.CONDA_RESOLVE_ACTION_ROOT) : PROJECT_ROOT;
export const CLI_ENTRY = join(ACTION_ROOT, 'dist', 'src', 'cli', 'bin.js');
export const DEMO_CHANNEL_DIR = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');
export const DEMO_CHANNEL_URL = pathToFileURL(DEMO_CHANNEL_DIR).href;
export const TLS_DIR = join(PROJECT_ROOT, 'fixtures', 'tls');
export const TLS_CA_FILE = join(TLS_DIR, 'ca.pem');

const STAND_INS = join(PROJECT_ROOT, 'test', 'action', 'stand-ins');

/** The local-mode tests run the built CLI, as the action does; `npm test` builds it first. */
export function assertCliBuilt(): void {
  if (!existsSync(CLI_ENTRY)) {
    throw new Error(`${CLI_ENTRY} is missing: run "npm run build" first (npm test does)`);
  }
}

export interface Call {
  argv: string[];
  cwd?: string;
}

export interface ToolBox {
  /** Put this first on PATH. */
  binDir: string;
  /** Extra environment for the action run: PATH and the stand-ins' settings. */
  env: Record<string, string>;
  pixiCalls(): Promise<Call[]>;
  curlCalls(): Promise<Call[]>;
  dir: string;
  cleanup(): Promise<void>;
}

/**
 * The calls the pixi stand-in logged to `file` (its PIXI_STAND_IN_LOG), in order: for each, the
 * argument count, the working directory and then the arguments, each ended by a NUL.
 */
export async function readCalls(file: string): Promise<Call[]> {
  if (!existsSync(file)) return [];
  const fields = (await readFile(file, 'utf8')).split('\0').slice(0, -1);
  const calls: Call[] = [];
  for (let at = 0; at < fields.length; ) {
    const count = Number(fields[at]);
    calls.push({ argv: fields.slice(at + 2, at + 2 + count), cwd: fields[at + 1] });
    at += 2 + count;
  }
  return calls;
}

/** Calls written by curl-spy.sh: for each, the argument count and then the arguments, each ended by a NUL. */
async function readNulCalls(file: string): Promise<Call[]> {
  if (!existsSync(file)) return [];
  const fields = (await readFile(file, 'utf8')).split('\0').slice(0, -1);
  const calls: Call[] = [];
  for (let at = 0; at < fields.length; ) {
    const count = Number(fields[at]);
    calls.push({ argv: fields.slice(at + 1, at + 1 + count) });
    at += 1 + count;
  }
  return calls;
}

/** A bash word that is exactly `value`. */
const bashWord = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The pixi manifest as the bash stand-in (stand-ins/pixi.sh) reads it: per environment and task,
 * the command, the dependency tasks pixi would list and the error for an unknown one, worked out
 * here once with the TOML subset parser, as the stand-in once did on every call.
 */
/** The parts of a pixi manifest the stand-in needs. */
interface PixiTask {
  readonly cmd?: unknown;
  readonly 'depends-on'?: readonly string[];
}
type PixiTasks = Record<string, PixiTask | string>;
interface PixiManifest {
  readonly tasks?: PixiTasks;
  readonly feature?: Record<string, { readonly tasks?: PixiTasks } | undefined>;
  readonly environments?: Record<
    string,
    readonly string[] | { readonly features?: readonly string[]; readonly 'no-default-feature'?: boolean }
  >;
}

export function pixiTaskTable(manifestPath: string, text: string): string {
  const manifest = parseTomlSubset(text) as PixiManifest;
  const lines = [
    `STAND_IN_MANIFEST=${bashWord(manifestPath)}`,
    'declare -A STAND_IN_ENVS STAND_IN_TASKS STAND_IN_DEPS STAND_IN_DEP_ERRORS',
  ];
  for (const [envName, envDef] of Object.entries(manifest.environments ?? {})) {
    lines.push(`STAND_IN_ENVS[${bashWord(envName)}]=1`);
    const table = Array.isArray(envDef)
      ? undefined
      : (envDef as { readonly features?: readonly string[]; readonly 'no-default-feature'?: boolean });
    const features: readonly string[] = table ? (table.features ?? []) : (envDef as readonly string[]);
    const tasks: PixiTasks = {};
    if (!(table?.features && table['no-default-feature'] === true)) Object.assign(tasks, manifest.tasks ?? {});
    for (const feature of features) Object.assign(tasks, manifest.feature?.[feature]?.tasks ?? {});
    for (const [taskName, task] of Object.entries(tasks)) {
      const key = bashWord(`${envName}/${taskName}`);
      const command = typeof task === 'string' ? task : task.cmd;
      lines.push(`STAND_IN_TASKS[${key}]=${bashWord(typeof command === 'string' ? command : '')}`);
      const pending: string[] = typeof task === 'string' ? [] : [...(task['depends-on'] ?? [])];
      const seen = new Set<string>();
      const deps: string[] = [];
      while (pending.length > 0) {
        const name = pending.shift()!;
        if (seen.has(name)) continue;
        seen.add(name);
        if (tasks[name] === undefined) {
          lines.push(`STAND_IN_DEP_ERRORS[${key}]=${bashWord(`task '${taskName}' depends on the unknown task '${name}'`)}`);
          break;
        }
        deps.push(name);
        const next = tasks[name];
        pending.push(...(typeof next === 'string' ? [] : (next['depends-on'] ?? [])));
      }
      lines.push(`STAND_IN_DEPS[${key}]=${bashWord(deps.join('\n'))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A bin folder with `pixi` (stand-in) and `curl` (spy over the real one) ahead of the system's.
 * With `replayVersion`, the stand-in answers the action's `conda-resolve --version` (its "Prepare"
 * step, in every local-mode run) with the output of one real run made here, instead of starting
 * the one-file CLI (~0.3 s of CPU) each time only to print the same line: a run that needs the
 * real call removes PIXI_STAND_IN_VERSION from its environment (local.test.ts's first case does).
 */
export async function makeToolBox(options: { replayVersion?: boolean } = {}): Promise<ToolBox> {
  const dir = await mkdtemp(join(tmpdir(), 'cr-action-tools-'));
  const binDir = join(dir, 'bin');
  await mkdir(binDir);
  const realCurl = execFileSync('bash', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
  await symlink(join(STAND_INS, 'pixi.sh'), join(binDir, 'pixi'));
  await symlink(join(STAND_INS, 'curl-spy.sh'), join(binDir, 'curl'));
  const manifest = join(ACTION_ROOT, 'pixi.toml');
  const pixiTasks = join(dir, 'pixi-tasks.bash');
  await writeFile(pixiTasks, pixiTaskTable(manifest, await readFile(manifest, 'utf8')));
  const replay: Record<string, string> = {};
  if (options.replayVersion) {
    const version = await promisify(execFile)(process.execPath, [join(ACTION_ROOT, 'action', 'conda-resolve.mjs'), '--version'], {
      cwd: dir,
    });
    if (version.stderr !== '') throw new Error(`conda-resolve --version wrote on stderr:\n${version.stderr}`);
    replay.PIXI_STAND_IN_VERSION = join(dir, 'version.txt');
    await writeFile(replay.PIXI_STAND_IN_VERSION, version.stdout);
  }
  const pixiLog = join(dir, 'pixi-calls.nul');
  const curlLog = join(dir, 'curl-calls.nul');
  // An empty HOME and CURL_HOME with a .curlrc that would break every request if curl read it.
  const home = join(dir, 'home');
  await mkdir(home);
  await writeFile(join(home, '.curlrc'), 'header = "X-From-Curlrc: read"\nproxy = "http://127.0.0.1:9"\n');
  return {
    binDir,
    dir,
    env: {
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      PIXI_STAND_IN_LOG: pixiLog,
      PIXI_STAND_IN_TASKS: pixiTasks,
      ...replay,
      CURL_SPY_LOG: curlLog,
      CURL_SPY_REAL: realCurl,
      HOME: home,
      CURL_HOME: home,
      XDG_CONFIG_HOME: home,
      // The real CLI's repodata cache stays inside the test's folder.
      CONDA_RESOLVE_CACHE_DIR: join(dir, 'cache'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
    pixiCalls: () => readCalls(pixiLog),
    curlCalls: () => readNulCalls(curlLog),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StandInReply {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
  /**
   * Send the status line and headers and never the body: the connection stays open until the client
   * gives up on it (or the server closes), so a client that waits for the body hangs the test.
   */
  cutAfterHeaders?: boolean;
}

export interface StandInServer {
  url: string;
  requests: RecordedRequest[];
  /** How to answer; by default a native result for every requested platform. */
  reply: (request: RecordedRequest) => StandInReply | 'drop';
  close(): Promise<void>;
}

/** A native-result answer built from a request body, as the seed's server would give. */
export function nativeReply(request: RecordedRequest, failing: readonly string[] = []): StandInReply {
  const body = JSON.parse(request.body || '{}') as { platforms?: string[] };
  const platforms = body.platforms ?? ['linux-64'];
  const result = platforms.map((platform) =>
    failing.includes(platform)
      ? { platform, packages: [], error: `nothing provides the requested packages on ${platform}` }
      : {
          platform,
          packages: [
            {
              name: 'zlib',
              version: '1.3.1',
              build: 'h4ab18f5_1',
              build_number: 1,
              channel: 'conda-forge',
              subdir: platform,
              url: `https://conda.anaconda.org/conda-forge/${platform}/zlib-1.3.1-h4ab18f5_1.conda`,
              sha256: 'a'.repeat(64),
              md5: 'b'.repeat(32),
              size: 1000,
              depends: [],
              constrains: [],
              manager: 'conda',
            },
          ],
          error: null,
        },
  );
  return { status: 200, body: JSON.stringify(result), headers: { 'content-type': 'application/json' } };
}

/** A stand-in for a conda-resolve server: records each request and answers with `reply`. */
export async function startStandInServer(options: { host?: string } = {}): Promise<StandInServer> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const state: { reply: StandInServer['reply'] } = { reply: (request) => nativeReply(request) };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const answer = state.reply(recorded);
      if (answer === 'drop') {
        res.socket?.destroy();
        return;
      }
      res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain; charset=utf-8' });
      if (answer.cutAfterHeaders) {
        res.flushHeaders();
        return;
      }
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolvePromise) => server.listen(0, host, resolvePromise));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    get reply() {
      return state.reply;
    },
    set reply(fn) {
      state.reply = fn;
    },
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

/** A loopback server that passes every request through to another. */
export interface Front {
  /** `http(s)://<host>:<port>` */
  url: string;
  close(): Promise<void>;
}
export type TlsFront = Front;

/** A request handler that passes every request through to `target` (an http:// URL). */
function forwardTo(target: string): (req: IncomingMessage, res: ServerResponse) => void {
  const upstream = new URL(target);
  return (req, res) => {
    const forward = httpRequest(
      {
        hostname: upstream.hostname.replace(/^\[|\]$/g, ''),
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  };
}

async function listenFront(server: Server, host: string, scheme: 'http' | 'https', hostname?: string): Promise<Front> {
  await new Promise<void>((resolvePromise) => server.listen(0, host, resolvePromise));
  const port = (server.address() as AddressInfo).port;
  const name = hostname ?? (host.includes(':') ? `[${host}]` : host);
  return {
    url: `${scheme}://${name}:${port}`,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

/** HTTPS on loopback with the test certificate, passing every request through to `target`. */
export async function startTlsFront(target: string, options: { host?: string; hostname?: string } = {}): Promise<Front> {
  const [key, cert] = await Promise.all([readFile(join(TLS_DIR, 'server-key.pem')), readFile(join(TLS_DIR, 'server.pem'))]);
  return listenFront(createHttpsServer({ key, cert }, forwardTo(target)), options.host ?? '127.0.0.1', 'https', options.hostname);
}

/** Plain HTTP on `host` (e.g. ::1), passing every request through to `target`. */
export async function startHttpFront(target: string, options: { host: string }): Promise<Front> {
  return listenFront(createServer(forwardTo(target)), options.host, 'http');
}

export interface ResolveServer {
  /** `http://127.0.0.1:<port>` or `http://[::1]:<port>` */
  url: string;
  output(): string;
  close(): Promise<void>;
}

/**
 * A real `conda-resolve serve` on loopback, port 0, with local channels allowed (the tests use the
 * demo channel as a file:// URL). The port is read from the server's start-up log.
 */
export async function startResolveServer(options: { host: '127.0.0.1' | '::1'; cacheDir: string }): Promise<ResolveServer> {
  assertCliBuilt();
  const child: ChildProcess = spawn(
    process.execPath,
    // One solver thread: the tests send one request at a time, and each thread costs its start-up.
    [
      CLI_ENTRY,
      'serve',
      '--host',
      options.host,
      '--port',
      '0',
      '--workers',
      '1',
      '--allow-local-channels',
      '--cache-dir',
      options.cacheDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CONDA_RESOLVE_CACHE_DIR: options.cacheDir } },
  );
  let output = '';
  const port = await new Promise<number>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`conda-resolve serve did not report its port within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening (?:on|at) https?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`conda-resolve serve exited with status ${code} before listening:\n${output}`));
    });
  });
  return {
    url: `http://${options.host === '::1' ? '[::1]' : options.host}:${port}`,
    output: () => output,
    close: () =>
      new Promise<void>((resolvePromise) => {
        if (child.exitCode !== null) return resolvePromise();
        child.once('exit', () => resolvePromise());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A suite's tool box, made before its cases and removed after them with the action runs they kept
 * in `runs` (cases run concurrently, so runs are cleaned up once all are done).
 */
export function useToolBox(runs: ActionRun[]): () => ToolBox {
  let tools: ToolBox | undefined;
  beforeAll(async () => {
    assertCliBuilt();
    tools = await makeToolBox({ replayVersion: true });
  });
  afterAll(async () => {
    await Promise.all(runs.splice(0).map((run) => cleanupRun(run)));
    await tools?.cleanup();
  });
  return () => tools!;
}
