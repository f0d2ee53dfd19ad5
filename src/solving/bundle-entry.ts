/**
 * When conda-resolve runs as one bundled file (the action's `action/conda-resolve.mjs`), there
 * are no separate worker files beside it: the bundle is every worker thread's entry too, told
 * its role by an argument. The bundle's entry calls `setBundleEntry` before anything else; the
 * places that start workers (the solve pool) ask `bundledWorker` first.
 */
import { createRequire } from 'node:module';
import type { WorkerOptions } from 'node:worker_threads';

export type WorkerRole = 'solve';

const KEY = Symbol.for('conda-resolve.bundle-entry');
const ROLE_FLAG = '--conda-resolve-worker=';

type Global = Record<symbol, unknown>;

export function setBundleEntry(url: string): void {
  (globalThis as Global)[KEY] = url;
}

/** The worker entry when running as a bundle, else undefined (the compiled or source files apply). */
export function bundledWorker(role: WorkerRole): { source: URL; options: WorkerOptions } | undefined {
  const url = (globalThis as Global)[KEY];
  return typeof url === 'string' ? { source: new URL(url), options: { argv: [`${ROLE_FLAG}${role}`] } } : undefined;
}

/** In a worker thread started from the bundle: its role. */
export function workerRole(argv: readonly string[]): WorkerRole | undefined {
  const flag = argv.find((a) => a.startsWith(ROLE_FLAG));
  const role = flag?.slice(ROLE_FLAG.length);
  return role === 'solve' ? role : undefined;
}

/**
 * Whether this is the main thread. The bundle's pool threads carry a role flag, so worker_threads
 * (~3 ms to load, and not otherwise needed by a resolve on one platform) is asked only when the
 * flag is there.
 */
export function onMainThread(argv: readonly string[] = process.argv): boolean {
  if (workerRole(argv) === undefined) return true;
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  return threads.isMainThread;
}
