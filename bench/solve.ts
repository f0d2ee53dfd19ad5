/**
 * Issue 4 benchmark (the solver).
 *
 *   npx tsx bench/solve.ts [--part a|b|c|all] [--rounds N] [--filter TEXT]
 *
 * (a) solve-only: each environment of `test/solver/helpers/environments.ts` over the shared
 *     snapshots, with the index in memory (the repodata layer's index over the whole files). `first`
 *     is the first solve in the process for that index (it materialises the records it reads and
 *     warms the JIT); `warm` is the median of the following solves.
 * (b) full path against rattler: per environment, interleaved in one process, our path (GET
 *     platform + noarch repodata.json over loopback HTTP with the fetch layer's `httpGet`, nothing
 *     cached, index them with `indexRepodata`, solve) against
 *     `@conda-org/rattler`'s `simpleSolve` (resolvo in WebAssembly, same channel URL, same virtual
 *     packages as locked records). Median of `--rounds` rounds after one untimed warm-up of each;
 *     ratio = ours / rattler (below 1.0 means faster).
 * (c) conda-forge scale: the synthetic channel of `bench/generate-channel.ts` (465,000 linux-64 +
 *     100,000 noarch records, generated into `bench/out/solve-channel-465k` on first use), loaded through
 *     the index sidecar as the disk cache does, then a 15-package data-science solve, first and warm.
 *
 * Figures go to bench/RESULTS.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { indexRepodata } from '../repodata/monolithic.js';
import { createDefaultDispatcher, httpGet, readBodyBytes } from '../repodata/fetch.js';
import { loadIndexFromCache } from '../repodata/lazy/cached-repodata.js';
import type { SubdirIndex } from '../repodata/types.js';
import { solve, type SolveChannel } from '../solver/index.js';
import { startChannelServer } from '../test/helpers/channel-server.js';
import { CHANNELS_DIR } from '../test/helpers/shared.js';
import { ENVIRONMENTS, type Environment } from '../test/solver/helpers/environments.js';
import { rattlerSolve } from '../test/solver/helpers/referee.js';
import { virtualPackages } from '../vocabulary/virtual-packages.js';
import { generateChannel } from './generate-channel.js';
import { median } from './measure.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'all' },
    rounds: { type: 'string', default: '5' },
    filter: { type: 'string' },
  },
});
const rounds = Math.max(1, Number(values.rounds));
const environments = ENVIRONMENTS.filter((e) => !values.filter || `${e.folder} ${e.platform} ${e.specs.join(' ')}`.includes(values.filter));

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));

function channelRef(folder: string): { name: string; baseUrl: string } {
  return { name: folder, baseUrl: `https://example.invalid/${folder}` };
}

function indexFromBytes(folder: string, subdir: string, bytes: Uint8Array): SubdirIndex {
  return indexRepodata(bytes, { channel: channelRef(folder), subdir });
}

function loadFromDisk(env: Environment): SolveChannel {
  const sources = [env.platform, 'noarch'].map((subdir) =>
    indexFromBytes(env.folder, subdir, readFileSync(join(CHANNELS_DIR, env.folder, subdir, 'repodata.json'))),
  );
  return { name: env.folder, sources };
}

function label(env: Environment): string {
  return `${env.folder} ${env.platform}: ${env.specs.join(' ')}`;
}

function partA(): void {
  console.log('\n(a) solve-only, index in memory (ms)\n');
  console.log('| environment | result | first | warm (median) |');
  console.log('|---|---|---|---|');
  for (const env of environments) {
    const channel = loadFromDisk(env);
    const virtual = virtualPackages(env.platform);
    const run = (): { ms: number; kind: string; count: number } => {
      const started = performance.now();
      const outcome = solve({ specs: env.specs, channels: [channel], virtualPackages: virtual });
      return { ms: performance.now() - started, kind: outcome.kind, count: outcome.kind === 'solved' ? outcome.records.length : 0 };
    };
    const first = run();
    const warm: number[] = [];
    for (let i = 0; i < Math.max(30, rounds * 6); i++) warm.push(run().ms);
    const result = first.kind === 'solved' ? `${first.count} packages` : 'unsatisfiable';
    console.log(`| ${label(env)} | ${result} | ${fmt(first.ms)} | ${fmt(median(warm))} |`);
  }
}

async function partB(): Promise<void> {
  console.log(`\n(b) full path over loopback HTTP, nothing cached, against rattler simpleSolve (median of ${rounds}, ms)\n`);
  console.log('| environment | ours | rattler | ratio |');
  console.log('|---|---|---|---|');
  const server = await startChannelServer({ root: CHANNELS_DIR });
  const dispatcher = createDefaultDispatcher();
  try {
    const ours = async (env: Environment): Promise<number> => {
      const started = performance.now();
      // Both subdirs at once (as rattler does), through the fetch layer's GET on a keep-alive agent.
      const sources = await Promise.all(
        [env.platform, 'noarch'].map(async (subdir) => {
          const context = { channel: env.folder, subdir, dispatcher };
          const response = await httpGet(context, `${server.url}/${env.folder}/${subdir}/repodata.json`);
          // The body as bytes, without the cache's checksum (the store is not wired here yet).
          return indexFromBytes(env.folder, subdir, new Uint8Array(await readBodyBytes(context, response, 1 << 30)));
        }),
      );
      solve({ specs: env.specs, channels: [{ name: env.folder, sources }], virtualPackages: virtualPackages(env.platform) });
      return performance.now() - started;
    };
    const theirs = async (env: Environment): Promise<number> => {
      const started = performance.now();
      await rattlerSolve(env.specs, `${server.url}/${env.folder}`, env.platform, virtualPackages(env.platform));
      return performance.now() - started;
    };
    const ratios: number[] = [];
    for (const env of environments) {
      await ours(env);
      await theirs(env);
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < rounds; i++) {
        a.push(await ours(env));
        b.push(await theirs(env));
      }
      const ratio = median(a) / median(b);
      ratios.push(ratio);
      console.log(`| ${label(env)} | ${fmt(median(a))} | ${fmt(median(b))} | ${ratio.toFixed(2)} |`);
    }
    console.log(`\nratio: max ${Math.max(...ratios).toFixed(2)}, median ${median(ratios).toFixed(2)} over ${ratios.length} environments`);
  } finally {
    await dispatcher.close();
    await server.close();
  }
}

const DATA_SCIENCE = [
  'python=3.10',
  'numpy',
  'pandas',
  'scipy',
  'scikit-learn',
  'matplotlib',
  'pillow',
  'kiwisolver',
  'contourpy',
  'fonttools',
  'tornado',
  'pip',
  'joblib',
  'packaging',
  'pytz',
];

function partC(): void {
  // Its own copy, so regenerating it never disturbs another benchmark reading channel-465k.
  const dir = join(HERE, 'out', 'solve-channel-465k');
  if (!existsSync(join(dir, 'linux-64', 'repodata.json'))) {
    console.log('generating the synthetic channel (once)...');
    generateChannel({ out: dir, seed: 1 });
  }
  console.log(`\n(c) conda-forge scale (${dir}), 15-package data-science environment\n`);
  const started = performance.now();
  const sources = ['linux-64', 'noarch'].map(
    (subdir) =>
      loadIndexFromCache({ jsonPath: join(dir, subdir, 'repodata.json'), source: { channel: channelRef('conda-forge'), subdir } }).index,
  );
  const loaded = performance.now() - started;
  const channel = { name: 'conda-forge', sources };
  const virtual = virtualPackages('linux-64');
  const times: number[] = [];
  let summary = '';
  for (let i = 0; i < Math.max(3, rounds); i++) {
    const t = performance.now();
    const outcome = solve({ specs: DATA_SCIENCE, channels: [channel], virtualPackages: virtual });
    times.push(performance.now() - t);
    if (i === 0) {
      summary =
        outcome.kind === 'solved'
          ? `${outcome.records.length} packages: ${outcome.records
              .filter((r) => DATA_SCIENCE.some((s) => s.split('=')[0] === r.name))
              .map((r) => `${r.name}=${r.version}`)
              .join(' ')}`
          : outcome.message;
    }
  }
  const records = sources.reduce((n, s) => n + s.recordCount, 0);
  console.log(`specs: ${DATA_SCIENCE.join(' ')}`);
  console.log(`index load (sidecar): ${fmt(loaded)} ms; records in the index: ${records}`);
  console.log(`solve: first ${fmt(times[0])} ms, warm median ${fmt(median(times.slice(1)))} ms`);
  console.log(`answer: ${summary}`);
}

const part = values.part;
if (part === 'a' || part === 'all') partA();
if (part === 'b' || part === 'all') await partB();
if (part === 'c' || part === 'all') partC();
