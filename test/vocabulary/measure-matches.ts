/**
 * A rough throughput measurement of the vocabulary's hot paths over the real channel snapshots
 * (not a test; the official benchmark lives in bench/). Run from the project root:
 *
 *   npx tsx test/vocabulary/measure-matches.ts
 *
 * Prints records/specs loaded, parse rates (cold and cached) and MatchSpec.matches calls per second
 * for a 20-spec x every-record loop, plus a Version.compare rate (sorting every record's version).
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { parseVersion } from '../../vocabulary/version.js';
import { CHANNELS_DIR, HAVE_SHARED } from '../helpers/shared.js';
import { loadChannelRecords } from './helpers.js';

if (!HAVE_SHARED) {
  console.error(`measure-matches: ${CHANNELS_DIR} is missing`);
  process.exit(1);
}

const records = [
  ...loadChannelRecords(join(CHANNELS_DIR, 'conda-forge-py39'), 'conda-forge'),
  ...loadChannelRecords(join(CHANNELS_DIR, 'defaults-main-2022'), 'https://repo.anaconda.com/pkgs/main'),
];
const specTexts = [...new Set(records.flatMap((r) => [...r.depends, ...r.constrains]))];

function rate(label: string, count: number, ms: number, unit: string): void {
  console.log(`${label.padEnd(44)} ${(count / (ms / 1000)).toExponential(2).padStart(9)} ${unit}/s  (${count} in ${ms.toFixed(1)} ms)`);
}

console.log(`records: ${records.length}, distinct depends/constrains strings: ${specTexts.length}`);

let t = performance.now();
for (const s of specTexts) parseMatchSpec(s);
rate('parseMatchSpec, first parse (cold)', specTexts.length, performance.now() - t, 'specs');
// The same specs with a trailing space: new cache keys, so a full parse with a warm JIT.
t = performance.now();
for (const s of specTexts) parseMatchSpec(`${s} `);
rate('parseMatchSpec, first parse (warm JIT)', specTexts.length, performance.now() - t, 'specs');
t = performance.now();
for (let i = 0; i < 20; i++) for (const s of specTexts) parseMatchSpec(s);
rate('parseMatchSpec, cached', specTexts.length * 20, performance.now() - t, 'specs');

const versions = [...new Set(records.map((r) => r.version))];
t = performance.now();
for (const v of versions) parseVersion(v);
rate('parseVersion, first parse (cold)', versions.length, performance.now() - t, 'versions');

const specs = [
  'python >=3.9,<3.10.0a0',
  'python_abi 3.9.* *_cp39',
  'libgcc-ng >=12',
  'openssl >=3.0.0,<4.0a0',
  'numpy >=1.21,<2',
  'libzlib >=1.2.13,<2.0.0a0',
  'ca-certificates',
  'pip',
  'setuptools',
  'tk >=8.6.13,<8.7.0a0',
  'xz >=5.2.6,<6.0a0',
  'ncurses >=6.4,<7.0a0',
  'readline >=8.2,<9.0a0',
  'sqlite 3.*',
  'libffi >=3.4,<4.0a0',
  'bzip2 >=1.0.8,<2.0a0',
  'conda-forge::python 3.9.*',
  '*[track_features=mkl]',
  'numpy[build=py39*]',
  'python[version=">=3.8",build_number=">=1"]',
].map(parseMatchSpec);

// Warm up, then measure every spec against every record (most fail on the name, as in a solver
// that has not indexed by name; the by-name loop below is the solver's real case).
let hits = 0;
for (const ms of specs) for (const r of records) if (ms.matches(r)) hits++;
const rounds = 10;
t = performance.now();
for (let i = 0; i < rounds; i++) for (const ms of specs) for (const r of records) if (ms.matches(r)) hits++;
rate('matches, 20 specs x all records', rounds * specs.length * records.length, performance.now() - t, 'calls');

const byName = new Map<string, typeof records>();
for (const r of records) {
  const g = byName.get(r.name);
  if (g === undefined) byName.set(r.name, [r]);
  else g.push(r);
}
const named = specs.filter((s) => s.nameIsExact).map((s) => [s, byName.get(s.name) ?? []] as const);
let calls = 0;
t = performance.now();
for (let i = 0; i < rounds * 20; i++) {
  for (const [ms, group] of named) {
    for (const r of group) if (ms.matches(r)) hits++;
    calls += group.length;
  }
}
rate('matches, same-name records only', calls, performance.now() - t, 'calls');

const parsed = records.map((r) => parseVersion(r.version));
t = performance.now();
const sorted = [...parsed].sort((a, b) => a.compare(b));
const comparisons = parsed.length * Math.log2(parsed.length);
rate('Version.compare (sort of all records)', Math.round(comparisons), performance.now() - t, 'compares');
console.log(`(${hits} matches counted, ${sorted.length} sorted)`);
