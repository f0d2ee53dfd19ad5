/**
 * Is there room on this machine to make a cold HTTP row of bench/scale.ts faster by splitting its
 * work over threads? A diagnostic for issue 13, not a row of its own. It measures:
 *
 * 1. The machine: a 256 MB memory copy and a compute loop, each in one process and then in two
 *    processes at once (does the second core add throughput for copies, as it does for compute?).
 * 2. The cold `repodata.json` row as the CLI runs it (both documents in one process, empty cache),
 *    with the CPU of its main thread (the one that receives and scans) and of the whole process.
 * 3. The same work split in two: two CLI processes at once, each fetching and indexing one of the
 *    two documents (the other subdir answers 404), timed as a pair. This is the best any split of
 *    the work over two threads could do, less one process start.
 *
 *   npx tsx bench/headroom.ts [--rounds 3] [--env NAME=VALUE]...
 *
 * Needs the scale channel's served forms (run `npx tsx bench/scale.ts --only http-json` once) and
 * a built dist/. `--env` sets a variable for every CLI process (a debug switch, say). The server is
 * the scale bench's (bench/python-server.ts); rounds are interleaved.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './measure.js';
import { startPythonServer } from './python-server.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const PRELOAD = pathToFileURL(join(HERE, 'thread-cpu.mjs')).href;
const SCALE = join(HERE, 'out', 'scale');
const SPECS = ['python=3.9', 'numpy', 'pandas'];

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, env: { type: 'string', multiple: true, default: [] } },
});
const rounds = Number(values.rounds);
const extraEnv = Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const derived = existsSync(SCALE)
  ? readdirSync(SCALE).find((name) => name.startsWith('derived-') && existsSync(join(SCALE, name, 'json', '.done.json')))
  : undefined;
if (!derived || !existsSync(CLI))
  throw new Error('run `npx tsx bench/scale.ts --only http-json` first (it builds the channel and its served forms; dist/ must be built)');
const root = join(SCALE, derived);
// One folder per document: the other subdir is missing, so the CLI fetches and indexes just one.
for (const subdir of ['linux-64', 'noarch']) {
  const target = join(root, `only-${subdir}`, subdir, 'repodata.json');
  mkdirSync(dirname(target), { recursive: true });
  if (!existsSync(target)) symlinkSync(join(root, 'json', subdir, 'repodata.json'), target);
}

const scratch = mkdtempSync(join(tmpdir(), 'cr-headroom-'));
const fmt = (x: number) => x.toFixed(2);

/** One whole process; resolves to its wall seconds (and exit status). */
function timed(argv: string[], env: Record<string, string> = {}): Promise<{ s: number; status: number | null; stderr: string }> {
  const started = process.hrtime.bigint();
  return new Promise((done) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (status) => done({ s: Number(process.hrtime.bigint() - started) / 1e9, status, stderr }));
  });
}

// --- 1. the machine ------------------------------------------------------------------------------
const COPY = `const a=Buffer.alloc(256<<20,1),b=Buffer.alloc(256<<20);const t=process.hrtime.bigint();for(let i=0;i<8;i++)a.copy(b);process.stdout.write(String(2/(Number(process.hrtime.bigint()-t)/1e9)))`;
const SPIN = `let x=0;const t=process.hrtime.bigint();for(let i=0;i<3e8;i++)x=(x*31+i)|0;process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e9+(x&0)))`;
const once = (code: string) => Number(spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout);
const twice = (code: string) =>
  Promise.all(
    [0, 1].map(
      () =>
        new Promise<number>((done) => {
          const child = spawn(process.execPath, ['-e', code]);
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d));
          child.on('close', () => done(Number(out)));
        }),
    ),
  );
const copyOne = once(COPY);
const copyTwo = await twice(COPY);
const spinOne = once(SPIN);
const spinTwo = await twice(SPIN);
console.log(
  `machine: memory copy ${fmt(copyOne)} GB/s in one process, ${copyTwo.map(fmt).join(' + ')} GB/s in two at once; a compute loop ${fmt(spinOne)} s alone, ${spinTwo.map(fmt).join(' / ')} s each in two at once`,
);

// --- 2 and 3. the row whole, and split in two ----------------------------------------------------
const server = await startPythonServer(root);

function cli(form: string, cpuOut?: string) {
  const env: Record<string, string> = {
    ...extraEnv,
    CONDA_RESOLVE_CACHE_DIR: mkdtempSync(join(scratch, 'cache-')),
    ...(cpuOut ? { CR_BENCH_CPU_OUT: cpuOut } : {}),
  };
  return timed(['--import', PRELOAD, CLI, 'resolve', '-c', `${server.url}/${form}`, '-p', 'linux-64', '-q', ...SPECS], env);
}

const whole: number[] = [];
const pair: number[] = [];
const mainCpu: number[] = [];
const mainKernel: number[] = [];
const processCpu: number[] = [];
try {
  for (let round = 0; round < rounds; round++) {
    const cpuOut = join(scratch, `cpu-${round}.json`);
    const one = await cli('json', cpuOut);
    if (one.status !== 0) throw new Error(`the CLI failed:\n${one.stderr}`);
    whole.push(one.s);
    if (existsSync(cpuOut)) {
      const cpu = JSON.parse(readFileSync(cpuOut, 'utf8')) as Record<'main' | 'process', { user: number; system: number }>;
      mainCpu.push(cpu.main.user + cpu.main.system);
      mainKernel.push(cpu.main.system);
      processCpu.push(cpu.process.user + cpu.process.system);
    }
    const started = process.hrtime.bigint();
    // The one-document runs solve nothing (python is in neither half alone): only their time counts.
    await Promise.all([cli('only-linux-64'), cli('only-noarch')]);
    pair.push(Number(process.hrtime.bigint() - started) / 1e9);
    console.log(`round ${round + 1}: one process ${fmt(one.s)} s, two processes at once ${fmt(pair.at(-1)!)} s`);
  }
} finally {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(
  `\n| cold HTTP repodata.json, empty cache (${rounds} rounds, medians${values.env.length ? `, ${values.env.join(' ')}` : ''}) | s |`,
);
console.log('|---|---|');
console.log(`| one process, both documents | ${fmt(median(whole))} |`);
console.log(`| two processes at once, one document each | ${fmt(median(pair))} |`);
if (mainCpu.length > 0) {
  console.log(
    `| CPU of the one process: main thread (of it in the kernel) / all threads | ${fmt(median(mainCpu))} (${fmt(median(mainKernel))}) / ${fmt(median(processCpu))} |`,
  );
}
