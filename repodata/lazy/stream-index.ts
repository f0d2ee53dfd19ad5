/**
 * Cold loads in one pass: a repodata.json is indexed by `RepodataStreamScanner` while it is written
 * (a download going to the cache's temp file) or read (a local channel's file), and the index then
 * reads records from that file by position. Nothing holds the whole document, and nothing reads it
 * a second time; the sidecar is written from the tables at the end.
 *
 * A document the lazy scan declines (`RepodataIndexUnsupportedError`: a file name repeated under
 * two package names, integer-like keys) is parsed eagerly from the file instead, as before.
 */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import type { CacheWriter } from '../cache.js';
import { indexRepodata, type ShareableSubdirIndex } from '../monolithic.js';
import { RepodataIndexUnsupportedError, describeSource } from '../parse-errors.js';
import type { RepodataSource } from '../record-normalise.js';
import { toSharedBytes } from '../shared-memory.js';
import { writeIndexSidecar } from './cached-repodata.js';
import { RepodataFile } from './repodata-file.js';
import { RecordCacheFile } from './record-cache.js';
import { LazySubdirIndex, bytesInMemory } from './lazy-subdir-index.js';
import type { RepodataIndexTables } from './span-tables.js';
import { RepodataStreamScanner } from './stream-scan.js';

/** Size of each read of a local file. */
const READ_CHUNK = 1 << 20;

/**
 * Indexes the bytes pushed to it, which must be in `path` (written there before each push): the
 * scanner reads a few of them back at the end (the fingerprint) and for an error's line number.
 */
export class StreamIndexer {
  readonly #scanner: RepodataStreamScanner;
  readonly #path: string;
  #file: RepodataFile | null = null;
  #declined = false;

  constructor(path: string, source: RepodataSource, expectedBytes?: number) {
    this.#path = path;
    this.#scanner = new RepodataStreamScanner(describeSource(source.channel.name, source.subdir), {
      expectedBytes,
      read: (start, end) => {
        this.#file ??= RepodataFile.open(this.#path);
        return this.#file.read(start, end);
      },
    });
  }

  /** The scanner's input buffer, for tests of bounded memory. */
  get heldBytes(): number {
    return this.#scanner.heldBytes;
  }

  /** Throws `RepodataParseError` as soon as the document is found broken. */
  push(chunk: Uint8Array): void {
    if (this.#declined) return;
    try {
      this.#scanner.push(chunk);
    } catch (error) {
      if (!(error instanceof RepodataIndexUnsupportedError)) throw error;
      this.#declined = true;
    }
  }

  /** The tables, or null when the lazy scan declined the document (index it eagerly). */
  finish(): RepodataIndexTables | null {
    try {
      if (this.#declined) return null;
      return this.#scanner.finish();
    } catch (error) {
      if (error instanceof RepodataIndexUnsupportedError) return null;
      throw error;
    } finally {
      this.#file?.close();
      this.#file = null;
    }
  }
}

/** A download written, hashed and indexed: the tables (null when the scan declined), size and sha256. */
export interface IndexedDocument {
  readonly tables: RepodataIndexTables | null;
  readonly size: number;
  readonly sha256: string;
}

/** A piece of the document is written in batches of at least this size. */
const WRITE_BYTES = 1 << 20;

/**
 * Where a download's bytes go: its temp file (through a cache writer), the hash and the scanner,
 * as they arrive. Pieces (the network's ~64 kB,
 * the zstd decoder's ~128 kB) are gathered into writes of a megabyte: one write per piece cost more
 * than the decoding. The scanner reads the batch before while the file system writes this one, so
 * every byte it has seen is on disk (an error's line number is counted from the file).
 */
export class DownloadIndexer {
  readonly #writer: CacheWriter;
  readonly #indexer: StreamIndexer;
  readonly #hash = createHash('sha256');
  #pieces: Uint8Array[] = [];
  #gathered = 0;
  #written: Uint8Array[] = [];
  #size = 0;

  constructor(writer: CacheWriter, source: RepodataSource, expectedBytes?: number) {
    this.#writer = writer;
    this.#indexer = new StreamIndexer(writer.path, source, expectedBytes);
  }

  /** The next bytes; throws `RepodataParseError` once the document is found broken. */
  async push(chunk: Uint8Array): Promise<void> {
    this.#pieces.push(chunk);
    this.#gathered += chunk.length;
    if (this.#gathered >= WRITE_BYTES) await this.#flush();
  }

  async finish(): Promise<IndexedDocument> {
    await this.#flush();
    await this.#flush();
    return { tables: this.#indexer.finish(), size: this.#size, sha256: this.#hash.digest('hex') };
  }

  /** Give up (the caller discards the temp file). */
  abort(): void {
    this.#pieces = [];
    this.#written = [];
  }

  async #flush(): Promise<void> {
    const batch = this.#pieces;
    this.#pieces = [];
    this.#gathered = 0;
    const writing = batch.length > 0 ? this.#writer.write(...batch) : Promise.resolve();
    try {
      for (const piece of this.#written) {
        this.#hash.update(piece);
        this.#size += piece.length;
        this.#indexer.push(piece);
      }
    } catch (error) {
      await writing.catch(() => undefined);
      throw error;
    }
    this.#written = batch;
    await writing;
  }
}

/** Index a repodata.json on disk in one streaming read; null when the lazy scan declines it. */
export async function scanRepodataFile(path: string, source: RepodataSource): Promise<RepodataIndexTables | null> {
  const handle = await open(path, 'r');
  try {
    const indexer = new StreamIndexer(path, source, (await handle.stat()).size);
    const buffer = new Uint8Array(READ_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      indexer.push(buffer.subarray(0, bytesRead));
    }
    return indexer.finish();
  } finally {
    await handle.close();
  }
}

/**
 * The index over `path` once it is complete: lazy over its tables (records read by position, or
 * the file read whole into shared memory for `memory`), or eager when `tables` is null. A
 * positional index keeps the records it reads in the record cache of the sidecar at `sidecarPath`
 * (`record-cache.ts`), so the next run has them too.
 */
export async function openScannedIndex(
  path: string,
  tables: RepodataIndexTables | null,
  source: RepodataSource,
  bytes: 'memory' | 'positional',
  sidecarPath?: string,
): Promise<ShareableSubdirIndex> {
  if (tables === null) return indexRepodata(toSharedBytes(await readFile(path)), source);
  const file = RepodataFile.open(path);
  if (bytes === 'positional') {
    const recordCache = sidecarPath === undefined ? undefined : (key: string) => new RecordCacheFile(`${sidecarPath}.records`, key);
    return new LazySubdirIndex(tables, file, source, { recordCache });
  }
  try {
    return new LazySubdirIndex(tables, bytesInMemory(file.readAll()), source);
  } finally {
    file.close();
  }
}

/** Write the sidecar of `tables`; a cache that cannot take it still works (the next start scans). */
export function keepSidecar(path: string, tables: RepodataIndexTables | null): void {
  if (tables === null) return;
  try {
    writeIndexSidecar(path, tables);
  } catch {
    // See above.
  }
}
