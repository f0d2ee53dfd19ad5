/**
 * Indexing a freshly downloaded repodata.json off the calling thread. A scan costs about 10 ms per
 * MB on the thread that runs it; in a server that thread answers every request, so a large subdir
 * (conda-forge's linux-64 is 250 MB) would hold `/health` for seconds. Documents over a size run
 * the scan on a one-off worker thread, which writes the index sidecar; the caller then loads the
 * index from that sidecar as a warm start does. Smaller ones (and documents the lazy scan declines,
 * which the worker reports) are indexed on the calling thread.
 */
import { bundledWorker } from '../bundle-entry.js';
import type { WorkerOptions } from 'node:worker_threads';
import type { ChannelRef } from '../types.js';

/** Documents at least this large are scanned on a worker thread. */
export const WORKER_SCAN_BYTES = 8 * 1024 * 1024;

export interface ScanJob {
  readonly jsonPath: string;
  readonly sidecarPath: string;
  readonly source: { readonly channel: ChannelRef; readonly subdir: string };
}

/** `sidecar`: written, load from it; `eager`: the lazy scan declined (index on this thread). */
export type ScanOutcome = { kind: 'sidecar' } | { kind: 'eager' } | { kind: 'parse-error'; message: string } | { kind: 'error'; message: string };

/**
 * The worker's entry: the compiled file, or, when running from the TypeScript source (tests), a
 * bootstrap that registers tsx inside the worker first (Node 20 does not pass `--import tsx` on to
 * worker threads).
 */
function workerEntry(): { source: URL | string; options: WorkerOptions } {
  const bundled = bundledWorker('scan');
  if (bundled) return bundled;
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./worker-scan-entry.ts', here).href;
    return { source: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`, options: { eval: true } };
  }
  return { source: new URL('./worker-scan-entry.js', here), options: {} };
}

/**
 * Scans `job.jsonPath` on a worker thread, which writes `job.sidecarPath`. (`worker_threads` is
 * loaded here, not at import: a warm start never scans.)
 */
export async function scanOnWorker(job: ScanJob): Promise<ScanOutcome> {
  const { Worker } = await import('node:worker_threads');
  const { source, options } = workerEntry();
  return new Promise<ScanOutcome>((resolve) => {
    const worker = new Worker(source, { ...options, workerData: job });
    let settled = false;
    const settle = (outcome: ScanOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
      void worker.terminate();
    };
    worker.once('message', (outcome: ScanOutcome) => settle(outcome));
    worker.once('error', (error) => settle({ kind: 'error', message: error.message }));
    worker.once('exit', (code) => settle({ kind: 'error', message: `the indexing thread stopped (exit ${code})` }));
  });
}
