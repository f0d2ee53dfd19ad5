/**
 * Node file access for the lazy index, apart so the index itself works on plain bytes: index
 * sidecars, and `loadIndexFromCache`, a ready index for a cached JSON file. With a valid sidecar
 * nothing is scanned; the JSON is read whole into shared memory (`bytes: 'memory'`, needed to hand
 * the index to workers) or left on disk (`'positional'`, least memory; bench/load-index.ts).
 * Paths come from the cache, never from users; a sidecar is checked against the JSON's length and
 * fingerprint and its own checksum, and a bad one is rebuilt, not trusted.
 */
import type { ShareableSubdirIndex } from '../monolithic.js';
import { RepodataIndexUnsupportedError, describeSource } from '../parse-errors.js';
import type { RepodataSource } from '../record-normalise.js';
import type { IndexRows } from './index-rows.js';
import { LazySubdirIndex, bytesInMemory, type RepodataBytes } from './lazy-subdir-index.js';
import { RecordCacheFile } from './record-cache.js';
import { RepodataFile, writeFileAtomic } from './repodata-file.js';
import { encodeIndexSidecar, openIndexSidecar } from './sidecar.js';
import { fingerprintWith, type RepodataIndexTables } from './span-tables.js';

/** Write a sidecar atomically (temporary file, then rename), so a reader never sees half of one. */
export function writeIndexSidecar(path: string, tables: RepodataIndexTables): void {
  writeFileAtomic(path, encodeIndexSidecar(tables));
}

/**
 * Open a sidecar lazily (its name table read and checked now, rows on demand; the file stays open
 * until the rows are closed) and check it against the JSON it claims to describe. Throws
 * `RepodataIndexUnsupportedError` when it does not belong to `json`, or is damaged or stale.
 */
export function openSidecarFile(path: string, json: RepodataBytes, where: string): IndexRows {
  const file = RepodataFile.open(path);
  try {
    const expected = { byteLength: json.length, fingerprint: fingerprintWith(json.length, (start, end) => json.read(start, end)) };
    return openIndexSidecar(file, expected, where);
  } catch (error) {
    file.close();
    throw error;
  }
}

/**
 * Read a sidecar's whole tables into shared memory, every row checked. Throws
 * `RepodataIndexUnsupportedError` when it does not belong to `json`, or is damaged.
 */
export function readIndexSidecar(path: string, json: RepodataBytes, where: string): RepodataIndexTables {
  const rows = openSidecarFile(path, json, where);
  try {
    return rows.tables();
  } finally {
    rows.close?.();
  }
}

export interface LoadIndexOptions {
  /** The cached repodata.json. */
  readonly jsonPath: string;
  /** Where the index sidecar lives; default `<jsonPath>.index`. */
  readonly sidecarPath?: string;
  readonly source: RepodataSource;
  /** With a valid sidecar: read the JSON whole into shared memory, or span by span. Default `memory`. */
  readonly bytes?: 'memory' | 'positional';
  /** Write a sidecar after scanning. Default true. */
  readonly writeSidecar?: boolean;
}

export interface LoadedIndex {
  readonly index: ShareableSubdirIndex;
  /** `sidecar`: no scan; `scan`: scanned (and sidecar written). */
  readonly from: 'sidecar' | 'scan';
}

/**
 * A ready index for a cached repodata.json: from its sidecar when one matches, else by scanning
 * (writing the sidecar for next time). Throws `RepodataParseError` for a bad document;
 * a failure to write the sidecar is not an error (the index is still returned).
 */
export function loadIndexFromCache(options: LoadIndexOptions): LoadedIndex {
  const sidecarPath = options.sidecarPath ?? `${options.jsonPath}.index`;
  const where = describeSource(options.source.channel.name, options.source.subdir);
  const writeSidecar = options.writeSidecar ?? true;
  const file = RepodataFile.open(options.jsonPath);
  const reject = (error: unknown): null => {
    // Missing or not matching: rebuild below. Anything else (permissions, I/O) is worth surfacing.
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    if (!missing && !(error instanceof RepodataIndexUnsupportedError)) {
      file.close();
      throw error;
    }
    return null;
  };
  let rows: IndexRows | null = null;
  try {
    rows = openSidecarFile(sidecarPath, file, where);
  } catch (error) {
    reject(error);
  }
  if (rows !== null && (options.bytes ?? 'memory') === 'positional') {
    // Rows damaged on disk are found when read; the index rescans then, and the sidecar is rewritten.
    const onRebuilt = writeSidecar ? (tables: RepodataIndexTables) => writeIndexSidecar(sidecarPath, tables) : undefined;
    const recordCache = (key: string) => new RecordCacheFile(`${sidecarPath}.records`, key);
    return { index: new LazySubdirIndex(rows, file, options.source, { onRebuilt, recordCache }), from: 'sidecar' };
  }
  if (rows !== null) {
    let tables: RepodataIndexTables | null = null;
    try {
      tables = rows.tables();
    } catch (error) {
      reject(error);
    } finally {
      rows.close?.();
    }
    if (tables !== null) {
      const bytes = file.readAll();
      file.close();
      return { index: new LazySubdirIndex(tables, bytesInMemory(bytes), options.source), from: 'sidecar' };
    }
  }
  let bytes: Uint8Array;
  try {
    bytes = file.readAll();
  } finally {
    file.close();
  }
  const index = LazySubdirIndex.fromBytes(bytes, options.source);
  if (writeSidecar) {
    try {
      writeIndexSidecar(sidecarPath, index.tables);
    } catch {
      // A read-only cache still works; the next start scans again.
    }
  }
  return { index, from: 'scan' };
}
