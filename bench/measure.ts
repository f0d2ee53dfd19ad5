/** Small measuring helpers the benchmarks share. */
import { readFileSync } from 'node:fs';
import { dependencyName } from '../repodata/sharded/closure.js';
import type { SubdirIndex } from '../repodata/types.js';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return 0;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median milliseconds of `rounds` runs of `run`, after one warm-up run. */
export function medianTime(rounds: number, run: () => unknown): number {
  run();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/**
 * This process's peak RSS in MB. On Linux, VmHWM of /proc/self/status: `getrusage`'s maxrss
 * survives fork+exec and would report the parent's high-water mark for a small child.
 */
export function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Every name reachable from `roots` through `depends` over the indexes, building all their records
 * on the way (what a solve reads); virtual packages (`__glibc`) are not followed.
 */
export function recordClosure(indexes: readonly SubdirIndex[], roots: readonly string[]): { names: number; records: number } {
  const seen = new Set<string>(roots);
  const queue = [...roots];
  let records = 0;
  while (queue.length > 0) {
    const name = queue.pop()!;
    for (const index of indexes) {
      for (const record of index.records(name)) {
        records++;
        for (const dep of record.depends) {
          const next = dependencyName(dep);
          if (next !== null && !next.startsWith('__') && !seen.has(next)) {
            seen.add(next);
            queue.push(next);
          }
        }
      }
    }
  }
  return { names: seen.size, records };
}

export interface LoadRow {
  readonly label: string;
  readonly ms: number;
  readonly cpuMs: number;
  readonly processMs: number;
  readonly maxRssMb: number;
}

/** The load benchmarks' table: one row per mode, the ratio against `baseMs` (the peer's time). */
export function printLoadTable(rows: readonly LoadRow[], baseMs: number): void {
  console.log(
    `| ${'mode'.padEnd(44)} | ${'load ms'.padStart(8)} | ${'ratio'.padStart(6)} | ${'CPU ms'.padStart(7)} | ${'process ms'.padStart(10)} | ${'peak RSS MB'.padStart(11)} |`,
  );
  console.log(`|${'-'.repeat(46)}|${'-'.repeat(10)}|${'-'.repeat(8)}|${'-'.repeat(9)}|${'-'.repeat(12)}|${'-'.repeat(13)}|`);
  for (const row of rows) {
    console.log(
      `| ${row.label.padEnd(44)} | ${row.ms.toFixed(0).padStart(8)} | ${(row.ms / baseMs).toFixed(3).padStart(6)} | ${row.cpuMs.toFixed(0).padStart(7)} | ${row.processMs.toFixed(0).padStart(10)} | ${row.maxRssMb.toFixed(0).padStart(11)} |`,
    );
  }
}
