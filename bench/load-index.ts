/**
 * Issue 3 benchmark (monolithic repodata): a cold process loads what `python numpy pandas` needs
 * from a conda-forge-scale channel on a warm disk cache, against `JSON.parse` of the whole files.
 *
 *   npx tsx bench/load-index.ts [--channel DIR] [--rounds N] [--specs "python numpy pandas"]
 *
 * Without `--channel`, the synthetic channel of `bench/generate-channel.ts` (465,000 linux-64 +
 * 100,000 noarch records, seed 1) is generated once into `bench/out/channel-465k` (git-ignored).
 * Both files are read once first, so they sit in the page cache ("warm disk cache").
 *
 * Each measurement runs in its own child process, so peak RSS is that run's. "What the solve needs"
 * is the closure of names reachable from the specs through `depends`, over linux-64 and noarch:
 * every record of each reached name is materialised. Modes:
 * - `JSON.parse` (the peer): read both files, `JSON.parse` them; no records built.
 * - `eager`: `parseRepodata` (JSON.parse + normalise every record) of both files.
 * - `lazy, scan`: read both files, scan them (no sidecar), parse the closure's records.
 * - `lazy, sidecar`: index sidecars present: read sidecar + JSON (whole), no scan, parse the closure.
 * - `lazy, sidecar, positional`: as above, reading only the closure's byte spans from the files.
 * Time is measured inside the child from the start of loading until the closure is built; the
 * process column adds Node/tsx start-up (what a CLI user waits for). Figures are medians.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadIndexFromCache } from '../repodata/lazy/cached-repodata.js';
import { parseRepodata } from '../repodata/parse.js';
import type { ChannelRef } from '../repodata/types.js';
import { generateChannel } from './generate-channel.js';
import { median, peakRssMb, printLoadTable, recordClosure } from './measure.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_CHANNEL = join(HERE, 'out', 'channel-465k');
const SUBDIRS = ['linux-64', 'noarch'] as const;
const MODES = ['json-parse', 'eager', 'lazy-scan', 'lazy-sidecar', 'lazy-sidecar-positional'] as const;
type Mode = (typeof MODES)[number];
const LABELS: Record<Mode, string> = {
  'json-parse': 'JSON.parse of both files (peer)',
  eager: 'eager parseRepodata of both files',
  'lazy-scan': 'lazy, scan (no sidecar) + closure',
  'lazy-sidecar': 'lazy, sidecar + whole JSON + closure',
  'lazy-sidecar-positional': 'lazy, sidecar + positional reads + closure',
};

interface ChildResult {
  readonly ms: number;
  /** User + system CPU time of the load, less sensitive than wall time to a busy machine. */
  readonly cpuMs: number;
  readonly maxRssMb: number;
  readonly closureNames: number;
  readonly closureRecords: number;
  readonly processMs?: number;
}

function runChild(mode: Mode, channelDir: string, specs: readonly string[]): ChildResult {
  const channel: ChannelRef = { name: 'synthetic', baseUrl: `file://${channelDir}` };
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  let result = { names: 0, records: 0 };
  const paths = SUBDIRS.map((subdir) => join(channelDir, subdir, 'repodata.json'));
  if (mode === 'json-parse') {
    for (const path of paths) JSON.parse(readFileSync(path, 'utf8'));
  } else if (mode === 'eager') {
    const all = paths.map((path, i) => parseRepodata(readFileSync(path), { channel, subdir: SUBDIRS[i] }).records);
    result = { names: 0, records: all.reduce((sum, list) => sum + list.length, 0) };
  } else if (mode === 'lazy-scan') {
    // The cache's code path with no sidecar: read into shared memory, scan.
    const loaded = paths.map((jsonPath, i) =>
      loadIndexFromCache({
        jsonPath,
        sidecarPath: `${jsonPath}.absent-index`,
        source: { channel, subdir: SUBDIRS[i] },
        writeSidecar: false,
      }),
    );
    if (loaded.some((l) => l.from !== 'scan')) throw new Error('expected a scan');
    result = recordClosure(
      loaded.map((l) => l.index),
      specs,
    );
  } else {
    const bytes = mode === 'lazy-sidecar' ? 'memory' : 'positional';
    const loaded = paths.map((jsonPath, i) =>
      loadIndexFromCache({ jsonPath, source: { channel, subdir: SUBDIRS[i] }, bytes, writeSidecar: false }),
    );
    if (loaded.some((l) => l.from !== 'sidecar')) throw new Error('sidecar missing or stale');
    result = recordClosure(
      loaded.map((l) => l.index),
      specs,
    );
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: peakRssMb(), closureNames: result.names, closureRecords: result.records };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      channel: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      specs: { type: 'string', default: 'python numpy pandas' },
      child: { type: 'string' },
    },
  });
  const channelDir = resolve(values.channel ?? DEFAULT_CHANNEL);
  const specs = (values.specs ?? '').split(/\s+/).filter(Boolean);

  if (values.child) {
    process.stdout.write(JSON.stringify(runChild(values.child as Mode, channelDir, specs)));
    return;
  }

  if (!values.channel && !existsSync(join(channelDir, 'linux-64', 'repodata.json'))) {
    console.error(`generating the synthetic channel into ${channelDir} ...`);
    generateChannel({ out: channelDir });
  }
  const paths = SUBDIRS.map((subdir) => join(channelDir, subdir, 'repodata.json'));
  let totalBytes = 0;
  for (const path of paths) totalBytes += readFileSync(path).length; // warm the page cache
  // Fresh sidecars for the sidecar modes (written by a scan, as the disk cache would).
  for (const [i, jsonPath] of paths.entries()) {
    rmSync(`${jsonPath}.index`, { force: true });
    loadIndexFromCache({
      jsonPath,
      source: { channel: { name: 'synthetic', baseUrl: `file://${channelDir}` }, subdir: SUBDIRS[i] },
    }).index.close();
  }

  const rounds = Math.max(1, Number(values.rounds));
  const results = new Map<Mode, ChildResult[]>();
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) {
      const started = performance.now();
      const child = spawnSync(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), '--child', mode, '--channel', channelDir, '--specs', specs.join(' ')],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      );
      const processMs = performance.now() - started;
      if (child.status !== 0) throw new Error(`child ${mode} failed: ${child.stderr}`);
      const result = JSON.parse(child.stdout) as ChildResult;
      results.set(mode, [...(results.get(mode) ?? []), { ...result, processMs }]);
    }
  }

  const pick = (mode: Mode, key: keyof ChildResult): number => median((results.get(mode) ?? []).map((r) => r[key] ?? 0));
  const base = pick('json-parse', 'ms');
  const sample = (results.get('lazy-scan') ?? [])[0];
  console.log(
    `conda-resolve load-index benchmark (${new Date().toISOString().slice(0, 10)}, node ${process.version}, median of ${rounds} cold processes)`,
  );
  console.log(`channel: ${channelDir} (linux-64 + noarch, ${(totalBytes / 1e6).toFixed(0)} MB of JSON)`);
  console.log(
    `closure of "${specs.join(' ')}": ${sample?.closureNames} names, ${sample?.closureRecords} records; ratio = load time / JSON.parse time\n`,
  );
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
}

main();
