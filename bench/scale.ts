/**
 * Issue 13 "done when" benchmark: the whole CLI process (`node dist/src/cli/bin.cjs`, as a user runs
 * it) on a conda-forge-scale channel, from every kind of channel, cold and warm, against rattler's
 * `simpleSolve` (bench/rattler-cli.mjs, resolvo in WebAssembly) in the same run.
 *
 *   npx tsx bench/scale.ts [--rounds 3] [--only file-warm,file-cold,http-json,http-zst,http-gzip,http-warm,sharded]
 *       [--channel DIR] [--keep]
 *
 * Request: `python=3.9 numpy pandas -p linux-64`. Each figure is the median of `--rounds` whole
 * processes; peak RSS is `/usr/bin/time -f %M` of that process (none when /usr/bin/time is
 * missing). dist/ must be built (`npx tsc -p tsconfig.build.json`; `npm run bench` builds first).
 *
 * The channel: without `--channel`, `bench/generate-channel.ts` with its default linux-64 shape
 * (465,000 records over 25,000 names, ~274 MB) and `--noarch-records 627000 --noarch-names 20000`
 * (~362 MB), written once into `bench/out/scale/channel` and reused while its marker
 * (`.generated.json`, the options) matches. `--channel DIR` uses an existing channel folder (read
 * only; e.g. /tmp/scale/cf made with the same options). Derived forms go once into
 * `bench/out/scale/derived-<hash of the channel path>/` (rebuilt when a source file's size or mtime
 * changes), one folder per served form, each a channel of its own:
 * - `json/`: `repodata.json` only (symlinks), so the plain-JSON rows fetch plain JSON (our client
 *   probes `repodata_shards.msgpack.zst`, then `repodata.json.zst`, then `repodata.json`);
 * - `zst/`: `repodata.json.zst` written by the `zstd` command (level 3) beside `repodata.json`, as a
 *   real channel serves both (the row is skipped, saying why, when `zstd` is missing);
 * - `sharded/`: the CEP 16 layout written by `test/tools/shard-channel.ts`, beside `repodata.json`;
 * - `gzip/`: `repodata.json.gz` written by the `gzip` command (level 6) beside `repodata.json`; a
 *   request for `repodata.json` that accepts gzip gets it with `Content-Encoding: gzip`, as nginx's
 *   `gzip_static` and CDNs answer (the row is skipped, saying why, when `gzip` is missing).
 * The server is `python3 -m http.server`'s handler (ThreadingHTTPServer, HTTP/1.1 keep-alive) in a
 * child process on 127.0.0.1, adding `Cache-Control: public, max-age=3600` (as conda-forge's CDN
 * sends a max-age) so a warm cache needs no request. Its request log says which files each side
 * fetched (printed per row).
 *
 * Rows (targets from the issue; "empty cache" = a fresh `CONDA_RESOLVE_CACHE_DIR` per process):
 * - `file-warm`: `-c file://DIR`, second and later runs (one untimed run first): < 0.3 s, 150 MB.
 * - `file-cold`: `-c file://DIR`, empty cache (the files are in the page cache): < 3 s, 400 MB.
 * - `http-json`: HTTP, `repodata.json`, empty cache: < 3 s, 400 MB, < 0.3x rattler.
 * - `http-zst`: HTTP, `repodata.json.zst`, empty cache: < 3 s, 400 MB, < 0.3x rattler.
 * - `http-gzip`: HTTP, `repodata.json` sent with `Content-Encoding: gzip`, empty cache; not a row of
 *   the issue, held to the plain-JSON row's targets.
 * - `http-warm`: HTTP (`json/`), warm cache (one untimed run first): < 0.3 s, 150 MB. rattler has
 *   no persistent cache in WebAssembly, so its warm run is its cold one: the row shows its
 *   `http-json` figure.
 * - `sharded`: HTTP, CEP 16 shards, empty cache: < 1 s.
 * rattler runs the same request over HTTP on the rows' folders (it cannot read file:// channels in
 * WebAssembly), interleaved with ours round by round. Both sides' python/numpy/pandas versions
 * are printed and must agree. `node -e 0` is printed as the floor. Each round of the two cold HTTP
 * rows also runs bench/receive-floor.mjs (the documents received and decoded with our HTTP client
 * and zstd decoder, then thrown away), printed in a second table: the part of the row no index,
 * cache or solve can remove. A failing process prints its
 * stderr and its row says FAILED; the bench goes on.
 *
 * `--keep` keeps the temporary cache folders (printed) instead of deleting them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './measure.js';
import { startPythonServer, type PythonServer } from './python-server.js';
import { zstdBuild } from '../repodata/zstd.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const OUT = join(HERE, 'out', 'scale');
const CLI = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const PEER = join(HERE, 'rattler-cli.mjs');
const FLOOR = join(HERE, 'receive-floor.mjs');
const PLATFORM = 'linux-64';
const SUBDIRS = [PLATFORM, 'noarch'];
const SPECS = ['python=3.9', 'numpy', 'pandas'];
const WATCHED = ['python', 'numpy', 'pandas'];
/** The generator's options for the issue's channel size (linux-64 keeps the generator's defaults). */
const GENERATE_ARGS = ['--noarch-records', '627000', '--noarch-names', '20000'];
const CHILD_TIMEOUT_MS = 15 * 60 * 1000;

const ROWS = ['file-warm', 'file-cold', 'http-json', 'http-zst', 'http-gzip', 'http-warm', 'sharded'] as const;
type RowId = (typeof ROWS)[number];
interface RowSpec {
  readonly label: string;
  readonly target: string;
  readonly maxS: number;
  readonly maxMb?: number;
  readonly maxRatio?: number;
}
const ROW_SPECS: Record<RowId, RowSpec> = {
  'file-warm': { label: 'file://, second and later runs', target: '< 0.3 s, < 150 MB', maxS: 0.3, maxMb: 150 },
  'file-cold': { label: 'file://, first run (empty cache)', target: '< 3 s, < 400 MB', maxS: 3, maxMb: 400 },
  'http-json': { label: 'HTTP repodata.json, empty cache', target: '< 3 s, < 400 MB, < 0.3x rattler', maxS: 3, maxMb: 400, maxRatio: 0.3 },
  'http-zst': {
    label: 'HTTP repodata.json.zst, empty cache',
    target: '< 3 s, < 400 MB, < 0.3x rattler',
    maxS: 3,
    maxMb: 400,
    maxRatio: 0.3,
  },
  // Not a row of the issue: plain JSON as many servers send it (nginx's gzip_static, CDNs), held to the plain row's targets.
  'http-gzip': {
    label: 'HTTP repodata.json, Content-Encoding gzip, empty cache',
    target: '< 3 s, < 400 MB, < 0.3x rattler',
    maxS: 3,
    maxMb: 400,
    maxRatio: 0.3,
  },
  'http-warm': { label: 'HTTP, warm cache', target: '< 0.3 s, < 150 MB', maxS: 0.3, maxMb: 150 },
  sharded: { label: 'sharded over HTTP (CEP 16), empty cache', target: '< 1 s', maxS: 1 },
};

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    channel: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got "${values.rounds}"`);
const only = new Set<RowId>();
for (const id of values.only?.split(',').filter(Boolean) ?? ROWS) {
  if (!(ROWS as readonly string[]).includes(id)) throw new Error(`--only: unknown row "${id}" (rows: ${ROWS.join(', ')})`);
  only.add(id as RowId);
}
if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm run bench does)');
const haveTime = existsSync('/usr/bin/time');
const haveZstd = spawnSync('zstd', ['--version']).status === 0;
const haveGzip = spawnSync('gzip', ['--version']).status === 0;

// --- children ------------------------------------------------------------------------------------

interface Run {
  readonly ok: boolean;
  readonly s: number;
  readonly rssMb: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One whole process under /usr/bin/time; never throws (a failure comes back as `ok: false`). */
async function runProcess(argv: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const command = haveTime ? '/usr/bin/time' : process.execPath;
  // The RSS goes to a file so the child's own stderr stays readable.
  const rssFile = join(scratch(), `rss-${process.hrtime.bigint()}`);
  const args = haveTime ? ['-f', '%M', '-o', rssFile, process.execPath, ...argv] : [...argv];
  const started = process.hrtime.bigint();
  const result = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const proc = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    proc.on('error', (error) => {
      clearTimeout(timer);
      done({ status: -1, stdout, stderr: `${stderr}${String(error)}` });
    });
    proc.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  let rssMb: number | null = null;
  if (haveTime && existsSync(rssFile)) {
    const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
    rssMb = Number.isFinite(kb) ? kb / 1024 : null;
    rmSync(rssFile, { force: true });
  }
  return { ok: result.status === 0, s, rssMb, stdout: result.stdout, stderr: result.stderr };
}

let scratchDir: string | undefined;
function scratch(): string {
  scratchDir ??= mkdtempSync(join(tmpdir(), 'cr-bench-scale-'));
  return scratchDir;
}

function freshCache(): string {
  return mkdtempSync(join(scratch(), 'cache-'));
}

/** Solved versions of the watched names, or the reason there are none. */
function versions(stdout: string): { versions: string } | { error: string } {
  try {
    const results = JSON.parse(stdout) as { packages: { name: string; version: string; build?: string }[]; error?: string | null }[];
    const first = results[0];
    if (!first) return { error: 'no result' };
    if (first.error) return { error: first.error };
    const picked = WATCHED.map((name) => {
      const record = first.packages.find((p) => p.name === name);
      return `${name} ${record?.version ?? '-'}`;
    });
    return { versions: picked.join(', ') };
  } catch (error) {
    return { error: `unreadable output: ${String(error).slice(0, 200)}` };
  }
}

interface Sample {
  s: number;
  rssMb: number | null;
}
interface Side {
  samples: Sample[];
  failures: string[];
  versions: Set<string>;
  requests: string | undefined;
}
const newSide = (): Side => ({ samples: [], failures: [], versions: new Set(), requests: undefined });

function record(side: Side, what: string, run: Run): void {
  const answer = run.ok ? versions(run.stdout) : { error: 'the process exited with an error' };
  if (!run.ok || 'error' in answer) {
    const reason = 'error' in answer ? answer.error : '';
    side.failures.push(reason);
    console.error(`--- ${what} FAILED (${reason})\n${run.stderr.trim().slice(-4000)}\n---`);
    return;
  }
  side.samples.push({ s: run.s, rssMb: run.rssMb });
  side.versions.add(answer.versions);
}

// --- the channel and its served forms -------------------------------------------------------------

function runTool(argv: string[], what: string): void {
  console.error(`${what} ...`);
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--max-old-space-size=8192', '--import', 'tsx', ...argv], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status})`);
  console.error(`${what}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function ensureChannel(): string {
  if (values.channel) {
    const dir = resolve(values.channel);
    for (const subdir of SUBDIRS) {
      if (!existsSync(join(dir, subdir, 'repodata.json'))) throw new Error(`--channel ${dir}: ${subdir}/repodata.json is missing`);
    }
    return dir;
  }
  const dir = join(OUT, 'channel');
  const marker = join(dir, '.generated.json');
  const wanted = JSON.stringify({ generator: 'bench/generate-channel.ts', args: GENERATE_ARGS });
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return dir;
  rmSync(dir, { recursive: true, force: true });
  runTool([join(HERE, 'generate-channel.ts'), '--out', dir, ...GENERATE_ARGS], `generating the channel into ${dir}`);
  writeFileSync(marker, wanted);
  return dir;
}

interface Served {
  readonly root: string;
  /** Folders under `root` that are served; `zst` is missing when zstd is. */
  readonly forms: { json: string; zst?: string; gzip?: string; sharded: string };
}

/** The derived forms of `channel`, built once per channel path and source file stamp. */
function ensureServedForms(channel: string): Served {
  const key = createHash('sha1').update(realpathSync(channel)).digest('hex').slice(0, 10);
  const root = join(OUT, `derived-${key}`);
  const stamp = JSON.stringify({
    source: realpathSync(channel),
    files: SUBDIRS.map((subdir) => {
      const info = statSync(join(channel, subdir, 'repodata.json'));
      return [subdir, info.size, info.mtimeMs];
    }),
  });
  const link = (form: string) => {
    for (const subdir of SUBDIRS) {
      const target = join(root, form, subdir, 'repodata.json');
      mkdirSync(dirname(target), { recursive: true });
      if (!existsSync(target)) symlinkSync(join(realpathSync(channel), subdir, 'repodata.json'), target);
    }
  };
  const steps: { name: string; marker: string; build: () => void }[] = [
    { name: 'json', marker: join(root, 'json', '.done.json'), build: () => link('json') },
    {
      name: 'sharded',
      marker: join(root, 'sharded', '.done.json'),
      build: () => {
        runTool(
          [
            join(ROOT, 'test', 'tools', 'shard-channel.ts'),
            '--source',
            channel,
            '--out',
            join(root, 'sharded'),
            ...SUBDIRS.flatMap((s) => ['--subdir', s]),
          ],
          `writing the sharded layout into ${join(root, 'sharded')}`,
        );
        link('sharded');
      },
    },
  ];
  /** A folder serving `repodata.json.EXT` (written by `command flags -c`) beside `repodata.json`. */
  const compressed = (name: string, extension: string, command: string, flags: string[]) => ({
    name,
    marker: join(root, name, '.done.json'),
    build: () => {
      link(name);
      for (const subdir of SUBDIRS) {
        console.error(`${command} ${flags.join(' ')} ${subdir}/repodata.json ...`);
        const fd = openSync(join(root, name, subdir, `repodata.json.${extension}`), 'w');
        const result = spawnSync(command, [...flags, '-c', join(channel, subdir, 'repodata.json')], { stdio: ['ignore', fd, 'inherit'] });
        closeSync(fd);
        if (result.status !== 0) throw new Error(`${command} failed for ${subdir} (exit ${result.status})`);
      }
    },
  });
  if (haveZstd) steps.push(compressed('zst', 'zst', 'zstd', ['-q', '-3', '-T0']));
  if (haveGzip) steps.push(compressed('gzip', 'gz', 'gzip', ['-6']));
  const wanted = new Set([
    'json',
    ...(only.has('sharded') ? ['sharded'] : []),
    ...(only.has('http-zst') ? ['zst'] : []),
    ...(only.has('http-gzip') ? ['gzip'] : []),
  ]);
  for (const step of steps) {
    if (!wanted.has(step.name)) continue;
    if (existsSync(step.marker) && readFileSync(step.marker, 'utf8') === stamp) continue;
    rmSync(dirname(step.marker), { recursive: true, force: true });
    step.build();
    writeFileSync(step.marker, stamp);
  }
  return { root, forms: { json: 'json', zst: haveZstd ? 'zst' : undefined, gzip: haveGzip ? 'gzip' : undefined, sharded: 'sharded' } };
}

/** What a run asked the server for, grouped: `repodata.json.zst 200 x2, shards 200 x57`. */
function summariseRequests(lines: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const match = /"(\w+) (\S+) [^"]*" (\d{3})/.exec(line);
    if (!match) continue;
    const path = match[2]!;
    const file = path.includes('/shards/') ? 'shards' : path.split('/').pop()!;
    const key = `${match[1] === 'GET' ? '' : `${match[1]} `}${file} ${match[3]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key} x${n}`).join(', ') || 'no requests';
}

/** Runs `fn` and returns the server requests it caused (the log lags the response by a moment). */
async function withRequests(server: PythonServer, fn: () => Promise<Run>): Promise<{ run: Run; requests: string }> {
  const before = server.log.length;
  const run = await fn();
  await new Promise((done) => setTimeout(done, 100));
  return { run, requests: summariseRequests(server.log.slice(before)) };
}

// --- the bench -----------------------------------------------------------------------------------

const ours = (channel: string, cacheDir: string) =>
  runProcess([CLI, ...SPECS, '-c', channel, '-p', PLATFORM, '-q'], { CONDA_RESOLVE_CACHE_DIR: cacheDir });
const theirs = (channel: string) => runProcess([PEER, channel, PLATFORM, ...SPECS]);
/** The receive floor of a cold HTTP row (bench/receive-floor.mjs): the documents fetched (and decoded), nothing else. */
const receiveOnly = (channel: string, form: 'json' | 'zst') => runProcess([FLOOR, channel, form, ...SUBDIRS]);

interface FloorSide {
  s: number[];
  cpuS: number[];
  failures: number;
}
const floors = new Map<RowId, FloorSide>();
function recordFloor(id: RowId, run: Run): void {
  const side = floors.get(id) ?? { s: [], cpuS: [], failures: 0 };
  floors.set(id, side);
  try {
    const out = JSON.parse(run.stdout) as { bytes: number; cpuS: number };
    if (!run.ok || !(out.bytes > 0)) throw new Error('no bytes');
    side.s.push(run.s);
    side.cpuS.push(out.cpuS);
  } catch {
    side.failures += 1;
    console.error(`--- ${id} receive floor FAILED\n${run.stderr.trim().slice(-2000)}\n---`);
  }
}

const benchStarted = Date.now();
const loadBefore = loadavg()[0]!;
const channel = ensureChannel();
const served = ensureServedForms(channel);
const server = await startPythonServer(served.root);
const channelBytes = SUBDIRS.map((subdir) => statSync(join(channel, subdir, 'repodata.json')).size);

const results = new Map<RowId, { ours: Side; rattler: Side | 'same-as-http-json' | 'none'; note?: string }>();

// The floor: Node starting and exiting.
const floor: number[] = [];
for (let i = 0; i < Math.max(rounds, 3); i++) floor.push((await runProcess(['-e', '0'])).s);

const fileUrl = pathToFileURL(channel).href;
if (only.has('file-cold')) {
  const side = newSide();
  for (let round = 0; round < rounds; round++) record(side, `file-cold round ${round + 1}`, await ours(fileUrl, freshCache()));
  results.set('file-cold', { ours: side, rattler: 'none', note: 'rattler reads channels over HTTP only in WebAssembly' });
}
if (only.has('file-warm')) {
  const side = newSide();
  const cache = freshCache();
  record(newSide(), 'file-warm untimed first run', await ours(fileUrl, cache));
  for (let round = 0; round < rounds; round++) record(side, `file-warm round ${round + 1}`, await ours(fileUrl, cache));
  results.set('file-warm', { ours: side, rattler: 'none', note: 'rattler reads channels over HTTP only in WebAssembly' });
}

/** An HTTP row with an empty cache per run, interleaved with rattler round by round. */
async function coldHttpRow(id: RowId, form: string, floorForm?: 'json' | 'zst'): Promise<void> {
  const url = `${server.url}/${form}`;
  const mine = newSide();
  const peer = newSide();
  for (let round = 0; round < rounds; round++) {
    const a = await withRequests(server, () => ours(url, freshCache()));
    record(mine, `${id} ours round ${round + 1}`, a.run);
    mine.requests ??= a.requests;
    const b = await withRequests(server, () => theirs(url));
    record(peer, `${id} rattler round ${round + 1}`, b.run);
    peer.requests ??= b.requests;
    if (floorForm !== undefined) recordFloor(id, await receiveOnly(url, floorForm));
  }
  results.set(id, { ours: mine, rattler: peer });
}

if (only.has('http-json')) await coldHttpRow('http-json', served.forms.json, 'json');
if (only.has('http-zst')) {
  if (served.forms.zst) await coldHttpRow('http-zst', served.forms.zst, 'zst');
  else results.set('http-zst', { ours: newSide(), rattler: 'none', note: 'skipped: the zstd command is missing' });
}
if (only.has('http-gzip')) {
  if (served.forms.gzip) await coldHttpRow('http-gzip', served.forms.gzip);
  else results.set('http-gzip', { ours: newSide(), rattler: 'none', note: 'skipped: the gzip command is missing' });
}
if (only.has('http-warm')) {
  const url = `${server.url}/${served.forms.json}`;
  const side = newSide();
  const cache = freshCache();
  record(newSide(), 'http-warm untimed first run', await ours(url, cache));
  for (let round = 0; round < rounds; round++) {
    const a = await withRequests(server, () => ours(url, cache));
    record(side, `http-warm round ${round + 1}`, a.run);
    side.requests ??= a.requests;
  }
  results.set('http-warm', {
    ours: side,
    rattler: 'same-as-http-json',
    note: 'rattler has no persistent cache in WebAssembly: its warm run is its cold one (http-json)',
  });
}
if (only.has('sharded')) await coldHttpRow('sharded', served.forms.sharded);
server.close();

// --- the table -----------------------------------------------------------------------------------

const fmtS = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
const fmtMb = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(0));
function summary(side: Side): { s?: number; mb?: number; failed: boolean } {
  if (side.samples.length === 0) return { failed: side.failures.length > 0 };
  const rss = side.samples.map((x) => x.rssMb).filter((x): x is number => x !== null);
  return { s: median(side.samples.map((x) => x.s)), mb: rss.length > 0 ? median(rss) : undefined, failed: side.failures.length > 0 };
}

console.log(
  `\nconda-resolve scale benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${rounds} rounds, median of whole processes, peak RSS by /usr/bin/time)`,
);
console.log(
  `channel: ${channel} (${SUBDIRS.map((s, i) => `${s} ${(channelBytes[i]! / 1e6).toFixed(0)} MB`).join(', ')}); request: ${SPECS.join(' ')} -p ${PLATFORM}`,
);
console.log(`served by python3 http.server (ThreadingHTTPServer, max-age=3600) at ${server.url} from ${served.root}`);
// The .zst rows depend on it: the optional native addon decodes ~4x as fast as the WebAssembly build.
console.log(
  `zstd decoder of our CLI: ${(await zstdBuild()) === 'native' ? 'native libzstd (zstd-napi)' : 'WebAssembly (zstd-codec; zstd-napi is not installed or CONDA_RESOLVE_ZSTD=wasm)'}`,
);
console.log(
  `node -e 0 (floor): ${fmtS(median(floor))} s; load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end\n`,
);
console.log('| row | ours median s | ours peak RSS MB | rattler median s | rattler RSS MB | ratio ours/rattler | target | met? |');
console.log('|---|---|---|---|---|---|---|---|');
const notes: string[] = [];
for (const id of ROWS) {
  const result = results.get(id);
  if (!result) continue;
  const spec = ROW_SPECS[id];
  const a = summary(result.ours);
  const peerSide = result.rattler === 'same-as-http-json' ? results.get('http-json')?.rattler : result.rattler;
  const b = typeof peerSide === 'object' ? summary(peerSide) : undefined;
  const ratio = a.s !== undefined && b?.s !== undefined ? a.s / b.s : undefined;
  let met: string;
  if (a.failed || a.s === undefined) met = result.note?.startsWith('skipped') ? 'skipped' : 'FAILED';
  else {
    const misses: string[] = [];
    if (a.s >= spec.maxS) misses.push('time');
    if (spec.maxMb !== undefined && (a.mb === undefined || a.mb >= spec.maxMb)) misses.push('RSS');
    if (spec.maxRatio !== undefined && (ratio === undefined || ratio >= spec.maxRatio)) misses.push('ratio');
    met = misses.length === 0 ? 'yes' : `no (${misses.join(', ')})`;
  }
  const peerCell = (x: string) => {
    if (result.rattler === 'none') return 'n/a';
    if (result.rattler !== 'same-as-http-json') return x;
    return b === undefined ? 'n/a (http-json not run)' : `${x} (= cold)`;
  };
  const peerS = b?.failed && b.s === undefined ? 'FAILED' : peerCell(fmtS(b?.s));
  console.log(
    `| ${spec.label} | ${fmtS(a.s)} | ${fmtMb(a.mb)} | ${peerS} | ${peerCell(fmtMb(b?.mb))} | ${ratio === undefined ? '-' : ratio.toFixed(2)} | ${spec.target} | ${met} |`,
  );
  const peerVersions = typeof peerSide === 'object' ? [...peerSide.versions].join(' / ') : '';
  const oursVersions = [...result.ours.versions].join(' / ');
  const agree = result.rattler === 'none' || peerVersions === '' || oursVersions === peerVersions ? '' : ' DIFFERENT';
  const spread = (side: Side) => (side.samples.length > 1 ? ` (runs ${side.samples.map((x) => x.s.toFixed(2)).join(', ')} s)` : '');
  notes.push(
    `- ${id}: ours ${oursVersions || '-'}${spread(result.ours)}${result.ours.requests ? ` [requests: ${result.ours.requests}]` : ''}` +
      (typeof result.rattler === 'object'
        ? `; rattler ${peerVersions || '-'}${spread(result.rattler)}${result.rattler.requests ? ` [requests: ${result.rattler.requests}]` : ''}${agree}`
        : '') +
      (result.ours.failures.length > 0 ? `; ours failed ${result.ours.failures.length}x` : '') +
      (typeof peerSide === 'object' && peerSide.failures.length > 0 && result.rattler !== 'same-as-http-json'
        ? `; rattler failed ${peerSide.failures.length}x`
        : '') +
      (result.note ? ` (${result.note})` : ''),
  );
}
if (floors.size > 0) {
  // How much of a cold HTTP row is only receiving (and decoding) the bytes, measured in the same rounds.
  console.log(
    '\nreceive floor (bench/receive-floor.mjs: the same HTTP client and zstd decoder fetch both documents at once and throw the bytes away; no probes, scan, cache file, hash or solve), median of the same rounds:\n',
  );
  console.log('| row | floor s | floor CPU s (user+sys) | ours s | rattler s | 0.3x rattler s | floor/rattler |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [id, side] of floors) {
    const result = results.get(id);
    const a = result ? summary(result.ours) : undefined;
    const b = result && typeof result.rattler === 'object' ? summary(result.rattler) : undefined;
    const floorS = side.s.length > 0 ? median(side.s) : undefined;
    const cpu = side.cpuS.length > 0 ? median(side.cpuS) : undefined;
    const ratio = floorS !== undefined && b?.s !== undefined ? (floorS / b.s).toFixed(2) : '-';
    const failed = side.failures > 0 ? ` (failed ${side.failures}x)` : '';
    console.log(
      `| ${ROW_SPECS[id].label} | ${fmtS(floorS)}${failed} | ${fmtS(cpu)} | ${fmtS(a?.s)} | ${fmtS(b?.s)} | ${fmtS(b?.s === undefined ? undefined : 0.3 * b.s)} | ${ratio} |`,
    );
  }
}
console.log(`\nsolved (python, numpy, pandas) and what each side fetched in its first timed run:\n${notes.join('\n')}`);
console.log(`\nwhole bench: ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);

if (values.keep) console.log(`kept: ${scratch()}`);
else if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
