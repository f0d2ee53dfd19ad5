/**
 * Cold loads in one pass: a repodata.json is indexed by `RepodataStreamScanner` while it is written
 * (a download going to the cache's temp file) or read (a local channel's file), and the index then
 * reads records from that file by position. Nothing holds the whole document, and nothing reads it
 * a second time; the sidecar is written from the tables at the end.
 */
import { open } from 'node:fs/promises';
import type { CacheWriter } from '../cache.js';
import type { ShareableSubdirIndex } from '../monolithic.js';
import { describeSource } from '../parse-errors.js';
import type { RepodataSource } from '../record-normalise.js';
import { writeIndexSidecar } from './cached-repodata.js';
import { documentHash, type DocumentHash } from './document-hash.js';
import { RepodataFile } from './repodata-file.js';
import { RecordCacheFile } from './record-cache.js';
import { LazySubdirIndex, bytesInMemory } from './lazy-subdir-index.js';
import type { RepodataIndexTables } from './span-tables.js';
import { RepodataStreamScanner } from './stream-scan.js';

/** Size of each read of a local file. */
const READ_CHUNK = 1 << 20;

/**
 * Indexes the bytes pushed to it. The scanner reads a few of them back at the end (the
 * fingerprint) and for an error's line number: from `path` unless the caller says where.
 */
export class StreamIndexer {
  readonly #scanner: RepodataStreamScanner;
  readonly #path: string;
  #file: RepodataFile | null = null;

  /** `read` gives back bytes already pushed (default: from `path`, where they must be by then). */
  constructor(path: string, source: RepodataSource, expectedBytes?: number, read?: (start: number, end: number) => Uint8Array) {
    this.#path = path;
    this.#scanner = new RepodataStreamScanner(describeSource(source.channel.name, source.subdir), {
      expectedBytes,
      read:
        read ??
        ((start, end) => {
          this.#file ??= RepodataFile.open(this.#path);
          return this.#file.read(start, end);
        }),
    });
  }

  /** The scanner's input buffer, for tests of bounded memory. */
  get heldBytes(): number {
    return this.#scanner.heldBytes;
  }

  /** Throws `RepodataParseError` as soon as the document is found broken. */
  push(chunk: Uint8Array): void {
    this.#scanner.push(chunk);
  }

  /** The tables; throws `RepodataParseError` for a bad document. */
  finish(): RepodataIndexTables {
    try {
      return this.#scanner.finish();
    } finally {
      this.#file?.close();
      this.#file = null;
    }
  }
}

/** A batch handed to the file system and the hash. */
interface InFlight {
  readonly bytes: Uint8Array;
  /** Written, and hashed: then its memory can be reused. */
  written: boolean;
  hashed: boolean;
  /** Settles when both are done (rejects with a failed write). */
  settled: Promise<void> | null;
}

/** A download written, hashed and indexed: the tables, size and sha256. */
export interface IndexedDocument {
  readonly tables: RepodataIndexTables;
  readonly size: number;
  readonly sha256: string;
}

/** A piece of the document is written in batches of at least this size. */
const WRITE_BYTES = 1 << 20;
/** Past this many bytes handed to the file system and not yet written, `push` asks its caller to wait. */
const MAX_UNWRITTEN = 16 << 20;

/**
 * Where a download's bytes go: the hash and the scanner at once, as they arrive, and its temp file
 * (through a cache writer) behind them, copied into reused batches of a megabyte that are each
 * written at their own offset (one write per ~64 kB piece cost more than the decoding). A byte the
 * scanner asks for again (the fingerprint at the end, an error's line number) is read from the
 * file once written, else from the batches still held for writing.
 */
export class DownloadIndexer {
  readonly #writer: CacheWriter;
  readonly #indexer: StreamIndexer;
  readonly #hash: DocumentHash;
  /** The batch being filled (`#gathered` bytes so far), null before the first byte. */
  #batch: Uint8Array | null = null;
  #gathered = 0;
  /** Batches whose writes are done, for reuse. */
  readonly #spare: Uint8Array[] = [];
  /** Batches handed to the file system and not yet counted durable, in document order. */
  readonly #inFlight: InFlight[] = [];
  /** Bytes handed to writes so far. */
  #issued = 0;
  /** Bytes from the document's start that are in the file. */
  #durable = 0;
  #size = 0;

  #writeError: unknown = null;
  #file: RepodataFile | null = null;

  /**
   * `expectedBytes`: the document's length when known; `hashOffThread`: hash on the worker thread
   * (`document-hash.ts`), for a large document.
   */
  constructor(writer: CacheWriter, source: RepodataSource, expectedBytes?: number, hashOffThread = false) {
    this.#writer = writer;
    this.#hash = documentHash(hashOffThread);
    this.#indexer = new StreamIndexer(writer.path, source, expectedBytes, (start, end) => this.#read(start, end));
  }

  /**
   * The next bytes; throws `RepodataParseError` once the document is found broken, or the error
   * of a failed write. Returns a promise to wait for when the writes have fallen far behind (a
   * caller that can wait should), else nothing.
   */
  push(chunk: Uint8Array): Promise<void> | undefined {
    if (this.#writeError !== null) throw this.#writeError;
    this.#size += chunk.length;
    // Copied into the batch before the scan sees it, so an error's line count can read it back.
    // Copied, not kept: a network chunk held until its write is done outlives a few young-generation
    // collections, and its 64 kB of memory is then freed only by a full one (the process grew to
    // twice the memory and faulted in fresh pages for every socket read).
    for (let at = 0; at < chunk.length; ) {
      if (this.#batch === null || this.#gathered === this.#batch.length) {
        this.#flush();
        this.#batch =
          this.#spare.pop() ?? new Uint8Array(this.#hash.shared ? new SharedArrayBuffer(WRITE_BYTES) : new ArrayBuffer(WRITE_BYTES));
      }
      const take = Math.min(chunk.length - at, this.#batch.length - this.#gathered);
      this.#batch.set(chunk.subarray(at, at + take), this.#gathered);
      this.#gathered += take;
      at += take;
    }
    this.#indexer.push(chunk);
    return this.#issued - this.#durable > MAX_UNWRITTEN ? this.#allWritten() : undefined;
  }

  async finish(): Promise<IndexedDocument> {
    this.#flush();
    await this.#allWritten();
    if (this.#writeError !== null) throw this.#writeError;
    try {
      const tables = this.#indexer.finish();
      return { tables, size: this.#size, sha256: await this.#hash.digest() };
    } finally {
      this.#closeFile();
    }
  }

  /** Give up (the caller discards the temp file); writes still in flight end on their own. */
  abort(): void {
    this.#batch = null;
    this.#gathered = 0;
    this.#writeError ??= new Error('the download was abandoned');
    this.#hash.abort();
    this.#closeFile();
  }

  #flush(): void {
    if (this.#batch === null || this.#gathered === 0 || this.#writeError !== null) return;
    const entry: InFlight = { bytes: this.#batch.subarray(0, this.#gathered), written: false, hashed: false, settled: null };
    this.#batch = null;
    this.#gathered = 0;
    this.#inFlight.push(entry);
    // Each batch is written at its own offset at once: a busy reader lets the event loop turn
    // about once per socket read, so writes that waited for each other would fall behind.
    const position = this.#issued;
    this.#issued += entry.bytes.length;
    const hashed = new Promise<void>((resolve) =>
      this.#hash.update(entry.bytes, () => {
        entry.hashed = true;
        this.#settle();
        resolve();
      }),
    );
    const written = this.#writer.writeAt(position, [entry.bytes]).then(
      () => {
        entry.written = true;
        this.#settle();
      },
      (error: unknown) => {
        this.#writeError ??= error;
      },
    );
    entry.settled = Promise.all([hashed, written]).then(() => undefined);
  }

  /** Count the written prefix as durable, and reuse its batches. */
  #settle(): void {
    const inFlight = this.#inFlight;
    let i = 0;
    while (i < inFlight.length && inFlight[i]!.written && inFlight[i]!.hashed) {
      const written = inFlight[i++]!.bytes;
      this.#durable += written.length;
      if (written.length === WRITE_BYTES) this.#spare.push(written);
    }
    if (i > 0) inFlight.splice(0, i);
  }

  /** Document bytes `[start, end)`, all pushed already: from the file as far as it is written, then from memory. */
  #read(start: number, end: number): Uint8Array {
    const durable = this.#durable;
    this.#file ??= RepodataFile.open(this.#writer.path);
    if (end <= durable) return this.#file.read(start, end);
    const out = new Uint8Array(end - start);
    if (start < durable) out.set(this.#file.read(start, durable), 0);
    const held = this.#inFlight.map((entry) => entry.bytes);
    if (this.#batch !== null) held.push(this.#batch.subarray(0, this.#gathered));
    let at = durable;
    for (const piece of held) {
      const pieceEnd = at + piece.length;
      const from = Math.max(start, at);
      const to = Math.min(end, pieceEnd);
      if (from < to) out.set(piece.subarray(from - at, to - at), from - start);
      at = pieceEnd;
      if (at >= end) break;
    }
    return out;
  }

  async #allWritten(): Promise<void> {
    await Promise.all(this.#inFlight.map((entry) => entry.settled));
  }

  #closeFile(): void {
    this.#file?.close();
    this.#file = null;
  }
}

/** Index a repodata.json on disk in one streaming read. */
export async function scanRepodataFile(path: string, source: RepodataSource): Promise<RepodataIndexTables> {
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
 * The index over `path` once it is complete: lazy over its tables, records read by position, or
 * the file read whole into shared memory for `memory`. A
 * positional index keeps the records it reads in the record cache of the sidecar at `sidecarPath`
 * (`record-cache.ts`), so the next run has them too.
 */
export async function openScannedIndex(
  path: string,
  tables: RepodataIndexTables,
  source: RepodataSource,
  bytes: 'memory' | 'positional',
  sidecarPath?: string,
): Promise<ShareableSubdirIndex> {
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
export function keepSidecar(path: string, tables: RepodataIndexTables): void {
  try {
    writeIndexSidecar(path, tables);
  } catch {
    // See above.
  }
}
