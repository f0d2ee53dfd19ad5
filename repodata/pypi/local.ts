/**
 * Indexes and find-links on this machine, for air-gapped users:
 * - a `file://` index is a PEP 503 tree: `<root>/<project>/index.html`, read like an HTTP page (its
 *   links resolve against the file's URL); a project folder without an `index.html` lists its files;
 * - a find-links location is a folder of wheels and sdists (not recursive): a file belongs to a
 *   project when its name parses as that project's wheel or sdist.
 * Files are read through a `ByteSource` over the file itself: nothing is copied.
 */
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDistributionFileName } from '../../vocabulary/pypi/distribution-file-name.js';
import type { ByteSource } from './zip.js';
import type { PypiFile } from './types.js';

/** The folder a `file://` URL or a plain path names. */
export function localPath(location: string): string {
  return location.startsWith('file:') ? fileURLToPath(location) : location;
}

/** `file://` URL of a folder, with its trailing slash (so relative links resolve inside it). */
export function folderUrl(path: string): string {
  const href = pathToFileURL(path).href;
  return href.endsWith('/') ? href : `${href}/`;
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The files of `folder` that are distributions of `project` (normalised name), sorted by name. */
export async function findLinksFiles(folder: string, project: string, index: string, indexRank: number): Promise<PypiFile[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const files: PypiFile[] = [];
  for (const name of names.sort()) {
    let parsed;
    try {
      parsed = parseDistributionFileName(name, { project });
    } catch {
      continue;
    }
    if (parsed === undefined || parsed.name !== project) continue;
    const info = await stat(join(folder, name)).catch(() => null);
    if (!info?.isFile()) continue;
    files.push({
      filename: name,
      url: pathToFileURL(join(folder, name)).href,
      hashes: {},
      requiresPython: null,
      yanked: false,
      coreMetadata: false,
      size: info.size,
      uploadTime: null,
      index,
      indexRank,
    });
  }
  return files;
}

/**
 * The page of `project` in the `file://` index rooted at `root`: the text of its `index.html` and
 * the URL links resolve against, a listing of a folder without one (as HTML), or null when the
 * project's folder does not exist.
 */
export async function readLocalPage(root: string, project: string): Promise<{ body: string; url: string } | null> {
  const folder = join(localPath(root), project);
  if (!(await isDirectory(folder))) return null;
  const indexFile = join(folder, 'index.html');
  try {
    return { body: await readFile(indexFile, 'utf8'), url: pathToFileURL(indexFile).href };
  } catch {
    const names = (await readdir(folder)).sort();
    const links = names.map((name) => `<a href="${encodeURIComponent(name)}">${name.replace(/[<&>]/g, '')}</a>`).join('\n');
    return { body: `<!DOCTYPE html><html><body>\n${links}\n</body></html>`, url: folderUrl(folder) };
  }
}

/** Random access to a local file (closed after each read: reads are few). */
export async function fileSource(url: string): Promise<ByteSource> {
  const path = fileURLToPath(url);
  const size = (await stat(path)).size;
  return {
    size,
    async read(offset, length) {
      const handle = await open(path, 'r');
      try {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}
