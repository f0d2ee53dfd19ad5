/**
 * Worker side of the lazy-index sharing test: revives an index from a handle posted by the main
 * thread and answers with what it reads, plus whether the memory arrived shared (not copied).
 */
import { parentPort } from 'node:worker_threads';
import { reviveSubdirIndex, type SharedSubdirIndexHandle } from '../../repodata/monolithic.js';

interface Request {
  readonly handle: SharedSubdirIndexHandle;
  readonly names: readonly string[];
}

parentPort?.on('message', (request: Request) => {
  const index = reviveSubdirIndex(request.handle);
  const tables = request.handle.kind === 'conda-resolve/lazy-subdir-index' ? request.handle.tables : null;
  parentPort?.postMessage({
    recordCount: index.recordCount,
    nameCount: [...index.names()].length,
    records: Object.fromEntries(request.names.map((name) => [name, index.records(name)])),
    shared:
      request.handle.bytes.buffer instanceof SharedArrayBuffer && (tables === null || tables.recStart.buffer instanceof SharedArrayBuffer),
  });
});
