/**
 * The entry point for turning one repodata.json into a `SubdirIndex`: the lazy index when its scan
 * can reproduce the document exactly, else the eager parse. Plus the thread-sharing handle of either.
 */
import { EagerSubdirIndex, type SharedEagerIndexHandle } from './eager-index.js';
import { LazySubdirIndex, type SharedLazyIndexHandle } from './lazy-index.js';
import { RepodataIndexUnsupportedError } from './parse-errors.js';
import type { RepodataSource } from './record-normalise.js';
import type { SubdirIndex } from './types.js';

export type SharedSubdirIndexHandle = SharedLazyIndexHandle | SharedEagerIndexHandle;

/** A `SubdirIndex` that can cross to worker threads. */
export interface ShareableSubdirIndex extends SubdirIndex {
  toShared(): SharedSubdirIndexHandle;
  /** Release what the index holds open (a file-backed lazy index closes its file). */
  close(): void;
}

/**
 * Index a whole repodata.json. Throws `RepodataParseError` (or `RepodataVersionError`) when the
 * document is bad; never a raw SyntaxError.
 */
export function indexRepodata(bytes: Uint8Array, source: RepodataSource): ShareableSubdirIndex {
  try {
    return LazySubdirIndex.fromBytes(bytes, source);
  } catch (error) {
    if (!(error instanceof RepodataIndexUnsupportedError)) throw error;
    return new EagerSubdirIndex(bytes, source);
  }
}

/** Rebuild, in this thread, an index handed over by `toShared()` in another. */
export function reviveSubdirIndex(handle: SharedSubdirIndexHandle): ShareableSubdirIndex {
  return handle.kind === 'conda-resolve/lazy-subdir-index' ? LazySubdirIndex.fromShared(handle) : EagerSubdirIndex.fromShared(handle);
}
