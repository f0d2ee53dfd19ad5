/**
 * The marker a cache folder carries when conda-resolve made it, so that `cache clean` removes only
 * what the cache wrote: the cache directory is the user's (`--cache-dir` may name any folder, `/usr`
 * included), and a folder named `local/` or `repodata/` in it is not ours by its name alone.
 *
 * The marker is a `CACHEDIR.TAG` as the Cache Directory Tagging Specification defines it
 * (https://bford.info/cachedir/: backup tools skip such folders), with a line naming conda-resolve, so
 * a tag another tool wrote does not count. Every folder of the cache (`repodata/`, `shards/`,
 * `local/`, `pypi/` and any folder under them) is made through `makeCacheFolder`.
 */
import { lstat, mkdir, open, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export const CACHE_MARKER = 'CACHEDIR.TAG';
const SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55';
const OWNER_LINE = '# conda-resolve cache folder';
const MARKER_TEXT = `${SIGNATURE}\n${OWNER_LINE}: written by conda-resolve; \`conda-resolve cache clean\` removes the files it wrote here.\n# For information about cache directory tags see https://bford.info/cachedir/\n`;

/** The shape of every file name a conda-resolve cache writes (no separators, no leading dot). */
const CACHE_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** Whether `name` could be a file a cache wrote; each part narrows this with its own names. */
export function isCacheFileName(name: string): boolean {
  return name !== CACHE_MARKER && CACHE_FILE_NAME.test(name);
}

/** Whether `folder` holds a conda-resolve marker (a regular file, not a link, naming conda-resolve). */
export async function hasCacheMarker(folder: string): Promise<boolean> {
  const path = join(folder, CACHE_MARKER);
  const info = await lstat(path).catch(() => null);
  if (!info?.isFile() || info.size > 4096) return false;
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.startsWith(SIGNATURE) && text.includes(OWNER_LINE);
}

async function writeMarker(folder: string): Promise<void> {
  // `wx`: never through a link or over a file someone else put there.
  const handle = await open(join(folder, CACHE_MARKER), 'wx').catch(() => null);
  if (!handle) return;
  try {
    await handle.writeFile(MARKER_TEXT);
  } finally {
    await handle.close();
  }
}

/**
 * Make a cache folder (its parents as needed, unmarked: they are the user's) and mark it when this
 * call created it. A folder that already exists is marked only when everything in it is a file
 * this part of the cache writes (`ownsName`), or it is empty: a cache made before markers existed
 * is adopted, a user's folder of the same name never is.
 */
export async function makeCacheFolder(path: string, ownsName: (name: string) => boolean): Promise<void> {
  let created = false;
  try {
    await mkdir(path);
    created = true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' && dirname(path) !== path) {
      await makeDirectory(path);
      created = true;
    } else if (code !== 'EEXIST') {
      throw error;
    }
  }
  if (created) {
    await writeMarker(path).catch(() => undefined);
    return;
  }
  // Already there: a link to a folder is used as it is (never marked: cache clean leaves links
  // alone); a directory whose entries are all ours may be adopted.
  if (!(await stat(path)).isDirectory()) throw Object.assign(new Error(`${path} is not a directory`), { code: 'ENOTDIR', path });
  if (!(await lstat(path)).isDirectory() || (await hasCacheMarker(path))) return;
  const entries = await readdir(path).catch(() => null);
  if (entries && entries.every((name) => name === CACHE_MARKER || (isCacheFileName(name) && ownsName(name))))
    await writeMarker(path).catch(() => undefined);
}

/**
 * `mkdir -p` one level at a time. Node 20's `mkdir(path, { recursive: true })` never settles for
 * some paths (`/proc/self/repodata`: ENOENT on a directory whose parent exists sends it round in a
 * loop) and reports a read-only mount as ENOENT; plain `mkdir` calls give the real error at once.
 */
export async function makeDirectory(path: string): Promise<void> {
  try {
    await mkdir(path);
    return;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST') {
      if ((await stat(path)).isDirectory()) return;
      throw error;
    }
    const parent = dirname(path);
    if (code !== 'ENOENT' || parent === path) throw error;
  }
  // The parent is missing: make it, then try this level once more (a second ENOENT is final).
  await makeDirectory(dirname(path));
  try {
    await mkdir(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST' && (await stat(path)).isDirectory()) return;
    throw error;
  }
}
