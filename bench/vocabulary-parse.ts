/**
 * Issue 2 benchmark: parsing the shared channel snapshots and matching specs against every record.
 *
 *   npx tsx bench/vocabulary-parse.ts [--rounds N]
 *
 * Parses every shared repodata.json (../shared/channels, ../shared/repodata-files) several ways:
 * plain `JSON.parse` (the peer), our eager parser (`JSON.parse` + normalising every record), the
 * lazy index's scan alone, the scan plus the records of the names a data-science solve touches,
 * and the scan plus every record. Then matches 20 realistic match specs against every record.
 * Each figure is the median of `--rounds` runs (default 7) after one warm-up, in one process.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LazySubdirIndex } from '../repodata/lazy/lazy-subdir-index.js';
import { parseRepodata } from '../repodata/parse.js';
import type { ChannelRef } from '../repodata/types.js';
import { parseMatchSpec } from '../vocabulary/match-spec.js';
import type { PackageRecord } from '../vocabulary/record.js';
import { medianTime } from './measure.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = resolve(ROOT, process.env.CONDA_RESOLVE_SHARED_DIR ?? '../shared');
const CHANNEL: ChannelRef = { name: 'conda-forge', baseUrl: 'https://conda.anaconda.org/conda-forge' };

/** Specs a user of these channels writes: pins, ranges, build globs, channel and bracket forms. */
export const REALISTIC_SPECS = [
  'python',
  'python=3.9',
  'python >=3.8,<3.11',
  'python 3.9.* *_cpython',
  'numpy >=1.21',
  'numpy 1.21.*',
  'pandas >=1.3,<2',
  'scipy',
  'scikit-learn >=1.0',
  'openssl >=3.0.0,<4.0a0',
  'openssl 1.1.1*',
  'libgcc-ng >=12',
  'libstdcxx-ng >=9.4.0',
  'ca-certificates',
  'pip >=21',
  'setuptools <60',
  'tk 8.6.*',
  'conda-forge::libzlib >=1.2.13,<1.3.0a0',
  'python_abi 3.9.* *_cp39',
  'zlib[version=">=1.2.11,<1.3.0a0", build=*_0]',
];

/** Names a `python numpy pandas scipy scikit-learn` solve reads. */
const SOLVE_NAMES = [
  'python',
  'numpy',
  'numpy-base',
  'pandas',
  'scipy',
  'scikit-learn',
  'python_abi',
  'libgcc-ng',
  'libstdcxx-ng',
  'openssl',
  'pip',
  'setuptools',
  'wheel',
  'tk',
  'xz',
  'zlib',
  'libzlib',
  'ncurses',
  'readline',
  'sqlite',
  'libffi',
  'bzip2',
  'ca-certificates',
  'tzdata',
  'python-dateutil',
  'pytz',
  'six',
  'blas',
  'libopenblas',
  'joblib',
  'threadpoolctl',
];

interface Snapshot {
  readonly label: string;
  readonly subdir: string;
  readonly bytes: Uint8Array;
}

function snapshots(): Snapshot[] {
  const out: Snapshot[] = [];
  const channels = join(SHARED, 'channels');
  for (const channel of readdirSync(channels, { withFileTypes: true })) {
    if (!channel.isDirectory()) continue;
    for (const subdir of readdirSync(join(channels, channel.name))) {
      const path = join(channels, channel.name, subdir, 'repodata.json');
      if (existsSync(path)) out.push({ label: relative(SHARED, path), subdir, bytes: readFileSync(path) });
    }
  }
  for (const file of readdirSync(join(SHARED, 'repodata-files'))) {
    out.push({ label: `repodata-files/${file}`, subdir: 'linux-64', bytes: readFileSync(join(SHARED, 'repodata-files', file)) });
  }
  return out;
}

const time = medianTime;

const decoder = new TextDecoder();

function main(): void {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
  const rounds = Math.max(1, Number(values.rounds));
  if (!existsSync(join(SHARED, 'channels'))) {
    console.error(`vocabulary-parse: ${SHARED}/channels is missing; this benchmark needs the shared snapshots`);
    process.exit(2);
  }
  const docs = snapshots();
  const totalBytes = docs.reduce((sum, doc) => sum + doc.bytes.length, 0);
  const records = docs.flatMap((doc) => parseRepodata(doc.bytes, { channel: CHANNEL, subdir: doc.subdir }).records);
  const n = records.length;

  const all = {
    jsonParse: time(rounds, () => docs.map((doc) => JSON.parse(decoder.decode(doc.bytes)) as unknown)),
    eager: time(rounds, () => docs.map((doc) => parseRepodata(doc.bytes, { channel: CHANNEL, subdir: doc.subdir }))),
    scan: time(rounds, () => docs.map((doc) => LazySubdirIndex.fromBytes(doc.bytes, { channel: CHANNEL, subdir: doc.subdir }))),
    solveNames: time(rounds, () =>
      docs.map((doc) => {
        const index = LazySubdirIndex.fromBytes(doc.bytes, { channel: CHANNEL, subdir: doc.subdir });
        for (const name of SOLVE_NAMES) index.records(name);
        return index;
      }),
    ),
    everything: time(rounds, () =>
      docs.map((doc) => {
        const index = LazySubdirIndex.fromBytes(doc.bytes, { channel: CHANNEL, subdir: doc.subdir });
        for (const name of index.names()) index.records(name);
        return index;
      }),
    ),
  };

  // Per snapshot: how much of the file a data-science solve touches decides what laziness saves.
  const perDoc = docs.map((doc) => {
    const source = { channel: CHANNEL, subdir: doc.subdir };
    const index = LazySubdirIndex.fromBytes(doc.bytes, source);
    const used = SOLVE_NAMES.reduce((sum, name) => sum + index.records(name).length, 0);
    return {
      label: doc.label,
      records: index.recordCount,
      names: [...index.names()].length,
      used,
      jsonParse: time(rounds, () => JSON.parse(decoder.decode(doc.bytes)) as unknown),
      eager: time(rounds, () => parseRepodata(doc.bytes, source)),
      lazy: time(rounds, () => {
        const fresh = LazySubdirIndex.fromBytes(doc.bytes, source);
        for (const name of SOLVE_NAMES) fresh.records(name);
      }),
    };
  });

  const largest = docs.reduce((a, b) => (b.bytes.length > a.bytes.length ? b : a));
  const big = {
    jsonParse: time(rounds * 3, () => JSON.parse(decoder.decode(largest.bytes)) as unknown),
    eager: time(rounds * 3, () => parseRepodata(largest.bytes, { channel: CHANNEL, subdir: largest.subdir })),
    scan: time(rounds * 3, () => LazySubdirIndex.fromBytes(largest.bytes, { channel: CHANNEL, subdir: largest.subdir })),
  };

  const specs = REALISTIC_SPECS.map((spec) => parseMatchSpec(spec));
  let matched = 0;
  const matchMs = time(rounds, () => {
    matched = 0;
    for (const spec of specs) for (const record of records as PackageRecord[]) if (spec.matches(record)) matched++;
  });
  const specParseMs = time(rounds, () => REALISTIC_SPECS.map((spec) => parseMatchSpec(spec)));

  const perSecond = (count: number, ms: number): string => `${(((count / ms) * 1000) / 1e6).toFixed(2)} M/s`;
  const mbps = (bytes: number, ms: number): string => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
  const row = (label: string, ms: number, base: number, bytes = totalBytes, count = n): string =>
    `| ${label.padEnd(52)} | ${ms.toFixed(1).padStart(8)} | ${(ms / base).toFixed(2).padStart(6)} | ${perSecond(count, ms).padStart(10)} | ${mbps(bytes, ms).padStart(9)} |`;
  const header = `| ${'what'.padEnd(52)} | ${'ms'.padStart(8)} | ${'ratio'.padStart(6)} | ${'records'.padStart(10)} | ${'bytes'.padStart(9)} |\n|${'-'.repeat(54)}|${'-'.repeat(10)}|${'-'.repeat(8)}|${'-'.repeat(12)}|${'-'.repeat(11)}|`;

  console.log(
    `conda-resolve vocabulary-parse benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version}, median of ${rounds})`,
  );
  console.log(`${docs.length} snapshots, ${n} records, ${(totalBytes / 1e6).toFixed(1)} MB; ratio = time / JSON.parse time\n`);
  console.log(`All snapshots:\n${header}`);
  console.log(row('JSON.parse (peer)', all.jsonParse, all.jsonParse));
  console.log(row('eager parseRepodata (JSON.parse + normalise all)', all.eager, all.jsonParse));
  console.log(row('lazy: scan only', all.scan, all.jsonParse));
  console.log(row(`lazy: scan + ${SOLVE_NAMES.length} names of a data-science solve`, all.solveNames, all.jsonParse));
  console.log(row('lazy: scan + every record', all.everything, all.jsonParse));
  console.log(`\nPer snapshot: eager vs lazy (scan + the ${SOLVE_NAMES.length} solve names):`);
  console.log(
    `| ${'snapshot'.padEnd(48)} | ${'records'.padStart(7)} | ${'names'.padStart(5)} | ${'used'.padStart(5)} | ${'JSON.parse'.padStart(10)} | ${'eager'.padStart(7)} | ${'lazy'.padStart(7)} | ${'eager/lazy'.padStart(10)} |`,
  );
  console.log(
    `|${'-'.repeat(50)}|${'-'.repeat(9)}|${'-'.repeat(7)}|${'-'.repeat(7)}|${'-'.repeat(12)}|${'-'.repeat(9)}|${'-'.repeat(9)}|${'-'.repeat(12)}|`,
  );
  for (const d of perDoc) {
    console.log(
      `| ${d.label.padEnd(48)} | ${String(d.records).padStart(7)} | ${String(d.names).padStart(5)} | ${String(d.used).padStart(5)} | ${d.jsonParse.toFixed(1).padStart(10)} | ${d.eager.toFixed(1).padStart(7)} | ${d.lazy.toFixed(1).padStart(7)} | ${(d.eager / d.lazy).toFixed(1).padStart(9)}x |`,
    );
  }
  const bigCount = parseRepodata(largest.bytes, { channel: CHANNEL, subdir: largest.subdir }).records.length;
  console.log(`\nLargest snapshot, ${largest.label} (${(largest.bytes.length / 1e6).toFixed(1)} MB, ${bigCount} records):\n${header}`);
  console.log(row('JSON.parse (peer)', big.jsonParse, big.jsonParse, largest.bytes.length, bigCount));
  console.log(row('eager parseRepodata', big.eager, big.jsonParse, largest.bytes.length, bigCount));
  console.log(row('lazy: scan only', big.scan, big.jsonParse, largest.bytes.length, bigCount));
  console.log(
    `\nMatching ${specs.length} specs against all ${n} records: ${matchMs.toFixed(1)} ms, ${perSecond(n * specs.length, matchMs)} spec-record checks; ${matched} matches`,
  );
  console.log(`Parsing the ${specs.length} specs: ${((specParseMs * 1000) / specs.length).toFixed(2)} µs per spec`);
  console.log(
    `Speed-up of lazy (scan + solve names) over eager: ${(all.eager / all.solveNames).toFixed(1)}x; over JSON.parse alone: ${(all.jsonParse / all.solveNames).toFixed(1)}x`,
  );
}

main();
