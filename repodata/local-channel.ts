/**
 * `file://` and local path channels: a subdir's `repodata.json` (else `repodata.json.zst`) is read
 * in place, never copied to the cache. The store re-indexes it only when its stamp (file, size and
 * mtime) changes.
 */
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Channel } from '../vocabulary/channel.js';
import { RepodataCorruptError, RepodataFetchError, RepodataTooLargeError } from './fetch-errors.js';
import { indexRepodata, type ShareableSubdirIndex } from './monolithic.js';
import { toSharedBytes } from './shared-memory.js';
import { channelRef } from './types.js';
import { zstdDecompress, ZstdDataError } from './zstd.js';

/** The repodata file a local subdir has. */
export interface LocalRepodata {
  readonly path: string;
  readonly file: 'repodata.json' | 'repodata.json.zst';
  readonly size: number;
  /** File, size and mtime: equal stamps mean the same document. */
  readonly stamp: string;
}

/** The subdir's repodata file, or null when it has none (the channel lacks that subdir). */
export async function findLocalRepodata(channel: Channel, subdir: string): Promise<LocalRepodata | null> {
  const dir = `${fileURLToPath(channel.baseUrl)}/${subdir}`;
  for (const file of ['repodata.json', 'repodata.json.zst'] as const) {
    const path = `${dir}/${file}`;
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) return { path, file, size: info.size, stamp: `${file}:${info.size}:${info.mtimeMs}` };
  }
  return null;
}

/** Read (and decompress) a local repodata file and index it. */
export async function indexLocalRepodata(channel: Channel, subdir: string, found: LocalRepodata, maxBytes: number): Promise<ShareableSubdirIndex> {
  const { path, file } = found;
  const zst = file === 'repodata.json.zst';
  if (!zst && found.size > maxBytes) throw new RepodataTooLargeError(channel.name, subdir, maxBytes, { url: path });
  let bytes: Uint8Array;
  try {
    const raw = await readFile(path);
    bytes = zst ? await zstdDecompress(raw, { maxOutputBytes: maxBytes }) : raw;
  } catch (error) {
    if (error instanceof RepodataFetchError) throw error;
    if (error instanceof ZstdDataError && error.tooLarge) throw new RepodataTooLargeError(channel.name, subdir, maxBytes, { url: path });
    const code = (error as { code?: unknown })?.code;
    if (code === 'ZSTD_DATA' || (error as Error)?.name === 'ZstdDataError') {
      throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${file}`, { cause: error });
    }
    throw new RepodataFetchError(channel.name, subdir, `cannot read ${file}: ${typeof code === 'string' ? code : String(error)}`, { cause: error });
  }
  return indexRepodata(toSharedBytes(bytes), { channel: channelRef(channel), subdir });
}
