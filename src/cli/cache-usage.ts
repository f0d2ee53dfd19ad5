/**
 * What the repodata cache holds on disk, and removing it. The cache directory belongs to the user
 * (`--cache-dir` may name any folder, `/usr` included), so only what the cache wrote is ever counted
 * as ours and removed: a part folder (`repodata/`, `shards/`, `local/`, `pypi/`, `pypi-mapping/`) that carries the
 * marker the cache writes when it makes the folder (repodata/cache-marker.ts), and in it only files
 * named as that part names its files. Links are never followed below the cache directory itself,
 * nor removed. One plan serves `--dry-run` and the real run, so both report the same files.
 */
import { lstat, readdir, realpath, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_MARKER, hasCacheMarker, isCacheFileName } from '../../repodata/cache-marker.js';
import { isLocalCacheFile, isPypiMappingCacheFile, isRepodataCacheFile, isShardCacheFile } from '../../repodata/cache-names.js';
import { CondaResolveError } from '../errors.js';

/** The cache directory could not be read or a part of it removed; names the path and why. */
export class CacheDirError extends CondaResolveError {
  readonly path: string;
  constructor(path: string, action: 'read' | 'remove', cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOTDIR'
          ? 'not a directory'
          : (code ?? (cause as Error).message);
    super('CR_ERR_CACHE_DIR', `Cannot ${action} the cache directory "${path}": ${why}`, { cause });
    this.path = path;
  }
}

/**
 * The folders the cache writes and the names of the files it writes in each. `pypi/` (the PyPI
 * index cache) and `pypi-mapping/` (src/pypi-mapping/remote.ts) are listed only when present; `pypi/`'s
 * files are any cache file name (isCacheFileName).
 */
const PARTS = [
  { name: 'repodata', owns: isRepodataCacheFile, always: true },
  { name: 'shards', owns: isShardCacheFile, always: true },
  { name: 'local', owns: isLocalCacheFile, always: true },
  { name: 'pypi', owns: isCacheFileName, always: false },
  { name: 'pypi-mapping', owns: isPypiMappingCacheFile, always: false },
] as const;

export const CACHE_PARTS = PARTS.map((p) => p.name);

/** Why a part folder is left alone: not there, a link, not a folder, or without the cache's marker. */
export type PartSkipped = 'symlink' | 'not-a-directory' | 'unmarked' | null;

export interface PartUsage {
  readonly name: (typeof PARTS)[number]['name'];
  readonly path: string;
  readonly files: number;
  readonly bytes: number;
  /** Entries in the folder that the cache did not write (left alone). */
  readonly others: number;
  readonly skipped: PartSkipped;
}

export interface CacheUsage {
  /** The directory as given. */
  readonly dir: string;
  /** Where it leads when it is a link (the folder actually counted and cleaned), else null. */
  readonly linkTarget: string | null;
  readonly exists: boolean;
  readonly parts: readonly PartUsage[];
  readonly files: number;
  readonly bytes: number;
}

/** A part's plan: the files to remove (each with its size) and the marked folders, deepest first. */
interface PartPlan {
  readonly files: { path: string; bytes: number }[];
  readonly folders: string[];
  others: number;
}

const plans = new WeakMap<CacheUsage, PartPlan[]>();

/** The files of a marked folder that `owns` names, and marked subfolders; nothing through a link. */
async function planFolder(folder: string, owns: (name: string) => boolean, plan: PartPlan): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new CacheDirError(folder, 'read', error);
  }
  for (const name of entries.sort()) {
    if (name === CACHE_MARKER) continue;
    const path = join(folder, name);
    // A file removed by another process meanwhile is simply not counted.
    const info = await lstat(path).catch(() => null);
    if (!info) continue;
    if (info.isFile() && isCacheFileName(name) && owns(name)) plan.files.push({ path, bytes: info.size });
    else if (info.isDirectory() && (await hasCacheMarker(path))) await planFolder(path, owns, plan);
    else plan.others += 1;
  }
  plan.folders.push(folder);
}

export async function cacheUsage(dir: string): Promise<CacheUsage> {
  const top = await lstat(dir).catch(() => null);
  // The cache directory itself may be a link (a cache moved to another disk): the folder it leads
  // to is the one counted and cleaned, and the report says so.
  const linkTarget = top?.isSymbolicLink() ? await realpath(dir).catch(() => null) : null;
  const root = linkTarget ?? dir;
  const exists = (await lstat(root).catch(() => null))?.isDirectory() === true;
  const parts: PartUsage[] = [];
  const partPlans: PartPlan[] = [];
  for (const { name, owns, always } of PARTS) {
    const path = join(root, name);
    const plan: PartPlan = { files: [], folders: [], others: 0 };
    const info = exists ? await lstat(path).catch(() => null) : null;
    if (!info && !always) continue;
    let skipped: PartSkipped = null;
    if (info?.isSymbolicLink()) skipped = 'symlink';
    else if (info && !info.isDirectory()) skipped = 'not-a-directory';
    else if (info && !(await hasCacheMarker(path))) skipped = 'unmarked';
    else if (info) await planFolder(path, owns, plan);
    parts.push({ name, path, files: plan.files.length, bytes: plan.files.reduce((n, f) => n + f.bytes, 0), others: plan.others, skipped });
    partPlans.push(plan);
  }
  const usage: CacheUsage = {
    dir,
    linkTarget,
    exists,
    parts,
    files: parts.reduce((n, p) => n + p.files, 0),
    bytes: parts.reduce((n, p) => n + p.bytes, 0),
  };
  plans.set(usage, partPlans);
  return usage;
}

/**
 * Removes exactly the files `cacheUsage` counted (each still a regular file), then each marked
 * folder left with nothing but its marker. `repodata/` goes first: its state files are the commit
 * points, so a concurrent reader sees a miss rather than a state without its data. Returns what was
 * removed.
 */
export async function removeCache(usage: CacheUsage): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const plan of plans.get(usage) ?? []) {
    for (const file of plan.files) {
      const info = await lstat(file.path).catch(() => null);
      if (!info?.isFile()) continue;
      try {
        await unlink(file.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new CacheDirError(file.path, 'remove', error);
      }
      files += 1;
      bytes += info.size;
    }
    for (const folder of plan.folders) {
      const left = await readdir(folder).catch(() => null);
      if (left === null || left.some((name) => name !== CACHE_MARKER)) continue;
      await unlink(join(folder, CACHE_MARKER)).catch(() => undefined);
      await rmdir(folder).catch(() => undefined);
    }
  }
  return { files, bytes };
}
