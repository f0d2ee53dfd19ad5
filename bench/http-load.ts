/**
 * Issue 6 benchmark: the HTTP service under load, as `conda-resolve serve` runs in production (a
 * separate process, compiled JavaScript, info-level JSON logs, worker pool, warm indexes).
 *
 *   npx tsx bench/http-load.ts [--requests 10000] [--connections 50] [--mixed 1000]
 *                              [--solve-cache N] [--workers N] [--peer-requests 200] [--no-peer]
 *
 * 1. Load: `GET /resolve?spec=python=3.9&platform=linux-64` against conda-forge-py39 (a file://
 *    channel, pre-warmed), `--requests` requests over `--connections` connections with autocannon:
 *    requests/second, p50/p99 latency, and the server's RSS before and after.
 * 2. Mixed: `--mixed` requests sent at once over as many connections: valid resolves (several
 *    specs, native and exporter formats), invalid ones (bad spec, unknown platform, unknown format,
 *    broken JSON) and resolves of a slow channel (served on 127.0.0.1, answering after the
 *    server's 3 s time limit). Every response is accounted for by status and category.
 * 3. Peer (same run): the same request answered by rattler (`@conda-org/rattler` simpleSolve, WASM)
 *    behind a bare node:http server, over the same channel served on 127.0.0.1, `--peer-requests`
 *    requests over the same number of connections: the requests/second ratio.
 *
 * The server runs from `dist/` when it is newer than the sources (`npm run bench` builds first),
 * otherwise from a compilation into `bench/out/http-build` (git-ignored).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { startChannelServer } from '../test/helpers/channel-server.js';
import { listeningUrl } from './serve-url.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHANNELS = join(ROOT, '..', 'shared', 'channels');
const CHANNEL = pathToFileURL(join(CHANNELS, 'conda-forge-py39')).href;
const LOAD_PATH = '/resolve?spec=python%3D3.9&platform=linux-64';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '50' },
    mixed: { type: 'string', default: '1000' },
    'solve-cache': { type: 'string' },
    workers: { type: 'string', default: '2' },
    'peer-requests': { type: 'string', default: '200' },
    warmup: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    'no-peer': { type: 'boolean', default: false },
  },
});

/** Newest modification time of the TypeScript sources the server is built from. */
function newestSource(): number {
  let newest = 0;
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ['src', 'repodata', 'solver', 'vocabulary']) visit(join(ROOT, dir));
  return newest;
}

/** `dist/` when it is built from the current sources (`npm run bench` builds it), else a fresh compilation. */
function serverEntry(): string {
  const dist = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
  if (existsSync(dist) && statSync(dist).mtimeMs >= newestSource()) return dist;
  const out = join(ROOT, 'bench', 'out', 'http-build');
  console.error(`[http-load] compiling the server into ${out} (dist/ is missing or older than the sources)`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out],
    { stdio: 'ignore' },
  );
  const entry = join(out, 'src', 'cli', 'bin.cjs');
  if (!existsSync(entry)) throw new Error(`compilation produced no ${entry}`);
  return entry;
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  rssMb(): number;
  stop(): Promise<number | null>;
}

async function startServer(extra: string[]): Promise<Server> {
  const cacheDir = join(ROOT, 'bench', 'out', 'http-cache');
  mkdirSync(cacheDir, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      serverEntry(),
      'serve',
      '--port',
      '0',
      '--allow-local-channels',
      '--default-channel',
      CHANNEL,
      '--prewarm',
      `${CHANNEL}/linux-64`,
      '--rate-limit',
      '0',
      '--cache-dir',
      cacheDir,
      '--workers',
      args.workers!,
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' } },
  );
  const url = await listeningUrl(child, (line) => {
    if (/"level":(40|50|60)/.test(line)) console.error(`[server] ${line.slice(0, 300)}`);
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    url,
    rssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    stop: () => {
      child.kill('SIGTERM');
      return exit;
    },
  };
}

/** autocannon, sampling every 50 ms so that a run of a given number of requests ends when they do. */
function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ sampleInt: 50, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function loadPhase(server: Server): Promise<Record<string, number>[]> {
  const connections = Number(args.connections);
  // Warm-up: indexes are pre-warmed; this reaches the workers, the JIT and V8's heap sizing.
  await cannon({ url: `${server.url}${LOAD_PATH}`, connections, amount: Number(args.warmup) });
  const rounds: Record<string, number>[] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    const rssBefore = server.rssMb();
    const started = performance.now();
    const result = await cannon({ url: `${server.url}${LOAD_PATH}`, connections, amount: Number(args.requests) });
    const seconds = (performance.now() - started) / 1000;
    const rssAfter = server.rssMb();
    rounds.push({
      requests: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      // Total over wall time (autocannon's own average is per sample, not per second).
      rps: result.requests.total / seconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      rssBefore,
      rssAfter,
    });
  }
  return rounds;
}

type Category = 'valid' | 'invalid' | 'slow';

async function mixedPhase(server: Server, slowChannel: string): Promise<Map<string, number>> {
  const total = Number(args.mixed);
  const agent = new Agent({ connections: total, pipelining: 0, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const valid = [
    '/resolve?spec=python%3D3.9&platform=linux-64',
    '/resolve?spec=python%3D3.9&spec=pip&platform=linux-64',
    '/resolve?spec=python&platform=linux-64',
    '/resolve?spec=python%3D3.9&platform=linux-64&format=explicit',
    '/resolve?spec=python%3D3.9&spec=setuptools&platform=linux-64&format=environment-yaml',
  ];
  const invalid: { path: string; body?: string }[] = [
    { path: '/resolve?spec=python%20%3E%3D%3C3&platform=linux-64' },
    { path: '/resolve?spec=python&platform=linux-65' },
    { path: '/resolve?spec=python&format=nope' },
    { path: '/resolve', body: '{"specs": ["python"' },
  ];
  const jobs: { category: Category; run: () => Promise<number> }[] = [];
  for (let i = 0; i < total; i++) {
    const pick = i % 20;
    if (pick < 12) {
      const path = valid[i % valid.length]!;
      jobs.push({ category: 'valid', run: () => send(path) });
    } else if (pick < 17) {
      const item = invalid[i % invalid.length]!;
      jobs.push({ category: 'invalid', run: () => send(item.path, item.body) });
    } else {
      jobs.push({ category: 'slow', run: () => send(`/resolve?spec=python&platform=linux-64&channel=${encodeURIComponent(slowChannel)}`) });
    }
  }
  async function send(path: string, body?: string): Promise<number> {
    const response = await request(`${server.url}${path}`, {
      dispatcher: agent,
      method: body === undefined ? 'GET' : 'POST',
      body,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
    });
    await response.body.dump();
    return response.statusCode;
  }
  const tally = new Map<string, number>();
  const started = performance.now();
  await Promise.all(
    jobs.map(async (job) => {
      let key: string;
      try {
        key = `${job.category} ${await job.run()}`;
      } catch (error) {
        key = `${job.category} network error ${(error as { code?: string }).code ?? (error as Error).message}`;
      }
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }),
  );
  tally.set('wall ms', Math.round(performance.now() - started));
  await agent.close();
  return tally;
}

/** rattler-wasm behind a bare HTTP server: the same resolve per request, no caching of ours. */
async function peerPhase(channelUrl: string): Promise<Record<string, number> | undefined> {
  let simpleSolve: (specs: string[], channels: string[], platforms: string[], locked: unknown) => Promise<unknown[]>;
  try {
    ({ simpleSolve } = (await import('@conda-org/rattler')) as unknown as { simpleSolve: typeof simpleSolve });
  } catch {
    console.error('[http-load] @conda-org/rattler is not installed: no peer figures');
    return undefined;
  }
  const virtual = (name: string, version: string, build = '0') => ({
    url: `https://virtual/${name}-${version}-${build}.conda`,
    packageName: name,
    version,
    build,
    buildNumber: 0n,
    filename: `${name}-${version}-${build}.conda`,
    subdir: 'linux-64',
    depends: [],
  });
  const locked = [virtual('__unix', '0'), virtual('__linux', '4.18'), virtual('__glibc', '2.28'), virtual('__archspec', '1', 'x86_64')];
  const peer = createServer((req, res) => {
    const spec = new URL(req.url ?? '/', 'http://x').searchParams.get('spec') ?? 'python';
    simpleSolve([spec], [channelUrl], ['linux-64', 'noarch'], locked).then(
      (records) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(records, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}${LOAD_PATH}`;
  const connections = Number(args.connections);
  await cannon({ url, connections: 2, amount: 4 });
  // rattler solves one request at a time: requests wait their turn, so allow them two minutes.
  const started = performance.now();
  const result = await cannon({ url, connections, amount: Number(args['peer-requests']), timeout: 120 });
  const seconds = (performance.now() - started) / 1000;
  await new Promise<void>((resolve) => peer.close(() => resolve()));
  return {
    requests: result.requests.total,
    non2xx: result.non2xx,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(CHANNELS, 'conda-forge-py39'))) throw new Error(`${CHANNELS} is missing: the benchmark needs ../shared`);
  // The slow channel answers after the server's time limit (3 s below).
  const channelServer = await startChannelServer({ root: CHANNELS });
  channelServer.intercept = async (req) => {
    if (req.url?.startsWith('/slow/')) await new Promise((r) => setTimeout(r, 5000));
    return false;
  };
  const slowChannel = `${channelServer.url}/slow`;
  const extra = ['--allow-channel', CHANNEL, '--allow-channel', slowChannel, '--timeout', '3', '--max-queue', '64'];
  if (args['solve-cache'] !== undefined) extra.push('--solve-cache', args['solve-cache']);

  const server = await startServer(extra);
  console.log(`server ${server.url} (workers ${args.workers}, solve cache ${args['solve-cache'] ?? 'default'})`);
  const rounds = await loadPhase(server);
  const load = rounds[0]!;
  console.log(
    `\nload: python=3.9 linux-64, conda-forge-py39, ${args.connections} connections, ${args.requests} requests per round after ${args.warmup} warm-up requests`,
  );
  for (const [i, round] of rounds.entries()) {
    const growth = ((round.rssAfter! - round.rssBefore!) / round.rssBefore!) * 100;
    console.log(
      `  round ${i + 1}: ${round.rps!.toFixed(0)} requests/s, p50 ${round.p50} ms, p99 ${round.p99} ms, non-2xx/errors ${round.non2xx}/${round.errors}, RSS ${round.rssBefore!.toFixed(0)} MB -> ${round.rssAfter!.toFixed(0)} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%)`,
    );
  }
  if (rounds.length > 1) {
    const first = rounds[0]!.rssBefore!;
    const last = rounds.at(-1)!.rssAfter!;
    console.log(
      `  over all ${rounds.length} rounds: RSS ${first.toFixed(0)} MB -> ${last.toFixed(0)} MB (${(((last - first) / first) * 100).toFixed(1)}%)`,
    );
  }

  const mixed = await mixedPhase(server, slowChannel);
  const accounted = [...mixed.entries()].filter(([k]) => k !== 'wall ms').reduce((sum, [, n]) => sum + n, 0);
  console.log(`\nmixed: ${args.mixed} concurrent requests, ${accounted} answered in ${mixed.get('wall ms')} ms`);
  for (const [key, count] of [...mixed.entries()].filter(([k]) => k !== 'wall ms').sort()) console.log(`  ${key.padEnd(28)} ${count}`);
  const health = await request(`${server.url}/health`);
  console.log(`  server still up: /health ${health.statusCode} ${await health.body.text()}`);
  console.log(`  exit status after SIGTERM: ${await server.stop()}`);

  if (!args['no-peer']) {
    const peer = await peerPhase(`${channelServer.url}/conda-forge-py39`);
    if (peer) {
      console.log(
        `\npeer: rattler simpleSolve (WASM) behind node:http, same request, ${args.connections} connections, ${peer.requests} requests`,
      );
      console.log(`  requests/s      ${peer.rps!.toFixed(1)}   (conda-resolve ${(load.rps! / peer.rps!).toFixed(0)}x)`);
      console.log(`  latency p50     ${peer.p50} ms`);
      console.log(`  latency p99     ${peer.p99} ms   non-2xx ${peer.non2xx}`);
    }
  }
  await channelServer.close();
}

await main();
