/**
 * Temporary files this process is writing and has not yet renamed into place or removed: downloads
 * on their way into the cache, decompressed local `.zst` files, cache states and shards. A command
 * stopped by a signal (Ctrl-C) removes them first (`removeTempFiles`, called by the CLI): otherwise
 * an interrupted cold download leaves its hundreds of megabytes in the cache folder until a later
 * run's cleanup, which waits an hour because another process may still be writing such a file.
 * Files written synchronously (the sidecars) need no entry here: no signal handler runs in between.
 */
import { unlinkSync } from 'node:fs';

const pending = new Set<string>();

/** `path` is about to be created as a temporary file. */
export function trackTempFile(path: string): void {
  pending.add(path);
}

/** `path` was renamed into place or removed. */
export function untrackTempFile(path: string): void {
  pending.delete(path);
}

/** Remove every tracked temporary file now (synchronously: the process is about to end); returns how many were removed. */
export function removeTempFiles(): number {
  let removed = 0;
  for (const path of pending) {
    try {
      unlinkSync(path);
      removed++;
    } catch {
      // Already gone (renamed or removed by its writer just now), or not ours to remove.
    }
  }
  pending.clear();
  return removed;
}
