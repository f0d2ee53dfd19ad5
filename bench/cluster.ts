/**
 * Issue 18 benchmark: uncached solves per second through `serve --redis` with one and with two
 * `conda-resolve worker` processes, against the single-process server (`serve`, its own worker
 * threads) in the same run, with p50/p99 latency.
 *
 *   npx tsx bench/cluster.ts [--requests 120] [--connections 8] [--threads 1] [--holes 10] [--rounds 2]
 *
 * Every process runs from dist/ (`npm run build` first): a private redis-server on a free port, one
 * replica, the workers (each with `--threads` solver threads) and the peer, `serve --workers N`
 * with N = 1 and 2 threads, so "one worker" and "two workers" are compared at the same thread
 * count on both sides. Every request is distinct (real environments on defaults-main-2022
 * linux-aarch64, made unique by a spec that changes nothing: `setuptools>=0.<i>`), the in-memory
 * solve cache is off and Redis is flushed between runs: every answer is a real solve. Two
 * workloads: light (real environments, a few ms of solving each) and heavy (the pigeonhole problem,
 * where the solve dominates). Each figure is the best of `--rounds` runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { writePigeonChannel } from '../test/http/helpers/pigeon-channel.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const CHANNEL = pathToFileURL(join(ROOT, '..', 'shared', 'channels', 'defaults-main-2022')).href;
const PLATFORM = 'linux-aarch64';
/** Real environments of different weight, taken in turn. */
const SPEC_SETS = [
  ['python=3.9', 'numpy', 'pandas', 'scipy', 'scikit-learn'],
  ['python=3.8', 'tensorflow'],
  ['python', 'pytorch'],
  ['jupyterlab', 'matplotlib', 'python=3.9'],
];

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '120' },
    connections: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    holes: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
  },
});
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
const THREADS = Number(args.threads);
const HOLES = Number(args.holes);
const ROUNDS = Number(args.rounds);

if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
const redisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
if (!redisServer) {
  console.log('cluster: skipped, redis-server is not installed (apt-get install redis-server)');
  process.exit(0);
}

const children: ChildProcess[] = [];
const temps: string[] = [];
const agent = new Agent({ connections: CONNECTIONS * 2 });
let round = 0;

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cr-bench-cluster-'));
  temps.push(dir);
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts `conda-resolve <args>` and settles with the first log line matching `ready`. */
function start(cliArgs: string[], ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [CLI, ...cliArgs], {
    cwd: ROOT,
    env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let seen = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const line = seen.split('\n').find((l) => ready.test(l));
      if (line) resolve({ child, line });
    });
    child.once('exit', (code) => reject(new Error(`conda-resolve ${cliArgs[0]} exited (${code}):\n${seen}`)));
  });
}

async function serve(extra: string[]): Promise<{ child: ChildProcess; url: string }> {
  const args = [
    'serve',
    '--port',
    '0',
    '--allow-local-channels',
    '--rate-limit',
    '0',
    '--solve-cache',
    '0',
    '--timeout',
    '120',
    '--cache-dir',
    temp(),
    '--prewarm',
    `${CHANNEL}/${PLATFORM}`,
    ...extra,
  ];
  const { child, line } = await start(args, /listening on/);
  return { child, url: /"url":"([^"]+)"/.exec(line)![1]! };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Figures {
  readonly solvesPerSecond: number;
  readonly p50: number;
  readonly p99: number;
}

/** A kind of request: `count` distinct bodies for a round, a few to warm up, what a good answer holds. */
interface Workload {
  readonly name: string;
  readonly count: number;
  body(round: string, i: number): string;
  readonly expect: string;
}

/** Real environments; each solve takes a few ms, so per-request overhead weighs as much. */
const LIGHT: Workload = {
  name: 'light: real environments on defaults-main-2022',
  count: REQUESTS,
  body: (round, i) =>
    JSON.stringify({
      specs: [...SPEC_SETS[i % SPEC_SETS.length]!, `setuptools>=0.${round}${i}`],
      channels: [CHANNEL],
      platforms: [PLATFORM],
    }),
  expect: '"error":null',
};

/**
 * The pigeonhole problem (test/http/helpers/pigeon-channel.ts): unsatisfiable and hard for a CDCL
 * solver, so the solve dominates; made distinct by a constraint every candidate meets.
 */
function heavy(holes: number): Workload {
  const dir = temp();
  const { specs } = writePigeonChannel(dir, holes);
  const channel = pathToFileURL(dir).href;
  return {
    name: `heavy: pigeonhole, ${holes} holes`,
    count: Math.max(8, Math.round(REQUESTS / 4)),
    body: (round, i) => JSON.stringify({ specs: [...specs, `hole1>=0.${round}${i}`], channels: [channel], platforms: ['linux-64'] }),
    expect: '"packages":[]',
  };
}

/** The best of `ROUNDS` runs (by solves/s): the machine is shared, and others' load only slows a run. */
async function load(url: string, workload: Workload, flush: () => Promise<unknown> = async () => undefined): Promise<Figures> {
  let best: Figures | undefined;
  for (let i = 0; i < ROUNDS; i++) {
    await flush();
    const figures = await loadOnce(url, workload);
    if (!best || figures.solvesPerSecond > best.solvesPerSecond) best = figures;
  }
  return best!;
}

/** The workload's distinct solves over `CONNECTIONS` connections, after a few to warm up. */
async function loadOnce(url: string, workload: Workload): Promise<Figures> {
  round++;
  for (let i = 0; i < 4; i++) await post(url, workload.body(`${round}0`, i), workload.expect);
  const bodies = Array.from({ length: workload.count }, (_, i) => workload.body(`${round}1`, i));
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const t0 = performance.now();
        await post(url, body, workload.expect);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { solvesPerSecond: bodies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

async function post(url: string, body: string, expected: string): Promise<void> {
  const response = await request(`${url}/resolve`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || !text.includes(expected))
    throw new Error(`resolve answered ${response.statusCode}: ${text.slice(0, 300)}`);
}

function row(name: string, f: Figures, base?: Figures): string {
  const ratio = base ? `${(f.solvesPerSecond / base.solvesPerSecond).toFixed(2)}x` : '';
  return `| ${name} | ${f.solvesPerSecond.toFixed(1)} | ${f.p50.toFixed(0)} ms | ${f.p99.toFixed(0)} ms | ${ratio} |`;
}

async function main(): Promise<void> {
  const redisPort = await freePort();
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  children.push(
    spawn(redisServer, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
  );
  const redis = new Redis(redisUrl, { retryStrategy: (times) => (times > 50 ? null : 100) });
  redis.on('error', () => undefined);
  await redis.ping();
  const workloads = [LIGHT, heavy(HOLES)];

  const single = new Map<Workload, Figures[]>(workloads.map((w) => [w, []]));
  for (const threads of [THREADS, THREADS * 2]) {
    console.log(`single process, ${threads} thread(s)...`);
    const peer = await serve(['--workers', String(threads)]);
    for (const workload of workloads) single.get(workload)!.push(await load(peer.url, workload));
    await stop(peer.child);
  }

  const replica = await serve(['--redis', redisUrl, '--workers', '1']);
  const cluster = new Map<Workload, Figures[]>(workloads.map((w) => [w, []]));
  const workers: ChildProcess[] = [];
  for (const count of [1, 2]) {
    while (workers.length < count) {
      workers.push(
        (await start(['worker', '--redis', redisUrl, '--workers', String(THREADS), '--cache-dir', temp()], /worker ready/)).child,
      );
    }
    console.log(`serve --redis, ${count} worker(s)...`);
    for (const workload of workloads) cluster.get(workload)!.push(await load(replica.url, workload, () => redis.flushall()));
  }
  await Promise.all([stop(replica.child), ...workers.map(stop)]);
  redis.disconnect();

  const plural = (n: number, word: string) => `${n} ${word}${n > 1 ? 's' : ''}`;
  for (const workload of workloads) {
    const [one, two] = single.get(workload)!;
    const [w1, w2] = cluster.get(workload)!;
    console.log(`\n${workload.name}: ${workload.count} distinct uncached solves, ${CONNECTIONS} connections\n`);
    console.log('| server | solves/s | p50 | p99 | vs the first row of its kind |');
    console.log('|---|---|---|---|---|');
    console.log(row(`single process, serve --workers ${THREADS}`, one!, one));
    console.log(row(`single process, serve --workers ${THREADS * 2}`, two!, one));
    console.log(row(`serve --redis, 1 worker x ${plural(THREADS, 'thread')}`, w1!, w1));
    console.log(row(`serve --redis, 2 workers x ${plural(THREADS, 'thread')}`, w2!, w1));
    console.log(
      `two workers / one worker: ${(w2!.solvesPerSecond / w1!.solvesPerSecond).toFixed(2)}x; two workers / single process with ${THREADS * 2} threads: ${(w2!.solvesPerSecond / two!.solvesPerSecond).toFixed(2)}`,
    );
  }
}

try {
  await main();
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  await agent.close();
}
