/**
 * The entry of the action's one-file CLI (`action/conda-resolve.mjs`, built by
 * scripts/build-action.mjs): on the main thread it is `bin.ts`; started again as a worker thread
 * (the solve pool) it runs that worker's module. See repodata/bundle-entry.ts.
 */
import { isMainThread } from 'node:worker_threads';
import { setBundleEntry, workerRole } from '../../solving/bundle-entry.js';

setBundleEntry(import.meta.url);
if (isMainThread) {
  await import('../bin.js');
} else {
  const role = workerRole(process.argv);
  if (role === 'solve') await import('../../solving/solve-worker.js');
  else throw new Error('conda-resolve bundle: a worker thread was started without a role');
}
