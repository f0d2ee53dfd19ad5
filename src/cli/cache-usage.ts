/**
 * What the repodata cache holds on disk, and removing it. The cache directory belongs to the user
 * (`--cache-dir` may name any folder), so only the folders the repodata cache writes (`repodata/`,
 * `shards/`, and `local/` for the indexes of local channels; see repodata/cache.ts and
 * repodata/local-channel.ts) are counted as ours and ever removed.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CondaResolveError } from '../errors.js';

/** The cache directory could not be read or a part of it removed; names the path and why. */
export class CacheDirError extends CondaResolveError {
  readonly path: string;
  constructor(path: string, action: 'read' | 'remove', cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOTDIR' ? 'not a directory' : (code ?? (cause as Error).message);
    super('CR_ERR_CACHE_DIR', `Cannot ${action} the cache directory "${path}": ${why}`, { cause });
    this.path = path;
  }
}

export const CACHE_PARTS = ['repodata', 'shards', 'local'] as const;

export interface PartUsage {
  readonly name: (typeof CACHE_PARTS)[number];
  readonly path: string;
  readonly files: number;
  readonly bytes: number;
}

export interface CacheUsage {
  readonly dir: string;
  readonly exists: boolean;
  readonly parts: readonly PartUsage[];
  readonly files: number;
  readonly bytes: number;
}

async function walk(path: string): Promise<{ files: number; bytes: number }> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files: 0, bytes: 0 };
    throw new CacheDirError(path, 'read', error);
  }
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) {
      const sub = await walk(child);
      files += sub.files;
      bytes += sub.bytes;
    } else {
      // A file removed by another process meanwhile is simply not counted.
      const stats = await lstat(child).catch(() => null);
      if (stats) {
        files += 1;
        bytes += stats.size;
      }
    }
  }
  return { files, bytes };
}

export async function cacheUsage(dir: string): Promise<CacheUsage> {
  const exists = (await lstat(dir).catch(() => null))?.isDirectory() === true;
  const parts: PartUsage[] = [];
  for (const name of CACHE_PARTS) {
    const path = join(dir, name);
    parts.push({ name, path, ...(exists ? await walk(path) : { files: 0, bytes: 0 }) });
  }
  return { dir, exists, parts, files: parts.reduce((n, p) => n + p.files, 0), bytes: parts.reduce((n, p) => n + p.bytes, 0) };
}

/**
 * Removes the cache's folders: `repodata/` first (its state files are the commit points, so a
 * concurrent reader sees a miss rather than a state without its data), then `shards/`.
 */
export async function removeCache(usage: CacheUsage): Promise<void> {
  for (const part of usage.parts) {
    try {
      await rm(part.path, { recursive: true, force: true });
    } catch (error) {
      throw new CacheDirError(part.path, 'remove', error);
    }
  }
}
