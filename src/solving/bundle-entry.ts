/**
 * When conda-resolve runs as one bundled file (the action's `action/conda-resolve.mjs`, the CLI's
 * `dist/cli/conda-resolve.cjs`), there are no separate worker files beside it: the bundle is every
 * worker thread's entry too, told its role by an argument. The bundle's entry (src/cli/launch/)
 * calls `setBundleEntry` before anything else; the solve pool asks `bundledWorker` first.
 */
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
