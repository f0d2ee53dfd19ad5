/**
 * `npx tsx bench/pypi.ts [--rounds N] [--delay MS] [--no-pip]`: a mixed environment, conda `python` and `numpy`
 * from ../shared/channels (defaults-main-2022, linux-aarch64) with 40 PyPI requirements from a local
 * index that adds 50 ms to every answer (in its own process), solved by the whole CLI process
 * (`dist/src/cli/bin.cjs`; run `npm run build` first) cold (empty cache) and warm (cache filled),
 * against `pip install --dry-run --report` on the same index (cold: no pip cache; warm: pip's HTTP
 * cache filled), python 3.9 and the same platform.
 *
 * The latency floor of a cold run: the PyPI graph is 2 levels deep (40 roots, 10 shared
 * dependencies), each level a page then a metadata file, so 2 x 2 x delay. A whole cold process
 * also starts and loads the conda channel: the whole-run floor adds the same CLI's conda-only cold
 * run, measured in the same round.
 */
import { execFile, fork } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { buildWheel, metadataText, startIndexServer, type IndexProject } from '../test/helpers/pypi-index.js';
import { median } from './measure.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    delay: { type: 'string', default: '50' },
    serve: { type: 'boolean', default: false },
    'no-pip': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const DELAY = Number(values.delay);
const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
const CHANNEL = resolve(ROOT, '..', 'shared', 'channels', 'defaults-main-2022');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const run = promisify(execFile);

function projects(): IndexProject[] {
  const deps = Array.from({ length: 10 }, (_, i) => `dep${i}`);
  const out: IndexProject[] = deps.map((name) => ({
    name,
    files: ['1.0', '1.5', '2.0'].map((version) => {
      const text = metadataText(name, version, [], 'Requires-Python: >=3.7\n');
      return { ...buildWheel(name, version, text), metadata: text, requiresPython: '>=3.7' };
    }),
  }));
  for (let i = 0; i < 40; i++) {
    const name = `app${i}`;
    const requires = [`${deps[i % 10]}>=1.0`, `${deps[(i + 3) % 10]}<2; python_version >= "3.8"`];
    out.push({
      name,
      files: ['0.9', '1.0'].map((version) => {
        const text = metadataText(name, version, requires);
        return { ...buildWheel(name, version, text), metadata: text };
      }),
    });
  }
  return out;
}

if (values.serve) {
  const server = await startIndexServer(projects(), { delayMs: DELAY });
  process.send!({ indexUrl: server.indexUrl });
  process.on('message', (message) => {
    if (message === 'close') void server.close().then(() => process.exit(0));
  });
} else {
  if (!existsSync(join(CHANNEL, 'linux-aarch64'))) {
    console.log(`skipped: ${CHANNEL} is missing`);
    process.exit(0);
  }
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);
  const child = fork(fileURLToPath(import.meta.url), ['--serve', '--delay', String(DELAY)], { execArgv: process.execArgv });
  const indexUrl = await new Promise<string>((ok) => child.once('message', (m: { indexUrl: string }) => ok(m.indexUrl)));
  const requirements = Array.from({ length: 40 }, (_, i) => `app${i}`);
  const ours = async (cacheDir: string, withPypi = true): Promise<{ ms: number; count: number }> => {
    const started = performance.now();
    const { stdout } = await run(
      process.execPath,
      [
        BIN,
        'python=3.9',
        'numpy',
        '-c',
        CHANNEL,
        '-p',
        'linux-aarch64',
        '--cache-dir',
        cacheDir,
        '-q',
        ...(withPypi ? ['--index-url', indexUrl, ...requirements.flatMap((r) => ['--pypi', r])] : []),
      ],
      { maxBuffer: 1 << 26 },
    );
    const ms = performance.now() - started;
    const [result] = JSON.parse(stdout) as { packages: { manager: string }[]; error: string | null }[];
    if (result!.error) throw new Error(result!.error);
    return { ms, count: result!.packages.filter((p) => p.manager === 'pip').length };
  };
  const pip = async (cacheDir: string | null, dir: string): Promise<{ ms: number; count: number }> => {
    const started = performance.now();
    await run(
      'python3',
      [
        '-m',
        'pip',
        'install',
        '--dry-run',
        '--quiet',
        '--report',
        join(dir, 'report.json'),
        '--ignore-installed',
        '--only-binary=:all:',
        '--platform',
        'manylinux2014_aarch64',
        '--python-version',
        '3.9',
        '--target',
        join(dir, 'target'),
        '--index-url',
        indexUrl,
        ...requirements,
      ],
      {
        env: {
          ...process.env,
          PIP_CONFIG_FILE: '/dev/null',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
          ...(cacheDir ? { PIP_CACHE_DIR: cacheDir } : { PIP_NO_CACHE_DIR: '1' }),
        },
      },
    );
    const report = JSON.parse(await (await import('node:fs/promises')).readFile(join(dir, 'report.json'), 'utf8')) as {
      install: unknown[];
    };
    return { ms: performance.now() - started, count: report.install.length };
  };
  const times: Record<string, number[]> = { oursCold: [], oursWarm: [], condaCold: [], pipCold: [], pipWarm: [] };
  let counts = '';
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-pypi-solve-'));
    try {
      const cold = await ours(join(dir, 'cache'));
      const warm = await ours(join(dir, 'cache'));
      times.oursCold!.push(cold.ms);
      // The same process without the PyPI part, from an empty cache: start-up and the conda cold
      // load, which a cold mixed run does whatever its PyPI client does.
      times.condaCold!.push((await ours(join(dir, 'conda-only-cache'), false)).ms);
      times.oursWarm!.push(warm.ms);
      counts = `ours ${cold.count} PyPI packages`;
      if (values['no-pip']) continue;
      const pipCold = await pip(null, dir);
      await pip(join(dir, 'pip-cache'), dir);
      const pipWarm = await pip(join(dir, 'pip-cache'), dir);
      times.pipCold!.push(pipCold.ms);
      times.pipWarm!.push(pipWarm.ms);
      counts += `, pip ${pipCold.count}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  child.send('close');
  const floor = 2 * 2 * DELAY;
  const line = (what: string, list: number[]): string =>
    `${what.padEnd(44)} median ${median(list).toFixed(0).padStart(6)} ms  (${list.map((t) => t.toFixed(0)).join(', ')})`;
  console.log(
    `conda python=3.9 numpy (defaults-main-2022 linux-aarch64) + 40 PyPI requirements (50 projects, 2 levels), ${DELAY} ms per answer; ${counts}`,
  );
  console.log(line('conda-resolve CLI, cold (empty cache)', times.oursCold!));
  console.log(line('conda-resolve CLI, warm (cache filled)', times.oursWarm!));
  if (!values['no-pip']) {
    console.log(line('pip install --dry-run --report, cold', times.pipCold!));
    console.log(line('pip install --dry-run --report, warm', times.pipWarm!));
    console.log(`warm: pip / conda-resolve = ${(median(times.pipWarm!) / median(times.oursWarm!)).toFixed(1)}x (target >= 10x)`);
  }
  console.log(line('conda-resolve CLI, conda part alone, cold', times.condaCold!));
  console.log(
    `cold: ${(median(times.oursCold!) / floor).toFixed(2)}x the PyPI latency floor of ${floor} ms alone (2 levels x page + metadata)`,
  );
  // A whole process cannot beat its own start-up and conda load: the floor of the cold mixed run is
  // that (measured above, same run) plus the PyPI round trips that must follow one another.
  const wholeFloor = median(times.condaCold!) + floor;
  console.log(
    `cold: ${(median(times.oursCold!) / wholeFloor).toFixed(2)}x the whole-run floor of ${wholeFloor.toFixed(0)} ms (conda part alone + ${floor} ms; target <= 1.5x)`,
  );
}
