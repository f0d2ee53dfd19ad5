/**
 * `npx tsx bench/pypi-index.ts [--rounds N] [--delay MS]`: the simple-index client walking the
 * dependency graph of 60 projects on a local index that adds 50 ms to every answer (a far index),
 * as a resolver would: each project's page, its newest wheel's metadata (a third of the wheels have
 * no `.metadata` file and are read by range requests), then its dependencies' pages, and so on.
 *
 * The latency floor: the graph is `DEPTH` levels deep, and each level needs two answers one after
 * the other (the page names the wheel, the wheel gives the metadata), so no client can finish in
 * less than 2 x DEPTH x delay; the target is within 1.5x of it. Also measured: the same walk from a
 * fresh cache (no request at all) and from a stale one (every page revalidated, 304s).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PypiIndexClient } from '../repodata/pypi/client.js';
import type { PypiProject } from '../repodata/pypi/types.js';
import { requiresDistOf } from '../vocabulary/pypi/core-metadata.js';
import { normalizePypiName } from '../vocabulary/pypi/name.js';
import { buildWheel, metadataText, startIndexServer, type IndexProject } from '../test/helpers/pypi-index.js';
import { comparePypiVersions, parsePypiVersion } from '../vocabulary/pypi/version.js';
import { median } from './measure.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    delay: { type: 'string', default: '50' },
    serve: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const DELAY = Number(values.delay);

/** Levels of the graph: 1 root, then 7, 22, 30 projects (60 in all); each depends on 2-3 of the next level. */
const LEVELS = [1, 7, 22, 30];
const DEPTH = LEVELS.length;

function graph(): IndexProject[] {
  const names = LEVELS.map((width, level) => Array.from({ length: width }, (_, i) => `lvl${level}-pkg${i}`));
  const projects: IndexProject[] = [];
  let n = 0;
  names.forEach((level, depth) => {
    const next = names[depth + 1] ?? [];
    level.forEach((name, i) => {
      // Every project of the next level is someone's dependency.
      const requires =
        next.length === 0
          ? []
          : [...new Set([i, i + level.length, i + 2 * level.length].map((k) => next[k % next.length]!))].map(
              (dep) => `${dep}>=1.0; python_version >= "3.8"`,
            );
      for (let k = 0; k < next.length; k++)
        if (k % level.length === i && !requires.some((r) => r.startsWith(`${next[k]}>`))) requires.push(`${next[k]}>=1.0`);
      const files = ['1.0', '1.1', '2.0'].map((version) => {
        const text = metadataText(name, version, requires);
        const wheel = buildWheel(name, version, text, { padding: 20_000 });
        return { filename: wheel.filename, bytes: wheel.bytes, ...(n % 3 === 0 ? {} : { metadata: text }) };
      });
      n++;
      projects.push({ name, files });
    });
  });
  return projects;
}

/** Walk from the root: page, newest wheel's metadata, dependencies; returns projects and metadata read. */
async function walk(client: PypiIndexClient): Promise<{ projects: number; ms: number; cpuMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const seen = new Set<string>();
  const visit = async (name: string): Promise<void> => {
    if (seen.has(name)) return;
    seen.add(name);
    const project: PypiProject = await client.getProject(name);
    const newest = project.files.reduce(
      (best, file) => {
        const version = parsePypiVersion(file.filename.split('-')[1]!);
        return best === null || comparePypiVersions(version, best.version) > 0 ? { file, version } : best;
      },
      null as null | { file: PypiProject['files'][number]; version: ReturnType<typeof parsePypiVersion> },
    );
    const { metadata } = await client.getMetadata(newest!.file);
    await Promise.all(requiresDistOf(metadata).map((requirement) => visit(normalizePypiName(requirement.name))));
  };
  await visit('lvl0-pkg0');
  const used = process.cpuUsage(cpu);
  return { projects: seen.size, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

// The index runs in its own process, as a far index runs on its own machine: its work is not the client's.
if (process.argv.includes('--serve')) {
  const served = await startIndexServer(graph(), { delayMs: DELAY, cacheControl: 'max-age=600' });
  process.send!({ indexUrl: served.indexUrl });
  process.on('message', (message: string) => {
    if (message === 'count') process.send!({ count: served.requests.length });
    else void served.close().then(() => process.exit(0));
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', '--delay', String(DELAY)], { execArgv: process.execArgv });
  const ask = <T>(message: string | null, field: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (reply: Record<string, T>): void => {
        if (field in reply) {
          child.off('message', on);
          resolve(reply[field]!);
        }
      };
      child.on('message', on);
      if (message !== null) child.send(message);
    });
  const server = { indexUrl: await ask<string>(null, 'indexUrl'), count: () => ask<number>('count', 'count') };
  const floor = 2 * DEPTH * DELAY;
  console.log(
    `60 projects, ${DEPTH} levels (${LEVELS.join(', ')}), ${DELAY} ms per answer; floor 2 x ${DEPTH} x ${DELAY} ms = ${floor} ms (page then metadata at each level)`,
  );
  const cpu: Record<string, number[]> = { cold: [], fresh: [], stale: [] };
  const cold: number[] = [];
  const fresh: number[] = [];
  const stale: number[] = [];
  let requests = { cold: 0, fresh: 0, stale: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const cacheDir = mkdtempSync(join(tmpdir(), 'bench-pypi-'));
    try {
      let now = Date.now();
      const run = async (into: number[], key: keyof typeof requests): Promise<void> => {
        const client = new PypiIndexClient({ indexUrl: server.indexUrl, cacheDir, now: () => now });
        const before = await server.count();
        const { projects, ms, cpuMs } = await walk(client);
        cpu[key]!.push(cpuMs);
        await client.close();
        if (projects !== 60) throw new Error(`walked ${projects} projects, not 60`);
        into.push(ms);
        requests = { ...requests, [key]: (await server.count()) - before };
      };
      await run(cold, 'cold');
      await run(fresh, 'fresh');
      now += 3600_000;
      await run(stale, 'stale');
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }
  child.send('close');
  // Each mode against its own floor: a stale cache revalidates pages (one answer per level), the metadata is cached.
  const line = (what: string, times: number[], count: number, modeFloor: number): string =>
    `${what.padEnd(34)} median ${median(times).toFixed(0).padStart(5)} ms  (${times.map((t) => t.toFixed(0)).join(', ')})  ${count} requests` +
    (modeFloor > 0 ? `  ${(median(times) / modeFloor).toFixed(2)}x its floor of ${modeFloor} ms` : '');
  // CPU of the client process during the walk: on a loaded machine the walk waits for a core, and
  // wall time minus the floor is mostly that.
  const cpuLine = (key: string): string => `  cpu ${median(cpu[key]!).toFixed(0)} ms`;
  console.log(line('cold (empty cache)', cold, requests.cold, floor) + cpuLine('cold'));
  console.log(line('fresh cache (max-age=600)', fresh, requests.fresh, 0) + cpuLine('fresh'));
  console.log(line('stale cache (revalidated, 304s)', stale, requests.stale, DEPTH * DELAY) + cpuLine('stale'));
  const ratio = median(cold) / floor;
  console.log(
    `cold walk: median ${ratio.toFixed(2)}x, best ${(Math.min(...cold) / floor).toFixed(2)}x the latency floor (target <= 1.5x): ${ratio <= 1.5 ? 'met' : 'NOT met'}; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  );
}
