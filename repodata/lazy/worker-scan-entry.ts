/**
 * Worker thread entry of `worker-scan.ts`: scan one cached repodata.json and write its index
 * sidecar, so the thread that asked only reads the sidecar (milliseconds) instead of scanning the
 * whole document (seconds at conda-forge's size) on an event loop that answers other requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RepodataParseError } from '../parse-errors.js';
import { loadIndexFromCache } from './cached-repodata.js';
import type { ScanJob, ScanOutcome } from './worker-scan.js';

const job = workerData as ScanJob;
let outcome: ScanOutcome;
try {
  const loaded = loadIndexFromCache({ jsonPath: job.jsonPath, sidecarPath: job.sidecarPath, source: job.source, bytes: 'positional', writeSidecar: true });
  outcome = { kind: loaded.from === 'eager' ? 'eager' : 'sidecar' };
} catch (error) {
  outcome =
    error instanceof RepodataParseError
      ? { kind: 'parse-error', message: error.message }
      : { kind: 'error', message: error instanceof Error ? error.message : String(error) };
}
parentPort!.postMessage(outcome);
