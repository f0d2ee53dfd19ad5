/**
 * Issue 37 benchmark: reading and writing a large pixi.lock, the CLI as a whole process, against the
 * floor of parsing the same file with js-yaml alone (`node -e` loading js-yaml and calling `load`),
 * and against `node -e 0`, interleaved in one run.
 *
 *   npx tsx bench/locks.ts [--rounds 5] [--lock FILE ...]
 *
 * The locks: every `--lock FILE`; without one, every pixi.lock of 400 KB or more in
 * `$CONDA_RESOLVE_WILD_LOCKS` and `../shared/locks/wild/` (real locks, see
 * fixtures/locks/wild/SOURCES.md), plus one built here when ../shared is present: 5 environments x
 * 5 platforms, about 3,000 package entries, from real records of the shared conda-forge-py39 and
 * defaults-main-2022 snapshots (see `builtLock`), written by our own v7 writer (v6 without one).
 *
 * Rows per lock, median wall time and peak RSS over `--rounds` rounds:
 * - `js-yaml load`: the floor, a Node process that parses the file and nothing else;
 * - `read + write v7`: `-f pixi.lock --format rattler-lock-v7`, every environment, read and written
 *   again (the output is checked once to be byte-identical to the input);
 * - `read + explicit`: `-f pixi.lock -e ENV -p PLATFORM --format explicit` (read, one answer);
 * - `to conda-lock.yml`: `-f pixi.lock -e ENV --format conda-lock-v1` for the largest environment.
 * Each row prints its ratio to the js-yaml floor. The CLI runs from dist/ (`npm run build`). Then
 * the same work in this process, without start-up: js-yaml's `load`, our reader, our v7 writer.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';
import { BUILTIN_EXPORTERS } from '../src/exporters/index.js';
import type { ExportEnvironment } from '../src/exporters/types.js';
import { lockExportEnvironments, readLockFile } from '../src/locks/lock-file.js';
import { CHANNELS_DIR, PROJECT_ROOT, SHARED_DIR } from '../test/helpers/shared.js';
import { loadChannelRecords } from '../test/vocabulary/helpers.js';
import type { PackageRecord } from '../vocabulary/record.js';
import { median } from './measure.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, lock: { type: 'string', multiple: true } } });
const rounds = Number(values.rounds);
const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs');
if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
const haveTime = existsSync('/usr/bin/time');
const v7 = BUILTIN_EXPORTERS.find((exporter) => exporter.name === 'rattler-lock-v7');
const work = mkdtempSync(join(tmpdir(), 'cr-bench-locks-'));

// ---- the locks -------------------------------------------------------------------------------

function realLocks(): string[] {
  if (values.lock) return values.lock.map((file) => resolve(file));
  const folders = [process.env.CONDA_RESOLVE_WILD_LOCKS, join(SHARED_DIR, 'locks', 'wild')].filter(
    (f): f is string => !!f && existsSync(f),
  );
  return folders.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith('.lock') && statSync(join(folder, name)).size >= 400 * 1024)
      .sort()
      .map((name) => join(folder, name)),
  );
}

const PLATFORMS = ['linux-64', 'linux-aarch64', 'osx-64', 'osx-arm64', 'win-64'];
const ENVIRONMENTS = ['default', 'docs', 'lint', 'py39', 'test'];

/** The records of a shared channel snapshot by subdir, then name, each name's builds in file-name order. */
function recordsByName(channel: string, label: string): Map<string, Map<string, PackageRecord[]>> {
  const bySubdir = new Map<string, Map<string, PackageRecord[]>>();
  const records = loadChannelRecords(join(CHANNELS_DIR, channel), label).sort((a, b) => (a.fn < b.fn ? -1 : 1));
  for (const record of records) {
    let byName = bySubdir.get(record.subdir);
    if (!byName) bySubdir.set(record.subdir, (byName = new Map()));
    byName.set(record.name, [...(byName.get(record.name) ?? []), record]);
  }
  return bySubdir;
}

/**
 * 5 environments x 5 platforms from real records: every conda-forge-py39 name of the platform, the
 * i-th environment locking its i-th build (environments of a workspace pin different
 * pythons), and a 60% slice of defaults' noarch names, shifted by 10% per environment. The
 * records carry what test/vocabulary/helpers.ts reads of them (no size or timestamp).
 */
function builtLock(): string | undefined {
  if (!existsSync(join(CHANNELS_DIR, 'conda-forge-py39')) || !existsSync(join(CHANNELS_DIR, 'defaults-main-2022'))) return undefined;
  const forge = recordsByName('conda-forge-py39', 'conda-forge');
  const noarch = [...(recordsByName('defaults-main-2022', 'pkgs/main').get('noarch') ?? new Map<string, PackageRecord[]>()).values()];
  const channels = ['https://conda.anaconda.org/conda-forge/', 'https://conda.anaconda.org/pkgs/main/'];
  const environments: ExportEnvironment[] = [];
  for (const platform of PLATFORMS) {
    const own = [...(forge.get(platform) ?? new Map<string, PackageRecord[]>()).values()];
    ENVIRONMENTS.forEach((name, i) => {
      const start = Math.floor((noarch.length * i) / 10);
      const records = [
        ...own.map((builds) => builds[Math.min(i, builds.length - 1)]!),
        ...noarch.slice(start, start + Math.floor(noarch.length * 0.6)).map((builds) => builds[Math.min(i % 2, builds.length - 1)]!),
      ].sort((a, b) => (a.name < b.name ? -1 : 1));
      environments.push({ platform, name, channels, records });
    });
  }
  const exporter = v7 ?? BUILTIN_EXPORTERS.find((e) => e.name === 'rattler-lock-v6')!;
  const text = exporter.exportMultiplatform!(environments, { toolName: 'conda-resolve', toolVersion: 'bench', now: new Date(0) });
  mkdirSync(join(work, 'built'));
  const file = join(work, 'built', 'pixi.lock');
  writeFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
  console.log(
    `built lock: ${ENVIRONMENTS.length} environments x ${PLATFORMS.length} platforms from conda-forge-py39 and defaults-main-2022 records, ${exporter.name}`,
  );
  return file;
}

// ---- measuring -------------------------------------------------------------------------------

interface Run {
  ms: number;
  rssMb: number | null;
  stdout: string;
}

async function run(argv: string[], cwd: string): Promise<Run> {
  const command = haveTime ? '/usr/bin/time' : process.execPath;
  const args = haveTime ? ['-f', '%M', process.execPath, ...argv] : argv;
  const started = process.hrtime.bigint();
  const child = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
    const proc = spawn(command, args, { cwd, env: { ...process.env, CONDA_RESOLVE_CACHE_DIR: join(work, 'cache') } });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    proc.on('error', fail);
    proc.on('close', (status) => done({ status, stdout, stderr }));
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const lines = child.stderr.trim().split('\n');
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed (${child.status}): ${child.stderr}`);
  return { ms, rssMb: haveTime ? Number(lines.pop()) / 1024 : null, stdout: child.stdout };
}

interface Row {
  readonly label: string;
  readonly argv: string[];
}

async function measure(file: string): Promise<void> {
  const text = readFileSync(file, 'utf8');
  const doc = yaml.load(text) as {
    version: number;
    environments: Record<string, { packages?: Record<string, unknown[]> }>;
    packages: unknown[];
  };
  const envs = Object.entries(doc.environments).map(([name, env]) => ({
    name,
    platforms: Object.entries(env.packages ?? {}).map(([platform, refs]) => ({ platform, refs: refs.length })),
  }));
  const refs = envs.reduce((sum, env) => sum + env.platforms.reduce((s, p) => s + p.refs, 0), 0);
  const largest = [...envs].sort((a, b) => b.platforms.reduce((s, p) => s + p.refs, 0) - a.platforms.reduce((s, p) => s + p.refs, 0))[0]!;
  const onePlatform = largest.platforms[0]!.platform;
  const dir = mkdtempSync(join(work, 'lock-'));
  writeFileSync(join(dir, 'pixi.lock'), text);
  console.log(
    `\n${file}: pixi.lock v${doc.version}, ${(text.length / 1024).toFixed(0)} KiB, ${envs.length} environments, ` +
      `${doc.packages.length} package entries, ${refs} references`,
  );

  const base = [cli, '-q', '--offline', '-f', 'pixi.lock'];
  const rows: Row[] = [
    { label: 'node -e 0', argv: ['-e', '0'] },
    {
      label: 'js-yaml load (floor)',
      argv: [
        '-e',
        `require(${JSON.stringify(join(PROJECT_ROOT, 'node_modules', 'js-yaml'))}).load(require('fs').readFileSync(${JSON.stringify(join(dir, 'pixi.lock'))}, 'utf8'))`,
      ],
    },
    ...(v7 && doc.version === 7 ? [{ label: 'read + write v7 (all)', argv: [...base, '--format', 'rattler-lock-v7'] }] : []),
    {
      label: `read + explicit (${largest.name}, ${onePlatform})`,
      argv: [...base, '-e', largest.name, '-p', onePlatform, '--format', 'explicit'],
    },
    { label: `to conda-lock.yml (${largest.name})`, argv: [...base, '-e', largest.name, '--format', 'conda-lock-v1'] },
  ];

  // One untimed run of each: warms the page cache and the CLI's code cache, and checks the answers;
  // a row whose command fails is reported and left out, so one unread lock does not end the run.
  for (const row of [...rows]) {
    try {
      const first = await run(row.argv, dir);
      if (row.label.startsWith('read + write v7'))
        console.log(`  v7 written again is ${first.stdout === text ? 'byte-identical' : 'DIFFERENT'} to the input`);
    } catch (error) {
      console.log(`  ${row.label}: left out, ${(error as Error).message.split('\n')[0]}`);
      rows.splice(rows.indexOf(row), 1);
    }
  }
  const samples = new Map<string, Run[]>(rows.map((row) => [row.label, []]));
  for (let round = 0; round < rounds; round++) {
    for (const row of rows) samples.get(row.label)!.push(await run(row.argv, dir));
  }
  const floor = median(samples.get('js-yaml load (floor)')!.map((r) => r.ms));
  inProcess(text);
  for (const row of rows) {
    const runs = samples.get(row.label)!;
    const ms = median(runs.map((r) => r.ms));
    const rss = runs[0]!.rssMb === null ? '' : `, ${median(runs.map((r) => r.rssMb!)).toFixed(0)} MB peak RSS`;
    console.log(`  ${row.label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms${rss}, ${(ms / floor).toFixed(2)}x the js-yaml floor`);
  }
}

/** The same work inside this process (no start-up): js-yaml's load, our reader, our v7 writer. */
function inProcess(text: string): void {
  const time = (fn: () => unknown): number => {
    const samples: number[] = [];
    for (let i = 0; i < Math.max(3, rounds); i++) {
      const started = performance.now();
      fn();
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  const load = time(() => yaml.load(text));
  const read = time(() => readLockFile('pixi.lock', text));
  const lock = readLockFile('pixi.lock', text);
  const write = v7
    ? time(() =>
        v7.exportMultiplatform!(lockExportEnvironments(lock), { toolName: 'conda-resolve', toolVersion: 'bench', now: new Date(0) }),
      )
    : NaN;
  console.log(
    `  in process: js-yaml load ${load.toFixed(0)} ms, our read ${read.toFixed(0)} ms (${(read / load).toFixed(2)}x)` +
      (v7 ? `, our v7 write of every environment ${write.toFixed(0)} ms (${(write / load).toFixed(2)}x the load)` : ''),
  );
}

const locks = realLocks();
const built = builtLock();
if (built) locks.push(built);
if (locks.length === 0) console.log('no lock to measure: give --lock FILE, set CONDA_RESOLVE_WILD_LOCKS, or provide ../shared');
console.log(`locks benchmark: ${rounds} rounds, ${v7 ? 'rattler-lock-v7 writer present' : 'no rattler-lock-v7 writer yet'}`);
for (const file of locks) await measure(file);
