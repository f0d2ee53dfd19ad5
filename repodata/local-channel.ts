/**
 * `file://` and local path channels, read in place and never copied: a subdir's CEP 16 shard index,
 * else its `repodata.json`, else `repodata.json.zst` (decompressed once into the cache). A
 * `repodata.json` gets the same persisted name index as a downloaded one, kept under the cache's
 * `local/` so a read-only mirror works; its file name carries a digest of the JSON's path, size, mtime
 * and inode, so a changed file never meets a stale index.
 */
import { createHash, randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Channel } from '../vocabulary/channel.js';
import { makeCacheFolder } from './cache-marker.js';
import { isLocalCacheFile } from './cache-names.js';
import { corruptFromParse, RepodataCorruptError, RepodataFetchError, RepodataTooLargeError } from './fetch-errors.js';
import { loadIndexFromCache } from './lazy/cached-repodata.js';
import type { RepodataIndexTables } from './lazy/span-tables.js';
import { keepSidecar, openScannedIndex, scanRepodataFile, StreamIndexer } from './lazy/stream-index.js';
import { indexRepodata, type ShareableSubdirIndex } from './monolithic.js';
import { RepodataParseError } from './parse-errors.js';
import { MAX_SHARD_BYTES, shardMatchesHash } from './sharded/shard.js';
import { decodeShardIndex, MAX_SHARD_INDEX_BYTES, resolveShardUrls, SHARD_INDEX_FILE } from './sharded/shard-index.js';
import { ShardedSubdirIndex } from './sharded/sharded-subdir.js';
import { toSharedBytes } from './shared-memory.js';
import { trackTempFile, untrackTempFile } from './temp-files.js';
import { channelRef, type LoadProgress, type SubdirIndex } from './types.js';
import type { RepodataSource } from './record-normalise.js';
import { createZstdDecoder, zstdDecompress, ZstdDataError, type ZstdStreamDecoder } from './zstd.js';

/** The repodata file a local subdir has. */
export interface LocalRepodata {
  readonly path: string;
  readonly file: 'repodata.json' | 'repodata.json.zst' | typeof SHARD_INDEX_FILE;
  readonly size: number;
  /** File, size, mtime and inode: equal stamps mean the same document. */
  readonly stamp: string;
}

export interface LocalIndexOptions {
  /** The cache directory; sidecars go to `<cacheDir>/local/`. */
  readonly cacheDir: string;
  readonly maxBytes: number;
  /** `positional`: read only the spans asked for from the file; `memory`: the file whole, shareable. */
  readonly indexBytes: 'memory' | 'positional';
  /** Try the sharded index first (the store's `shards` option). */
  readonly shards: boolean;
  readonly onProgress?: LoadProgress | undefined;
}

const FILES = [SHARD_INDEX_FILE, 'repodata.json', 'repodata.json.zst'] as const;
/** Input read per step of a `.zst` decompression (about ten times that comes out). */
const ZST_READ_CHUNK = 256 * 1024;

/**
 * The subdir's repodata file, or null when it has none (the channel lacks that subdir). One
 * directory read and one stat: a server asks this on every request for a local channel.
 */
export async function findLocalRepodata(channel: Channel, subdir: string, shards = true): Promise<LocalRepodata | null> {
  const dir = `${fileURLToPath(channel.baseUrl)}/${subdir}`;
  const entries = new Set(await readdir(dir).catch(() => [] as string[]));
  for (const file of FILES) {
    if ((file === SHARD_INDEX_FILE && !shards) || !entries.has(file)) continue;
    const path = `${dir}/${file}`;
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) return { path, file, size: info.size, stamp: `${file}:${info.size}:${info.mtimeMs}:${info.ino}` };
  }
  return null;
}

/** The index of a local subdir's repodata file. */
export async function indexLocalRepodata(
  channel: Channel,
  subdir: string,
  found: LocalRepodata,
  options: LocalIndexOptions,
): Promise<SubdirIndex> {
  if (found.file === SHARD_INDEX_FILE) return openLocalSharded(channel, subdir, found, options);
  const zst = found.file === 'repodata.json.zst';
  if (!zst && found.size > options.maxBytes) throw new RepodataTooLargeError(channel.name, subdir, options.maxBytes, { url: found.path });
  const names = sidecarNames(options.cacheDir, found);
  const source = { channel: channelRef(channel), subdir };
  try {
    await makeCacheFolder(names.dir, isLocalCacheFile);
  } catch {
    // No cache directory (read-only, or not creatable): index in memory as before.
    return indexWhole(channel, subdir, found, options.maxBytes);
  }
  try {
    // Warm: the sidecar of this very file (and the decompressed copy of a `.zst`) are in the cache.
    const jsonPath = zst ? names.decompressed : found.path;
    const warm =
      (await stat(names.sidecar).catch(() => null))?.isFile() === true &&
      (!zst || (await stat(jsonPath).catch(() => null))?.isFile() === true);
    if (warm) {
      const loaded = loadIndexFromCache({ jsonPath, sidecarPath: names.sidecar, source, bytes: options.indexBytes });
      await removeStale(names);
      return loaded.index;
    }
    // First run: one streaming pass over the file (or over the `.zst` as it is decompressed into
    // the cache) builds the tables; the sidecar is written from them.
    const tables = zst
      ? await decompressAndScan(channel, subdir, found, jsonPath, source, options.maxBytes)
      : await scanRepodataFile(jsonPath, source);
    keepSidecar(names.sidecar, tables);
    const index = await openScannedIndex(jsonPath, tables, source, options.indexBytes, names.sidecar);
    await removeStale(names);
    return index;
  } catch (error) {
    if (error instanceof RepodataParseError) throw corruptFromParse(channel.name, subdir, error.message, { url: found.path, cause: error });
    if (error instanceof RepodataFetchError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new RepodataFetchError(channel.name, subdir, `cannot read ${found.file}: ${typeof code === 'string' ? code : String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Decompress a local `.zst` into `target` (atomically: a temp file renamed at the end), indexing
 * each decoded piece as it is written. Returns the tables.
 */
async function decompressAndScan(
  channel: Channel,
  subdir: string,
  found: LocalRepodata,
  target: string,
  source: RepodataSource,
  maxBytes: number,
): Promise<RepodataIndexTables> {
  const temporary = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const indexer = new StreamIndexer(temporary, source);
  let pending: Buffer[] = [];
  let decoder: ZstdStreamDecoder | null = null;
  trackTempFile(temporary);
  try {
    const output = await open(temporary, 'wx');
    try {
      const input = await open(found.path, 'r');
      try {
        // Each push's output is written and indexed (drain) before the next push, which may write
        // over it; a read goes in the slices the decoder asks for (about 4 MB of output at most each),
        // so a decompression bomb is never held at once.
        decoder = await createZstdDecoder((chunk) => pending.push(chunk), { maxOutputBytes: maxBytes, reuseOutput: true });
        const drain = async (): Promise<void> => {
          if (pending.length === 0) return;
          // One write per push (the decoder's ~128 kB pieces one by one cost more than decoding).
          const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
          pending = [];
          await output.write(chunk);
          indexer.push(chunk);
        };
        const buffer = new Uint8Array(ZST_READ_CHUNK);
        for (;;) {
          const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
          if (bytesRead === 0) break;
          for (let at = 0; at < bytesRead; ) {
            const slice = buffer.subarray(at, Math.min(bytesRead, at + decoder.nextSlice));
            decoder.push(slice);
            at += slice.length;
            await drain();
          }
        }
        const finishing = decoder;
        decoder = null;
        finishing.end();
        await drain();
      } finally {
        decoder?.dispose();
        await input.close();
      }
      await output.close();
      const tables = indexer.finish();
      await rename(temporary, target);
      return tables;
    } catch (error) {
      await output.close().catch(() => undefined);
      await rm(temporary, { force: true });
      if (error instanceof ZstdDataError) {
        if (error.tooLarge) throw new RepodataTooLargeError(channel.name, subdir, maxBytes, { url: found.path });
        throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${found.file}`, { cause: error });
      }
      throw error;
    }
  } finally {
    untrackTempFile(temporary);
  }
}

/** Where a local JSON's sidecar (and a decompressed `.zst`) live, and the prefix of older ones. */
function sidecarNames(cacheDir: string, found: LocalRepodata): { dir: string; prefix: string; sidecar: string; decompressed: string } {
  const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);
  const dir = join(cacheDir, 'local');
  const prefix = `${digest(found.path)}-`;
  const base = join(dir, `${prefix}${digest(found.stamp)}`);
  return { dir, prefix, sidecar: `${base}.index`, decompressed: `${base}.json` };
}

/** Delete the sidecars (their record caches, and decompressed copies) of earlier versions of the same file. */
async function removeStale(names: { dir: string; prefix: string; sidecar: string; decompressed: string }): Promise<void> {
  // The current sidecar's record cache (`lazy/record-cache.ts`) goes with it.
  const keep = new Set([names.sidecar, `${names.sidecar}.records`, names.decompressed]);
  const entries = await readdir(names.dir).catch(() => [] as string[]);
  for (const entry of entries) {
    const path = join(names.dir, entry);
    if (entry.startsWith(names.prefix) && !entry.endsWith('.tmp') && !keep.has(path)) await rm(path, { force: true });
  }
}

/** Read (and decompress) a local repodata file. */
async function readLocal(channel: Channel, subdir: string, found: LocalRepodata, maxBytes: number): Promise<Uint8Array> {
  const { path, file } = found;
  try {
    const raw = await readFile(path);
    return file === 'repodata.json.zst' ? await zstdDecompress(raw, { maxOutputBytes: maxBytes }) : raw;
  } catch (error) {
    if (error instanceof RepodataFetchError) throw error;
    if (error instanceof ZstdDataError && error.tooLarge) throw new RepodataTooLargeError(channel.name, subdir, maxBytes, { url: path });
    const code = (error as { code?: unknown })?.code;
    if (code === 'ZSTD_DATA' || (error as Error)?.name === 'ZstdDataError') {
      throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${file}`, { cause: error });
    }
    throw new RepodataFetchError(channel.name, subdir, `cannot read ${file}: ${typeof code === 'string' ? code : String(error)}`, {
      cause: error,
    });
  }
}

/** Without a cache directory: the whole file indexed in memory. */
async function indexWhole(channel: Channel, subdir: string, found: LocalRepodata, maxBytes: number): Promise<ShareableSubdirIndex> {
  const bytes = await readLocal(channel, subdir, found, maxBytes);
  return indexRepodata(toSharedBytes(bytes), { channel: channelRef(channel), subdir });
}

/** A sharded local subdir: the shard index, then each shard from the channel's files, checked by hash. */
async function openLocalSharded(
  channel: Channel,
  subdir: string,
  found: LocalRepodata,
  options: LocalIndexOptions,
): Promise<ShardedSubdirIndex> {
  let raw: Uint8Array;
  try {
    raw = await zstdDecompress(await readFile(found.path), { maxOutputBytes: MAX_SHARD_INDEX_BYTES });
  } catch (error) {
    if (error instanceof ZstdDataError)
      throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${SHARD_INDEX_FILE}`, { cause: error });
    const code = (error as NodeJS.ErrnoException).code;
    throw new RepodataFetchError(channel.name, subdir, `cannot read ${SHARD_INDEX_FILE}: ${code ?? String(error)}`, { cause: error });
  }
  const shardIndex = decodeShardIndex(raw, channel.name, subdir);
  const indexUrl = `${channel.subdirUrl(subdir)}/${SHARD_INDEX_FILE}`;
  const { packageBase, shardsBase } = resolveShardUrls(shardIndex.info, indexUrl, channel.name, subdir);
  if (!shardsBase.startsWith('file:')) {
    throw new RepodataCorruptError(channel.name, subdir, `the shard index points its shards outside the local channel (${shardsBase})`);
  }
  return new ShardedSubdirIndex({
    channel: channelRef(channel),
    subdir,
    index: shardIndex,
    packageBase,
    onProgress: options.onProgress,
    fetchShard: async (sha256, name) => {
      const path = fileURLToPath(`${shardsBase}${sha256}.msgpack.zst`);
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new RepodataFetchError(channel.name, subdir, `cannot read the shard of "${name}" (${path}): ${code ?? String(error)}`, {
          cause: error,
        });
      }
      if (bytes.length > MAX_SHARD_BYTES || !(await shardMatchesHash(bytes, sha256))) {
        throw new RepodataCorruptError(channel.name, subdir, `the shard of "${name}" does not match its hash ${sha256}`, { url: path });
      }
      return { bytes, fromCache: false };
    },
  });
}
