/**
 * The server's CPU per cached `/resolve`, this build against another (a checkout of an earlier
 * commit), in one run: both servers run side by side and take turns, batch by batch, so the
 * machine's drift hits both alike. Throughput on a noisy 2-core machine varies by a third between
 * runs of one build; the CPU a server spends per answer (read from /proc, Linux only, with its
 * worker threads) is what a change to the request path moves.
 *
 *   npx tsx bench/http-cpu.ts --baseline OTHER_CHECKOUT [--batches 30] [--batch 1000]
 *
 * Load: `GET /resolve?spec=python=3.9&platform=linux-64` against conda-forge-py39 (a file://
 * channel, pre-warmed, so every answer after the first comes from the solve cache), 50 connections
 * (autocannon). Figures: each side's median CPU per request and requests/s (a batch's requests over
 * its wall time), and the medians of the per-pair ratios (this build / baseline). Both checkouts must be built (`npm run build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { CHANNELS_DIR, PROJECT_ROOT } from '../test/helpers/shared.js';
import { median } from './measure.js';
import { listeningUrl } from './serve-url.js';

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, batches: { type: 'string', default: '30' }, batch: { type: 'string', default: '1000' } },
});
if (!values.baseline) throw new Error('bench/http-cpu.ts needs --baseline OTHER_CHECKOUT (a built checkout of an earlier commit)');
const CHANNEL = pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href;
const PATH = '/resolve?spec=python%3D3.9&platform=linux-64';
const BATCH = Number(values.batch);

interface Side {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  readonly cpu: number[];
  readonly rps: number[];
}

async function start(name: string, root: string): Promise<Side> {
  const bin = join(root, 'dist', 'src', 'cli', 'bin.cjs');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build in ${root}`);
  const args = ['serve', '--port', '0', '--allow-local-channels', '--default-channel', CHANNEL, '--prewarm', `${CHANNEL}/linux-64`];
  const child = spawn(process.execPath, [bin, ...args, '--rate-limit', '0', '--cache-dir', join(root, 'bench', 'out', 'http-cpu-cache')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' },
  });
  const url = await listeningUrl(child);
  return { name, child, url, cpu: [], rps: [] };
}

/** User + system CPU of a process and its threads so far, in microseconds (/proc/PID/stat, clock ticks of 10 ms). */
function cpuOf(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function batch(side: Side): Promise<{ cpu: number; rps: number }> {
  const before = cpuOf(side.child);
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ url: side.url + PATH, connections: 50, amount: BATCH, sampleInt: 50 }, (error, done) =>
      error ? reject(error) : resolve(done),
    ),
  );
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${side.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const seconds = (performance.now() - started) / 1000;
  return { cpu: (cpuOf(side.child) - before) / BATCH, rps: BATCH / seconds };
}

const sides = [await start('this build', PROJECT_ROOT), await start('baseline', values.baseline)];
try {
  for (const side of sides) await batch(side); // warm-up: JIT, pools, the solve cache
  for (let i = 0; i < Number(values.batches); i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const { cpu, rps } = await batch(side);
      side.cpu.push(cpu);
      side.rps.push(rps);
    }
  }
  const [ours, base] = sides as [Side, Side];
  for (const side of sides)
    console.log(
      `${side.name.padEnd(10)} server CPU per request: median ${median(side.cpu).toFixed(0)} us; requests/s: median ${median(side.rps).toFixed(0)}`,
    );
  const throughput = ours.rps.map((r, i) => r / base.rps[i]!);
  console.log(`this build / baseline, requests/s: median of ${throughput.length} pairs ${median(throughput).toFixed(3)}`);
  const ratios = ours.cpu.map((c, i) => c / base.cpu[i]!);
  console.log(
    `this build / baseline, CPU per request: median of ${ratios.length} pairs ${median(ratios).toFixed(3)} (${ratios.filter((r) => r > 1).length} pairs above 1)`,
  );
} finally {
  for (const side of sides) side.child.kill('SIGTERM');
}
