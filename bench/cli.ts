/**
 * Issue 5 benchmark: the CLI as a whole process against a Node script calling rattler's
 * `simpleSolve` for the same request (bench/rattler-cli.mjs), and against `node -e 0` (what
 * starting Node alone costs), interleaved in one run.
 *
 *   npx tsx bench/cli.ts [--rounds 15] [--baseline OTHER/dist/src/cli/bin.cjs]
 *
 * conda-forge-py39 is served on 127.0.0.1 (test/helpers/channel-server.ts, `max-age=3600`); our
 * CLI runs from dist/ (`npm run bench` builds first) with a warm disk cache (one untimed run
 * first, which also writes the CLI's V8 code cache), so it answers without network requests, as a
 * CI job with a restored cache does. rattler has no disk cache in WebAssembly: it fetches over
 * loopback each time. Requests: `python=3.9` for linux-64, and for linux-64 + osx-arm64 + win-64.
 * Figures: median wall time and peak RSS over `--rounds` rounds, the ratios ours / rattler and
 * ours / `node -e 0`, and our three-platform / one-platform ratio. Issue 13's targets for the
 * linux-64 row: under 0.25x rattler and under 2x `node -e 0`. Both sides' answers are checked to
 * pick the same python. `--baseline` adds another build of the CLI (a checkout of an earlier
 * commit) to every round, for a before/after in the same run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChannelServer } from '../test/helpers/channel-server.js';
import { CHANNELS_DIR, PROJECT_ROOT } from '../test/helpers/shared.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, baseline: { type: 'string' } } });
const rounds = Number(values.rounds);
const cli = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs');
const peer = join(PROJECT_ROOT, 'bench', 'rattler-cli.mjs');
if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
const haveTime = existsSync('/usr/bin/time');

const server = await startChannelServer({ root: CHANNELS_DIR, maxAge: 3600 });
const channel = `${server.url}/conda-forge-py39`;
const cacheDir = mkdtempSync(join(tmpdir(), 'cr-bench-cli-'));

interface Run {
  ms: number;
  rssMb: number | null;
  python: string[];
}

// The channel server lives in this process, so children run asynchronously (spawnSync would block it).
async function run(argv: string[], env: Record<string, string> = {}, answer = true): Promise<Run> {
  const command = haveTime ? '/usr/bin/time' : process.execPath;
  const args = haveTime ? ['-f', '%M', process.execPath, ...argv] : argv;
  const started = process.hrtime.bigint();
  const child = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const proc = spawn(command, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    proc.on('error', reject);
    proc.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0) throw new Error(`${argv.join(' ')} failed (${child.status}): ${child.stderr}`);
  const rss = haveTime ? Number(child.stderr.trim().split('\n').pop()) / 1024 : null;
  if (!answer) return { ms, rssMb: rss, python: [] };
  const results = JSON.parse(child.stdout) as { packages: { name: string; version: string }[] }[];
  return { ms, rssMb: rss, python: results.map((r) => r.packages.find((p) => p.name === 'python')?.version ?? '-') };
}

const platformSets = [['linux-64'], ['linux-64', 'osx-arm64', 'win-64']];
// The cache directory by variable, so the code cache (<cache>/code-cache) is kept there too.
const ours = (platforms: string[]) =>
  run([cli, '-c', channel, ...platforms.flatMap((p) => ['-p', p]), 'python=3.9'], { CONDA_RESOLVE_CACHE_DIR: cacheDir });
const theirs = (platforms: string[]) => run([peer, channel, platforms.join(','), 'python=3.9']);
const bareNode = () => run(['-e', '0'], {}, false);
const baselineDir = mkdtempSync(join(tmpdir(), 'cr-bench-cli-baseline-'));
const baseline = values.baseline;
const before = (platforms: string[]) =>
  run([baseline!, '-c', channel, ...platforms.flatMap((p) => ['-p', p]), 'python=3.9'], { CONDA_RESOLVE_CACHE_DIR: baselineDir });
const sides = [['conda-resolve', ours], ['rattler', theirs], ...(baseline ? [['baseline', before] as const] : [])] as const;

for (const platforms of platformSets) await ours(platforms); // warm our disk cache (and the page cache)
if (baseline) for (const platforms of platformSets) await before(platforms);
for (const platforms of platformSets) await theirs(platforms); // warm the peer's files in the page cache
await bareNode();

const samples = new Map<string, Run[]>();
for (let round = 0; round < rounds; round++) {
  const nodeRuns = samples.get('node') ?? [];
  nodeRuns.push(await bareNode());
  samples.set('node', nodeRuns);
  for (const platforms of platformSets) {
    for (const [who, fn] of sides) {
      const key = `${who}|${platforms.length}`;
      const list = samples.get(key) ?? [];
      list.push(await fn(platforms));
      samples.set(key, list);
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const summary = (key: string) => {
  const list = samples.get(key)!;
  return {
    ms: median(list.map((r) => r.ms)),
    rss: list[0]!.rssMb === null ? null : median(list.map((r) => r.rssMb!)),
    python: list[0]!.python,
  };
};

const node = summary('node');
console.log(`conda-forge-py39 over 127.0.0.1, python=3.9, ${rounds} interleaved rounds, median wall time of the whole process`);
console.log(`node -e 0: ${node.ms.toFixed(0)} ms, ${node.rss?.toFixed(0) ?? '-'} MB`);
console.log(
  '| platforms | conda-resolve ms | rattler ms | ratio (ours/rattler) | ratio (ours/node -e 0) | conda-resolve RSS MB | rattler RSS MB | python (ours / rattler) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const platforms of platformSets) {
  const a = summary(`conda-resolve|${platforms.length}`);
  const b = summary(`rattler|${platforms.length}`);
  console.log(
    `| ${platforms.join(' + ')} | ${a.ms.toFixed(0)} | ${b.ms.toFixed(0)} | ${(a.ms / b.ms).toFixed(2)} | ${(a.ms / node.ms).toFixed(2)} | ${a.rss?.toFixed(0) ?? '-'} | ${b.rss?.toFixed(0) ?? '-'} | ${a.python.join(',')} / ${b.python.join(',')} |`,
  );
}
if (baseline) {
  for (const platforms of platformSets) {
    const a = summary(`conda-resolve|${platforms.length}`);
    const b = summary(`baseline|${platforms.length}`);
    console.log(
      `baseline ${baseline}, ${platforms.join(' + ')}: ${b.ms.toFixed(0)} ms, ${b.rss?.toFixed(0) ?? '-'} MB (this build / baseline: ${(a.ms / b.ms).toFixed(2)})`,
    );
  }
}
const linux = summary('conda-resolve|1').ms;
const versusRattler = linux / summary('rattler|1').ms;
const versusNode = linux / node.ms;
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
console.log(
  `issue 13 targets (linux-64): under 0.25x rattler: ${versusRattler.toFixed(2)}x, ${verdict(versusRattler < 0.25)}; under 2x node -e 0: ${versusNode.toFixed(2)}x, ${verdict(versusNode < 2)}`,
);
const one = summary('conda-resolve|1').ms;
const three = summary('conda-resolve|3').ms;
console.log(`conda-resolve three platforms / one platform: ${(three / one).toFixed(2)}`);
await server.close();
rmSync(cacheDir, { recursive: true, force: true });
rmSync(baselineDir, { recursive: true, force: true });
