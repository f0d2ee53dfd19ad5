/**
 * The on-disk repodata cache: one entry per (channel URL, credentials, subdir) and a shared pool of
 * content-addressed shards (the files are listed in docs/cache.md). An entry's key hashes the subdir URL
 * without credentials plus a digest of them, so users with different tokens never share a private index.
 *
 * Writes are atomic and safe across processes: data goes to a unique temp file renamed to its
 * content-addressed name, then the small state file (fsynced) is renamed into place; a failed fetch
 * renames nothing. Before use an entry's size must match and, when its mtime changed, its sha256:
 * hashing on every use would defeat reading only the byte spans a solve needs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFile as readFileCallback, readFileSync, stat as statCallback } from 'node:fs';
import { open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeCacheFolder } from './cache-marker.js';
import { isRepodataCacheFile, isShardCacheFile } from './cache-names.js';
import { RepodataCacheError } from './fetch-errors.js';
import { trackTempFile, untrackTempFile } from './temp-files.js';
import { writeFileAtomic } from './lazy/repodata-file.js';

// A cache hit reads a state file and stats a data file, through node:fs's callbacks: the CLI's
// bundle loads node:fs/promises only on first use (it costs ~3 ms of a start), and a hit needs nothing else from it.
const readFile = promisify(readFileCallback);
const stat = promisify(statCallback);

/** `missing`: the subdir does not exist (404 everywhere); its data file is empty. */
export type CacheFormat = 'json' | 'zst' | 'shards' | 'missing';

export interface CacheState {
  readonly version: 1;
  /** The subdir URL without credentials. */
  readonly url: string;
  readonly format: CacheFormat;
  /** The file that was fetched (`.../repodata.json.zst`), without credentials. */
  readonly sourceUrl: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly cacheControl: string | null;
  /** Milliseconds since the epoch of the last 200 or 304. */
  readonly fetchedAt: number;
  /** Base name of the data file in the entries directory. */
  readonly dataFile: string;
  /** Length in bytes of the (decompressed) data file. */
  readonly size: number;
  /** sha256 of the data file, lowercase hex. */
  readonly sha256: string;
  readonly mtimeMs: number;
  /** For a monolithic entry: when the channel was last found to serve no shard index. */
  readonly shardsAbsentAt: number | null;
}

export type CacheStateFields = Omit<CacheState, 'version' | 'dataFile' | 'mtimeMs'>;

export { defaultCacheDir } from './cache-dir.js';
export { CACHE_MARKER, hasCacheMarker, isCacheFileName, makeCacheFolder, makeDirectory } from './cache-marker.js';
export { isLocalCacheFile, isPypiMappingCacheFile, isRepodataCacheFile, isShardCacheFile } from './cache-names.js';

/** How long a state stays fresh: `max-age` from Cache-Control, else the default TTL. */
export function freshnessMs(cacheControl: string | null, defaultTtlSeconds: number): number {
  if (cacheControl) {
    const directives = cacheControl
      .toLowerCase()
      .split(',')
      .map((d) => d.trim());
    if (directives.includes('no-cache') || directives.includes('no-store')) return 0;
    for (const directive of directives) {
      const match = /^max-age\s*=\s*"?(\d+)"?$/.exec(directive);
      if (match) return Number(match[1]) * 1000;
    }
  }
  return defaultTtlSeconds * 1000;
}

export function isFresh(state: CacheState, defaultTtlSeconds: number, now: number): boolean {
  return now >= state.fetchedAt && now - state.fetchedAt < freshnessMs(state.cacheControl, defaultTtlSeconds);
}

/** A temp file being written; `commit` renames it into place, `discard` removes it. */
export interface CacheWriter {
  readonly path: string;
  /** Append `chunks` in order (one system call for all of them where it can). */
  write(...chunks: Uint8Array[]): Promise<void>;
  /** Write `chunks` at byte `position` (writes at distinct positions may run at once). */
  writeAt(position: number, chunks: readonly Uint8Array[]): Promise<void>;
  /** Closes the file (done by `commit` too); the temp file stays until committed or discarded. */
  close(): Promise<void>;
  /** Closes and deletes the temp file (safe to call twice, or after commit). */
  discard(): Promise<void>;
}

/** The bytes of `chunks` after the first `skip`, in one buffer. */
function rest(chunks: readonly Uint8Array[], skip: number): Uint8Array {
  const out: Uint8Array[] = [];
  for (const chunk of chunks) {
    if (skip >= chunk.length) skip -= chunk.length;
    else {
      out.push(chunk.subarray(skip));
      skip = 0;
    }
  }
  return Buffer.concat(out);
}

const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Write `data`, held in memory, to `target` atomically with synchronous calls (`writeFileAtomic`):
 * for the many small files of a walk (PyPI pages and metadata, shards) they cost a fraction of the
 * promise API's trips through libuv's threads (bench/RESULTS.md, PyPI cold run).
 */
export async function writeSmallFile(target: string, data: string | Uint8Array): Promise<void> {
  try {
    writeFileAtomic(target, data);
  } catch (error) {
    throw cacheError(`cannot write ${target}`, error);
  }
}

/** The bytes of a small cache file, or null when it cannot be read (synchronously, as `writeSmallFile` writes). */
export function readSmallFile(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** Write `target` atomically: a temp file of this process, filled by `fill`, then renamed into place. */
export async function writeThroughTemp(target: string, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  trackTempFile(temp);
  try {
    const handle = await open(temp, 'wx');
    try {
      await fill(handle);
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw cacheError(`cannot write ${target}`, error);
  } finally {
    untrackTempFile(temp);
  }
}
/** A data file not named by the current state is removed only when older than this (another process may be about to commit it). */
const ORPHAN_MAX_AGE_MS = 10 * 60 * 1000;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function slug(text: string): string {
  return text
    .replace(/^[a-z]+:\/\//i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 48);
}

function isCacheState(value: unknown): value is CacheState {
  if (value === null || typeof value !== 'object') return false;
  const s = value as Record<string, unknown>;
  return (
    s.version === 1 &&
    typeof s.url === 'string' &&
    (s.format === 'json' || s.format === 'zst' || s.format === 'shards' || s.format === 'missing') &&
    typeof s.sourceUrl === 'string' &&
    (s.etag === null || typeof s.etag === 'string') &&
    (s.lastModified === null || typeof s.lastModified === 'string') &&
    (s.cacheControl === null || typeof s.cacheControl === 'string') &&
    typeof s.fetchedAt === 'number' &&
    typeof s.dataFile === 'string' &&
    /^[^/\\]+$/.test(s.dataFile) &&
    typeof s.size === 'number' &&
    typeof s.sha256 === 'string' &&
    SHA256_HEX.test(s.sha256) &&
    typeof s.mtimeMs === 'number' &&
    (s.shardsAbsentAt === null || typeof s.shardsAbsentAt === 'number')
  );
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no directory can be created there',
  EEXIST: 'a file of that name is in the way',
};

function cacheError(what: string, error: unknown): RepodataCacheError {
  const code = (error as { code?: unknown })?.code;
  const reason = (typeof code === 'string' ? REASONS[code] : undefined) ?? (error instanceof Error ? error.message : String(error));
  return new RepodataCacheError(`${what}: ${reason}`, { cause: error });
}

export class RepodataCache {
  readonly dir: string;
  readonly entriesDir: string;
  readonly shardsDir: string;
  #ready: Promise<void> | undefined;

  constructor(cacheDir: string) {
    this.dir = cacheDir;
    this.entriesDir = join(cacheDir, 'repodata');
    this.shardsDir = join(cacheDir, 'shards');
  }

  /** The entry key of one subdir. `secret` is the credentials (hashed, never stored). */
  entryKey(channelName: string, subdir: string, publicSubdirUrl: string, secret: string | null): string {
    const hash = createHash('sha256')
      .update(publicSubdirUrl)
      .update('\0')
      .update(secret ?? '')
      .digest('hex')
      .slice(0, 16);
    return `${slug(channelName)}-${subdir}-${hash}`;
  }

  statePath(key: string): string {
    return join(this.entriesDir, `${key}.state.json`);
  }

  dataPath(state: CacheState): string {
    return join(this.entriesDir, state.dataFile);
  }

  async #ensureDirs(): Promise<void> {
    this.#ready ??= (async () => {
      try {
        await makeCacheFolder(this.entriesDir, isRepodataCacheFile);
        await makeCacheFolder(this.shardsDir, isShardCacheFile);
      } catch (error) {
        this.#ready = undefined;
        const path = (error as { path?: unknown }).path;
        throw cacheError(`cannot create ${typeof path === 'string' ? path : this.dir}`, error);
      }
    })();
    return this.#ready;
  }

  /** The committed state of an entry, or null when there is none or it is unreadable. */
  async readState(key: string): Promise<CacheState | null> {
    let text: string;
    try {
      text = await readFile(this.statePath(key), 'utf8');
    } catch {
      return null;
    }
    try {
      const value: unknown = JSON.parse(text);
      return isCacheState(value) ? value : null;
    } catch {
      return null;
    }
  }

  /**
   * Whether the data file of `state` is intact (see the module header). Returns the state to use
   * from now on (its mtime updated when a full hash had to confirm it), or null when the entry must
   * not be used.
   */
  async checkData(key: string, state: CacheState): Promise<CacheState | null> {
    const path = this.dataPath(state);
    let info;
    try {
      info = await stat(path);
    } catch {
      return null;
    }
    if (!info.isFile() || info.size !== state.size) return null;
    if (info.mtimeMs === state.mtimeMs) return state;
    let actual: string;
    try {
      actual = await hashFile(path);
    } catch {
      return null;
    }
    if (actual !== state.sha256) return null;
    const updated: CacheState = { ...state, mtimeMs: info.mtimeMs };
    await this.#writeState(key, updated).catch(() => undefined);
    return updated;
  }

  /** Start writing a data file for `key`. */
  async createWriter(key: string): Promise<CacheWriter> {
    await this.#ensureDirs();
    const path = join(this.entriesDir, `${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    let handle: FileHandle | null;
    trackTempFile(path);
    try {
      handle = await open(path, 'wx');
    } catch (error) {
      untrackTempFile(path);
      throw cacheError(`cannot write in ${this.entriesDir}`, error);
    }
    let closed = false;
    const close = async (): Promise<void> => {
      if (!closed && handle) {
        closed = true;
        await handle.close();
      }
    };
    /**
     * `chunks` at `position`, or where the last write ended (null); a short write (a full disk, a
     * signal) is finished from where it stopped.
     */
    const writeAll = async (chunks: readonly Uint8Array[], position: number | null): Promise<void> => {
      if (!handle || closed) throw new RepodataCacheError(`the temp file ${path} is closed`);
      try {
        let total = 0;
        for (const chunk of chunks) total += chunk.length;
        let written =
          chunks.length === 1
            ? (await handle.write(chunks[0]!, 0, undefined, position)).bytesWritten
            : (await handle.writev(chunks, position ?? undefined)).bytesWritten;
        while (written < total)
          written += (await handle.write(rest(chunks, written), 0, undefined, position === null ? null : position + written)).bytesWritten;
      } catch (error) {
        throw cacheError(`cannot write ${path}`, error);
      }
    };
    const writer: CacheWriter = {
      path,
      write: (...chunks) => writeAll(chunks, null),
      writeAt: (position, chunks) => writeAll(chunks, position),
      async discard() {
        await close().catch(() => undefined);
        handle = null;
        await unlink(path).catch(() => undefined);
        untrackTempFile(path);
      },
      close,
    };
    return writer;
  }

  /**
   * Rename a finished temp file to its content-addressed name and commit the state naming it.
   * `extension` is `json`, `shards.msgpack` or `missing`.
   */
  async commit(key: string, writer: CacheWriter, extension: string, fields: CacheStateFields): Promise<CacheState> {
    await writer.close();
    const dataFile = `${key}.${fields.sha256.slice(0, 16)}.${extension}`;
    const dataPath = join(this.entriesDir, dataFile);
    try {
      await rename(writer.path, dataPath);
    } catch (error) {
      await writer.discard();
      throw cacheError(`cannot write ${dataPath}`, error);
    }
    untrackTempFile(writer.path);
    const info = await stat(dataPath);
    const state: CacheState = { version: 1, ...fields, dataFile, mtimeMs: info.mtimeMs };
    await this.#writeState(key, state);
    await this.#removeOrphans(key, dataFile).catch(() => undefined);
    return state;
  }

  /**
   * Write `bytes` (held in memory: a shard index, or nothing for a missing subdir) as the data file
   * of `key` and commit the state naming it, with their size and sha256.
   */
  async commitBytes(
    key: string,
    extension: string,
    bytes: Uint8Array,
    fields: Omit<CacheStateFields, 'size' | 'sha256'>,
  ): Promise<CacheState> {
    const writer = await this.createWriter(key);
    try {
      if (bytes.length > 0) await writer.write(bytes);
    } catch (error) {
      await writer.discard();
      throw error;
    }
    // The state file lists its fields in the order `commit` always wrote them.
    const { shardsAbsentAt, ...head } = fields;
    return this.commit(key, writer, extension, {
      ...head,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      shardsAbsentAt,
    });
  }

  /** After a 304 or a format probe: same data, new validation time and headers. */
  async updateState(key: string, state: CacheState): Promise<CacheState> {
    await this.#writeState(key, state);
    return state;
  }

  async #writeState(key: string, state: CacheState): Promise<void> {
    await this.#ensureDirs();
    const target = this.statePath(key);
    await writeThroughTemp(target, async (handle) => {
      await handle.writeFile(`${JSON.stringify(state, null, 1)}\n`);
      await handle.sync();
    });
  }

  /** Remove this key's data files and sidecars that no state names any more, and stale temp files. */
  async #removeOrphans(key: string, keep: string): Promise<void> {
    const keepPrefix = keep.replace(/\.(json|shards\.msgpack|missing)$/, '');
    const now = Date.now();
    for (const name of await readdir(this.entriesDir)) {
      if (!name.startsWith(`${key}.`) || name === `${key}.state.json` || name.startsWith(keepPrefix)) continue;
      const path = join(this.entriesDir, name);
      const info = await stat(path).catch(() => null);
      if (!info) continue;
      const maxAge = name.endsWith('.tmp') ? TEMP_MAX_AGE_MS : ORPHAN_MAX_AGE_MS;
      if (now - info.mtimeMs > maxAge) await unlink(path).catch(() => undefined);
    }
  }

  shardPath(sha256: string): string {
    return join(this.shardsDir, `${sha256}.msgpack.zst`);
  }

  /** A cached shard's bytes (as fetched, zstd), or null when absent. The caller checks the hash. */
  async readShard(sha256: string): Promise<Buffer | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    return readSmallFile(this.shardPath(sha256));
  }

  /** Store a verified shard (atomically; another process writing the same shard is harmless). */
  async writeShard(sha256: string, bytes: Uint8Array): Promise<void> {
    if (!SHA256_HEX.test(sha256)) throw new RepodataCacheError(`invalid shard hash ${JSON.stringify(sha256)}`);
    await this.#ensureDirs();
    const target = this.shardPath(sha256);
    await writeSmallFile(target, bytes);
  }

  /** Delete a shard found to be corrupt. */
  async removeShard(sha256: string): Promise<void> {
    if (SHA256_HEX.test(sha256)) await unlink(this.shardPath(sha256)).catch(() => undefined);
  }
}
