/**
 * Issue 3 benchmark (sharded repodata): a cold process loads what `python numpy pandas` needs from
 * the CEP 16 sharded layout of a conda-forge-scale channel, against `JSON.parse` of the whole
 * monolithic files, in the same run.
 *
 *   npx tsx bench/load-sharded.ts [--channel DIR] [--rounds N] [--specs "python numpy pandas"] [--part all|scale|store]
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
 *
 * A second part (`--part store`; both parts run by default) times `RepodataStore.prepare` over
 * loopback for the shared snapshot `conda-forge-py39` (linux-64 + noarch, roots `python`) served
 * three ways: plain `repodata.json`, `repodata.json.zst` and sharded. Per layout, `cold` is a new
 * process with an empty cache, `warm` a new process with a fresh disk cache (no request), and `hot`
 * the second `prepare` of the same store in the warm process (the index in memory). The peer is
 * `JSON.parse` of the two files in a child of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ShardedSubdirIndex } from '../repodata/sharded/sharded-subdir.js';
import { RepodataStore } from '../repodata/store.js';
import { parseChannel } from '../vocabulary/channel.js';
import { startChannelServer, type ChannelServer } from '../test/helpers/channel-server.js';
import { shardChannel } from '../test/tools/shard-channel.js';
import { generateChannel } from './generate-channel.js';
import { median, peakRssMb, printLoadTable, recordClosure } from './measure.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_CHANNEL = join(HERE, 'out', 'channel-465k');
/** The shared snapshots, as test/helpers/shared.ts finds them (not imported: it loads vitest). */
const CHANNELS_DIR = join(resolve(HERE, '..', process.env.CONDA_RESOLVE_SHARED_DIR ?? '../shared'), 'channels');
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

// ---- part 2: RepodataStore.prepare over loopback, conda-forge-py39 -------------------------------

const STORE_LAYOUTS = ['json', 'zst', 'shards'] as const;
type StoreLayout = (typeof STORE_LAYOUTS)[number];
const STORE_LABELS: Record<StoreLayout, string> = { json: 'plain repodata.json', zst: 'repodata.json.zst', shards: 'sharded (CEP 16)' };

interface StoreChildResult {
  /** The first `prepare` of the process (cold or warm, by the cache given). */
  readonly ms: number;
  readonly cpuMs: number;
  /** After the first `prepare`: building every record of the closure of `python` (what a solve reads). */
  readonly closureMs: number;
  /** The second `prepare` of the same store. */
  readonly hotMs: number;
  readonly maxRssMb: number;
  /** Records in memory after `prepare` (sharded: those of the closure of `python`). */
  readonly records: number;
  readonly processMs?: number;
}

async function runStoreChild(layout: StoreLayout, url: string, cacheDir: string): Promise<StoreChildResult> {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const store = new RepodataStore({ cacheDir });
  try {
    const channel = parseChannel(url);
    const indexes = await store.prepare([channel], SUBDIRS, ['python']);
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuStart);
    const closureStarted = performance.now();
    recordClosure(indexes, ['python']);
    const closureMs = performance.now() - closureStarted;
    const hotStarted = performance.now();
    const again = await store.prepare([channel], SUBDIRS, ['python']);
    const hotMs = performance.now() - hotStarted;
    if (again.some((index, i) => index !== indexes[i])) throw new Error('the second prepare built new indexes');
    if (indexes.some((index) => index instanceof ShardedSubdirIndex) !== (layout === 'shards'))
      throw new Error(`unexpected index kind for ${layout}`);
    const records = indexes.reduce((sum, index) => sum + index.recordCount, 0);
    return { ms, cpuMs: (cpu.user + cpu.system) / 1000, closureMs, hotMs, maxRssMb: peakRssMb(), records };
  } finally {
    await store.close();
  }
}

function runPeerChild(): ChildResult {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  for (const subdir of SUBDIRS) JSON.parse(readFileSync(join(CHANNELS_DIR, 'conda-forge-py39', subdir, 'repodata.json'), 'utf8'));
  const cpu = process.cpuUsage(cpuStart);
  return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: peakRssMb(), names: 0, records: 0 };
}

async function storePart(rounds: number): Promise<void> {
  if (!existsSync(join(CHANNELS_DIR, 'conda-forge-py39'))) {
    console.log(`\nstore part skipped: ${CHANNELS_DIR} is missing`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'cr-bench-store-'));
  const servers: ChannelServer[] = [];
  const run = promisify(execFile);
  const child = async (args: string[]): Promise<{ stdout: string; processMs: number }> => {
    const started = performance.now();
    const { stdout } = await run(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    return { stdout, processMs: performance.now() - started };
  };
  const results = new Map<string, StoreChildResult[]>();
  const peer: ChildResult[] = [];
  try {
    const source = join(CHANNELS_DIR, 'conda-forge-py39');
    await shardChannel({ source, out: join(work, 'shards', 'conda-forge-py39'), subdirs: SUBDIRS });
    await shardChannel({ source, out: join(work, 'zst', 'conda-forge-py39'), subdirs: SUBDIRS, shards: false, zst: true });
    // max-age 1 h: a warm cache is fresh, so a warm start sends no request.
    const plain = await startChannelServer({ root: CHANNELS_DIR, maxAge: 3600 });
    plain.intercept = (req, res) => {
      if (!/(\.zst)$/.test(new URL(req.url ?? '/', 'http://x').pathname)) return false;
      res.writeHead(404).end();
      return true;
    };
    servers.push(
      plain,
      await startChannelServer({ root: join(work, 'zst'), maxAge: 3600 }),
      await startChannelServer({ root: join(work, 'shards'), maxAge: 3600 }),
    );
    const urls: Record<StoreLayout, string> = {
      json: `${servers[0]!.url}/conda-forge-py39`,
      zst: `${servers[1]!.url}/conda-forge-py39`,
      shards: `${servers[2]!.url}/conda-forge-py39`,
    };
    for (let round = 0; round < rounds; round++) {
      const { stdout, processMs } = await child(['--child', 'py39-json-parse']);
      peer.push({ ...(JSON.parse(stdout) as ChildResult), processMs });
      for (const layout of STORE_LAYOUTS) {
        const cacheDir = mkdtempSync(join(work, `cache-${layout}-`));
        for (const phase of ['cold', 'warm']) {
          // The cold run fills the cache the warm run then starts from.
          const out = await child(['--child', 'store', '--layout', layout, '--url', urls[layout], '--cache', cacheDir]);
          const key = `${layout}:${phase}`;
          results.set(key, [...(results.get(key) ?? []), { ...(JSON.parse(out.stdout) as StoreChildResult), processMs: out.processMs }]);
        }
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(work, { recursive: true, force: true });
  }

  const pick = (key: string, field: keyof StoreChildResult): number => median((results.get(key) ?? []).map((r) => r[field] ?? 0));
  const base = median(peer.map((r) => r.ms));
  console.log(
    `\nRepodataStore.prepare over loopback: conda-forge-py39 linux-64 + noarch, roots "python" (median of ${peer.length} rounds)`,
  );
  console.log(
    `peer: JSON.parse of both files ${base.toFixed(1)} ms (${median(peer.map((r) => r.maxRssMb)).toFixed(0)} MB peak); ratio = (warm + closure) / that`,
  );
  console.log('warm + closure = warm prepare, then every record of the closure of python built (what a solve reads)\n');
  const header = [
    'layout',
    'cold ms',
    'warm ms',
    'warm + closure',
    'hot ms',
    'ratio',
    'warm CPU ms',
    'warm process ms',
    'peak RSS MB',
    'records',
  ];
  console.log(`| ${header.map((h, i) => (i === 0 ? h.padEnd(20) : h)).join(' | ')} |`);
  console.log(`|${header.map((h, i) => '-'.repeat((i === 0 ? 20 : h.length) + 2)).join('|')}|`);
  for (const layout of STORE_LAYOUTS) {
    const warm = `${layout}:warm`;
    const cells = [
      pick(`${layout}:cold`, 'ms').toFixed(1),
      pick(warm, 'ms').toFixed(1),
      (pick(warm, 'ms') + pick(warm, 'closureMs')).toFixed(1),
      pick(warm, 'hotMs').toFixed(2),
      ((pick(warm, 'ms') + pick(warm, 'closureMs')) / base).toFixed(2),
      pick(warm, 'cpuMs').toFixed(0),
      pick(warm, 'processMs').toFixed(0),
      pick(warm, 'maxRssMb').toFixed(0),
      String(pick(warm, 'records')),
    ];
    console.log(`| ${STORE_LABELS[layout].padEnd(20)} | ${cells.map((c, i) => c.padStart(header[i + 1]!.length)).join(' | ')} |`);
  }
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
      layout: { type: 'string' },
      part: { type: 'string', default: 'all' },
    },
  });
  const channelDir = resolve(values.channel ?? DEFAULT_CHANNEL);
  const specs = (values.specs ?? '').split(/\s+/).filter(Boolean);

  if (values.child === 'store') {
    process.stdout.write(JSON.stringify(await runStoreChild(values.layout as StoreLayout, values.url ?? '', values.cache ?? '')));
    return;
  }
  if (values.child === 'py39-json-parse') {
    process.stdout.write(JSON.stringify(runPeerChild()));
    return;
  }
  if (values.child) {
    const result = await runChild(values.child as Mode, { channelDir, url: values.url ?? '', cacheDir: values.cache ?? '', specs });
    process.stdout.write(JSON.stringify(result));
    return;
  }

  if (values.part !== 'all' && values.part !== 'scale' && values.part !== 'store')
    throw new Error(`--part must be all, scale or store, not ${values.part}`);
  if (values.part === 'store') {
    await storePart(Math.max(1, Number(values.rounds)));
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
    for (const s of summary)
      console.error(`  ${s.subdir}: ${s.names} shards, ${s.records} records, index ${(s.indexBytes / 1e3).toFixed(0)} kB`);
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
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--child',
        mode,
        '--channel',
        channelDir,
        '--url',
        url,
        '--cache',
        cacheDir,
        '--specs',
        specs.join(' '),
      ],
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
  console.log(
    `conda-resolve load-sharded benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version}, median of ${results.get('json-parse')?.length} cold processes)`,
  );
  console.log(`channel: ${channelDir} (linux-64 + noarch, ${(jsonBytes / 1e6).toFixed(0)} MB of JSON), sharded at ${url}`);
  console.log(`closure of "${specs.join(' ')}": ${sample?.names} names, ${sample?.records} records; ratio = load time / JSON.parse time\n`);
  printLoadTable(
    MODES.map((mode) => ({
      label: LABELS[mode],
      ms: pick(mode, 'ms'),
      cpuMs: pick(mode, 'cpuMs'),
      processMs: pick(mode, 'processMs'),
      maxRssMb: pick(mode, 'maxRssMb'),
    })),
    base,
  );
  if (values.part === 'all') await storePart(Math.max(1, Number(values.rounds)));
}

await main();
