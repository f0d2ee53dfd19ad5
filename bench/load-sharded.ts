/**
 * Issue 3 benchmark (sharded repodata): a cold process loads what `python numpy pandas` needs from
 * the CEP 16 sharded layout of a conda-forge-scale channel, against `JSON.parse` of the whole
 * monolithic files, in the same run.
 *
 *   npx tsx bench/load-sharded.ts [--channel DIR] [--rounds N] [--specs "python numpy pandas"]
 *
 * Without `--channel`, the synthetic channel of `bench/generate-channel.ts` (465,000 linux-64 +
 * 100,000 noarch records) is generated once into `bench/out/channel-465k`; its sharded layout is
 * written once by `test/tools/shard-channel.ts` into `bench/out/channel-465k-sharded` and served
 * from a channel server on 127.0.0.1 (`test/helpers/channel-server.ts`). All git-ignored.
 *
 * Each measurement is its own child process (peak RSS is that run's VmHWM), going through
 * `RepodataStore.prepare([channel], ['linux-64', 'noarch'], specs)`, the resolve path:
 * - `JSON.parse` (the peer): read both monolithic files and `JSON.parse` them.
 * - `sharded, warm cache, fresh`: shard index and shards cached, index fresh: no network at all.
 * - `sharded, warm cache, revalidate`: the shard index is stale: one conditional request each
 *   (304), shards from the cache (they are immutable).
 * - `sharded, cold cache (loopback HTTP)`: empty cache: the shard indexes and every shard of the
 *   closure are fetched from the local server.
 * Time is measured inside the child from creating the store until `prepare` returns (every record
 * of the closure materialised); "process" adds Node/tsx start-up. Figures are medians.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ShardedSubdirIndex } from '../repodata/shards.js';
import { RepodataStore } from '../repodata/store.js';
import { parseChannel } from '../vocabulary/channel.js';
import { startChannelServer } from '../test/helpers/channel-server.js';
import { shardChannel } from '../test/tools/shard-channel.js';
import { generateChannel } from './generate-channel.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_CHANNEL = join(HERE, 'out', 'channel-465k');
const SUBDIRS = ['linux-64', 'noarch'];
const MODES = ['json-parse', 'warm-fresh', 'warm-revalidate', 'cold'] as const;
type Mode = (typeof MODES)[number];
const LABELS: Record<Mode, string> = {
  'json-parse': 'JSON.parse of both monolithic files (peer)',
  'warm-fresh': 'sharded, warm cache, fresh (no network)',
  'warm-revalidate': 'sharded, warm cache, revalidate (2 x 304)',
  cold: 'sharded, cold cache (loopback HTTP)',
};

interface ChildResult {
  readonly ms: number;
  readonly cpuMs: number;
  readonly maxRssMb: number;
  readonly names: number;
  readonly records: number;
  readonly processMs?: number;
}

/** VmHWM of this process (see bench/load-index.ts for why not getrusage). */
function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

async function runChild(mode: Mode, options: { channelDir: string; url: string; cacheDir: string; specs: string[] }): Promise<ChildResult> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  let names = 0;
  let records = 0;
  if (mode === 'json-parse') {
    for (const subdir of SUBDIRS) JSON.parse(readFileSync(join(options.channelDir, subdir, 'repodata.json'), 'utf8'));
  } else {
    const store = new RepodataStore({ cacheDir: options.cacheDir, ttlSeconds: mode === 'warm-revalidate' ? 0 : 3600 });
    try {
      const indexes = await store.prepare([parseChannel(options.url)], SUBDIRS, options.specs);
      const reached = new Set<string>();
      for (const index of indexes) {
        if (!(index instanceof ShardedSubdirIndex)) throw new Error(`expected a sharded index for ${index.subdir}`);
        for (const name of index.loadedNames()) {
          reached.add(name);
          records += index.records(name).length;
        }
      }
      names = reached.size;
    } finally {
      await store.close();
    }
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: peakRssMb(), names, records };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      channel: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      specs: { type: 'string', default: 'python numpy pandas' },
      child: { type: 'string' },
      url: { type: 'string' },
      cache: { type: 'string' },
    },
  });
  const channelDir = resolve(values.channel ?? DEFAULT_CHANNEL);
  const specs = (values.specs ?? '').split(/\s+/).filter(Boolean);

  if (values.child) {
    const result = await runChild(values.child as Mode, { channelDir, url: values.url ?? '', cacheDir: values.cache ?? '', specs });
    process.stdout.write(JSON.stringify(result));
    return;
  }

  if (!values.channel && !existsSync(join(channelDir, 'linux-64', 'repodata.json'))) {
    console.error(`generating the synthetic channel into ${channelDir} ...`);
    generateChannel({ out: channelDir });
  }
  const shardedDir = `${channelDir.replace(/\/+$/, '')}-sharded`;
  if (!SUBDIRS.every((subdir) => existsSync(join(shardedDir, subdir, 'repodata_shards.msgpack.zst')))) {
    console.error(`writing the sharded layout into ${shardedDir} ...`);
    const summary = await shardChannel({ source: channelDir, out: shardedDir, subdirs: SUBDIRS });
    for (const s of summary) console.error(`  ${s.subdir}: ${s.names} shards, ${s.records} records, index ${(s.indexBytes / 1e3).toFixed(0)} kB`);
  }
  for (const subdir of SUBDIRS) readFileSync(join(channelDir, subdir, 'repodata.json')); // warm the page cache

  const server = await startChannelServer({ root: dirname(shardedDir), maxAge: 3600 });
  const url = `${server.url}/${shardedDir.split('/').pop()}`;
  const warmCache = mkdtempSync(join(tmpdir(), 'cr-bench-sharded-warm-'));
  const coldCaches: string[] = [];
  const run = promisify(execFile);
  const child = async (mode: Mode, cacheDir: string): Promise<ChildResult> => {
    const started = performance.now();
    // Async, so this process's channel server keeps answering while the child runs.
    const { stdout } = await run(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--child', mode, '--channel', channelDir, '--url', url, '--cache', cacheDir, '--specs', specs.join(' ')],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    return { ...(JSON.parse(stdout) as ChildResult), processMs: performance.now() - started };
  };

  const results = new Map<Mode, ChildResult[]>();
  try {
    await child('cold', warmCache); // fill the warm cache
    const rounds = Math.max(1, Number(values.rounds));
    for (let round = 0; round < rounds; round++) {
      for (const mode of MODES) {
        let cacheDir = warmCache;
        if (mode === 'cold') {
          cacheDir = mkdtempSync(join(tmpdir(), 'cr-bench-sharded-cold-'));
          coldCaches.push(cacheDir);
        }
        results.set(mode, [...(results.get(mode) ?? []), await child(mode, cacheDir)]);
      }
    }
  } finally {
    await server.close();
    for (const dir of [warmCache, ...coldCaches]) rmSync(dir, { recursive: true, force: true });
  }

  const pick = (mode: Mode, key: keyof ChildResult): number => median((results.get(mode) ?? []).map((r) => r[key] ?? 0));
  const base = pick('json-parse', 'ms');
  const sample = (results.get('warm-fresh') ?? [])[0];
  const jsonBytes = SUBDIRS.reduce((sum, subdir) => sum + readFileSync(join(channelDir, subdir, 'repodata.json')).length, 0);
  console.log(`conda-resolve load-sharded benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version}, median of ${results.get('json-parse')?.length} cold processes)`);
  console.log(`channel: ${channelDir} (linux-64 + noarch, ${(jsonBytes / 1e6).toFixed(0)} MB of JSON), sharded at ${url}`);
  console.log(`closure of "${specs.join(' ')}": ${sample?.names} names, ${sample?.records} records; ratio = load time / JSON.parse time\n`);
  console.log(`| ${'mode'.padEnd(44)} | ${'load ms'.padStart(8)} | ${'ratio'.padStart(6)} | ${'CPU ms'.padStart(7)} | ${'process ms'.padStart(10)} | ${'peak RSS MB'.padStart(11)} |`);
  console.log(`|${'-'.repeat(46)}|${'-'.repeat(10)}|${'-'.repeat(8)}|${'-'.repeat(9)}|${'-'.repeat(12)}|${'-'.repeat(13)}|`);
  for (const mode of MODES) {
    const ms = pick(mode, 'ms');
    console.log(
      `| ${LABELS[mode].padEnd(44)} | ${ms.toFixed(0).padStart(8)} | ${(ms / base).toFixed(3).padStart(6)} | ${pick(mode, 'cpuMs').toFixed(0).padStart(7)} | ${pick(mode, 'processMs').toFixed(0).padStart(10)} | ${pick(mode, 'maxRssMb').toFixed(0).padStart(11)} |`,
    );
  }
}

await main();
