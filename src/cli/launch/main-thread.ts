/**
 * Whether this is the main thread, without loading worker_threads on it (README.md: a warm
 * resolve on one platform has no other use for it). The bundle's pool threads carry a role flag,
 * so worker_threads is asked only when the flag is there.
 */
import { createRequire } from 'node:module';
import { workerRole } from '../../solving/bundle-entry.js';

export function onMainThread(argv: readonly string[] = process.argv): boolean {
  if (workerRole(argv) === undefined) return true;
  const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  return threads.isMainThread;
}
