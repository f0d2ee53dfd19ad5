/**
 * Issue 11 benchmark: reliability counts rather than speed.
 *
 * Part A, cold runs against `python3 -m http.server` (HTTP/1.0, a connection closed after every
 * answer; before issue 11 about one cold run in three crashed in undici): `--cold` sequential cold
 * CLI runs, then 10 at once sharing one cache, each checked for a crash and for the same output.
 * The peer is rattler (`bench/rattler-cli.mjs`, which fetches afresh every time) on the same
 * server: its crashes and its median time against ours.
 *
 * Part B, the server under fire: this process runs `startServer` (so `monitorEventLoopDelay` sees
 * the server's own event loop) with a `bench/reliability-load.ts` child that serves the faulty
 * channels (test/helpers/fault-channels.ts), sends 1,000 concurrent mixed requests and a SIGTERM to
 * this process once 400 are answered. Printed: statuses by kind, requests answered and reset, the
 * slowest /health, peak RSS and the longest event-loop stall.
 *
 *   npx tsx bench/reliability.ts [--cold 40] [--requests 1000] [--skip-cold] [--kinds bomb,hang]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/http/config.js';
import { startServer } from '../src/http/server.js';
import { FAULT_CHANNELS } from '../test/helpers/fault-channels.js';
import { PROJECT_ROOT } from '../test/helpers/shared.js';
import { writeSyntheticChannel } from '../test/helpers/synthetic-channel.js';
import { median } from './measure.js';

const { values } = parseArgs({
  options: {
    cold: { type: 'string', default: '40' },
    requests: { type: 'string', default: '1000' },
    kinds: { type: 'string' },
    'skip-cold': { type: 'boolean' },
  },
});
const coldRuns = Number(values.cold);
const requests = Number(values.requests);
const work = mkdtempSync(join(tmpdir(), 'cr-bench-reliability-'));
const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const peer = join(PROJECT_ROOT, 'bench', 'rattler-cli.mjs');

interface Run {
  readonly ms: number;
  readonly code: number | null;
  readonly crashed: boolean;
  readonly stdout: string;
}

function run(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => {
      // A crash: an uncaught exception or assertion (a stack trace), or death by signal.
      const crashed = code === null || /AssertionError|\n\s+at |Uncaught|FATAL/.test(stderr);
      resolve({ ms: performance.now() - started, code, crashed, stdout });
    });
  });
}

/** Names and versions of the solved packages: what must agree between runs and with the peer. */
function solvedSet(stdout: string): string {
  try {
    const platforms = JSON.parse(stdout) as { packages: { name: string; version: string }[] }[];
    return platforms
      .map((p) =>
        p.packages
          .map((r) => `${r.name}=${r.version}`)
          .sort()
          .join(' '),
      )
      .join(' | ');
  } catch {
    return '<not JSON>';
  }
}

async function partA(): Promise<void> {
  if (spawnSync('python3', ['--version']).status !== 0) {
    console.log('part A skipped: python3 is missing');
    return;
  }
  const channel = writeSyntheticChannel(join(work, 'channel', 'synthetic'), 2_500_000);
  const server = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', join(work, 'channel')], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const port = await new Promise<number>((resolve) => {
    let out = '';
    server.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
  });
  const url = `http://127.0.0.1:${port}/synthetic`;
  try {
    const ours: Run[] = [];
    for (let i = 0; i < coldRuns; i++)
      ours.push(await run([cli, '-c', url, '-p', 'linux-64', channel.spec, '-q', '--cache-dir', join(work, `cold-${i}`)]));
    const together = await Promise.all(
      Array.from({ length: 10 }, () =>
        run([cli, '-c', url, '-p', 'linux-64', channel.spec, '-q', '--cache-dir', join(work, 'shared-cache')]),
      ),
    );
    const theirs: Run[] = [];
    for (let i = 0; i < 10; i++) theirs.push(await run([peer, url, 'linux-64', channel.spec]));
    const answers = new Set([...ours, ...together].map((r) => solvedSet(r.stdout)));
    const peerAgrees = theirs.every((r) => solvedSet(r.stdout) === [...answers][0]);
    console.log(
      `python3 -m http.server, synthetic channel (linux-64 repodata.json ${(channel.linuxBytes / 1e6).toFixed(1)} MB), cold cache every run`,
    );
    console.log('| runs | crashed | non-zero exit | distinct answers | median ms |');
    console.log('|---|---|---|---|---|');
    const row = (name: string, list: Run[]) =>
      console.log(
        `| ${name}: ${list.length} | ${list.filter((r) => r.crashed).length} | ${list.filter((r) => r.code !== 0).length} | ${new Set(list.map((r) => solvedSet(r.stdout))).size} | ${median(list.map((r) => r.ms)).toFixed(0)} |`,
      );
    row('conda-resolve sequential', ours);
    row('conda-resolve 10 at once, one --cache-dir', together);
    row('rattler (peer) sequential', theirs);
    console.log(`distinct answers over all our runs: ${answers.size}; rattler gives the same packages: ${peerAgrees}`);
    console.log(`median cold run, ours / rattler: ${(median(ours.map((r) => r.ms)) / median(theirs.map((r) => r.ms))).toFixed(2)}`);
  } finally {
    server.kill('SIGKILL');
  }
}

async function partB(): Promise<void> {
  const load = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'reliability-load.ts'), String(requests), ...(values.kinds ? [values.kinds] : [])],
    {
      cwd: PROJECT_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: load.stdout });
  const next = (): Promise<string> => new Promise((resolve) => lines.once('line', resolve));
  const faultBase = await next();
  const channels = FAULT_CHANNELS.map((name) => `${faultBase}/${name}`);
  const config = loadConfig(
    {},
    {
      port: '0',
      'allow-channel': channels,
      'default-channel': [channels[0]!],
      'rate-limit': '0',
      timeout: '6',
      workers: '2',
      'max-queue': '1000',
      'cache-dir': join(work, 'server-cache'),
      'log-level': 'silent',
    },
  );
  const stall = monitorEventLoopDelay({ resolution: 10 });
  stall.enable();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  const server = await startServer(config, { env: {}, cwd: PROJECT_ROOT, handleSignals: true });
  load.stdin.end(`${server.url}\n`);
  const report = await next();
  await server.closed;
  stall.disable();
  clearInterval(sampler);
  const result = JSON.parse(report) as {
    tally: Record<string, number>;
    answered: number;
    reset: number;
    slowestHealthMs: number;
    sigtermAfterMs: number;
    totalMs: number;
    kinds: number;
  };
  console.log(
    `\n${requests} concurrent requests of ${result.kinds} kinds (valid, malformed, refused, hanging, trickling, zstd bomb, gzip bomb); SIGTERM after ${result.sigtermAfterMs.toFixed(0)} ms`,
  );
  console.log('| kind and status | requests |');
  console.log('|---|---|');
  for (const [key, n] of Object.entries(result.tally).sort()) console.log(`| ${key} | ${n} |`);
  console.log(
    `answered with a status: ${result.answered} of ${requests}; reset or refused: ${result.reset}; all answered in ${(result.totalMs / 1000).toFixed(1)} s`,
  );
  console.log(`slowest /health before SIGTERM: ${result.slowestHealthMs.toFixed(0)} ms`);
  console.log(`peak RSS of the server process: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);
  console.log(
    `longest event-loop stall (monitorEventLoopDelay max): ${(stall.max / 1e6).toFixed(0)} ms; p99 ${(stall.percentile(99) / 1e6).toFixed(0)} ms`,
  );
  await new Promise((resolve) => load.once('exit', resolve));
}

try {
  if (!values['skip-cold']) await partA();
  await partB();
} finally {
  rmSync(work, { recursive: true, force: true });
}
