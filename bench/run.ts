/**
 * `npm run bench`: every benchmark, one after the other, each in its own process (so peak RSS is
 * its own), printing its figures. `npm run bench -- --only solve,cli` runs a subset; other
 * arguments after `--` are not forwarded (run a benchmark directly for its own flags).
 *
 * Each benchmark compares against a peer in the same run (JSON.parse, js-yaml, rattler) and prints
 * the ratio; the figures recorded in bench/RESULTS.md came from these commands.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));

const BENCHMARKS: { name: string; file: string; issue: string; needsShared: boolean }[] = [
  { name: 'vocabulary-parse', file: 'vocabulary-parse.ts', issue: 'issue 2: parse snapshots, match specs', needsShared: true },
  { name: 'load-index', file: 'load-index.ts', issue: 'issue 3: lazy load from a conda-forge-scale monolithic file', needsShared: false },
  { name: 'load-sharded', file: 'load-sharded.ts', issue: 'issue 3: lazy load from the sharded layout', needsShared: false },
  { name: 'solve', file: 'solve.ts', issue: 'issue 4: solver, full path vs rattler, conda-forge scale', needsShared: true },
  { name: 'cli', file: 'cli.ts', issue: 'issue 5: the CLI process vs rattler simpleSolve', needsShared: true },
  { name: 'exporters', file: 'exporters.ts', issue: 'issue 5: exporters and the YAML emitter vs js-yaml', needsShared: true },
  { name: 'http-load', file: 'http-load.ts', issue: 'issue 6: the HTTP service under load', needsShared: true },
  {
    name: 'reliability',
    file: 'reliability.ts',
    issue: 'issue 11: cold runs on python http.server, the server under fire and SIGTERM',
    needsShared: false,
  },
  {
    name: 'scale',
    file: 'scale.ts',
    issue: 'issue 13: the CLI at conda-forge scale (file://, HTTP json/zst/sharded, cold and warm) vs rattler simpleSolve',
    needsShared: false,
  },
  {
    name: 'audit',
    file: 'audit.ts',
    issue: 'issue 36: audit of a 300-package lock against a 50,000-record OSV zip vs python zipfile+json',
    needsShared: false,
  },
  {
    name: 'cluster',
    file: 'cluster.ts',
    issue: 'issue 18: serve --redis with one and two workers vs the single process',
    needsShared: true,
  },
  {
    name: 'pypi-index',
    file: 'pypi-index.ts',
    issue: 'issue 33: the simple-index client walking 60 projects on an index 50 ms away, against the latency floor',
    needsShared: false,
  },
  {
    name: 'pypi',
    file: 'pypi.ts',
    issue: 'issue 34: conda python+numpy with 40 PyPI requirements (index 50 ms away), CLI cold and warm vs pip install --dry-run --report',
    needsShared: true,
  },
  {
    name: 'pypi-versions',
    file: 'pypi-versions.ts',
    issue: "issue 33: PEP 440 versions and specifiers vs Python's packaging",
    needsShared: false,
  },
  {
    name: 'locks',
    file: 'locks.ts',
    issue: 'issue 37: reading and writing a large pixi.lock, whole process, vs parsing it with js-yaml alone',
    needsShared: false,
  },
];

const { values } = parseArgs({ options: { only: { type: 'string' } }, allowPositionals: true, strict: false });
const only = typeof values.only === 'string' ? new Set(values.only.split(',')) : undefined;
const haveShared = existsSync(join(here, '..', '..', 'shared', 'channels'));
let failed = 0;

for (const bench of BENCHMARKS) {
  if (only && !only.has(bench.name)) continue;
  const file = join(here, bench.file);
  if (!existsSync(file)) {
    console.log(`\n### ${bench.name}: missing (${bench.file})`);
    continue;
  }
  if (bench.needsShared && !haveShared) {
    console.log(`\n### ${bench.name}: skipped, ../shared is missing`);
    continue;
  }
  console.log(`\n### ${bench.name} (${bench.issue})\n$ npx tsx bench/${bench.file}`);
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit', cwd: join(here, '..') });
  console.log(
    `### ${bench.name}: ${run.status === 0 ? 'done' : `FAILED (exit ${run.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (run.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
