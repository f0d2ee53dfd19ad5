/**
 * A `SubdirIndex` over the raw bytes of a monolithic repodata.json: one scan records where each
 * package name's records are (`json-scan.ts`), and `records(name)` parses only those spans, through
 * the same normaliser as the eager parser, on first request.
 *
 * The bytes and the tables live in SharedArrayBuffers, so `toShared()` hands a worker thread a
 * plain structured-cloneable handle and `fromShared()` rebuilds the index there over the same memory
 * (each thread keeps its own cache of parsed records). The bytes may also be a positional reader
 * over a cached file (`cached-repodata.ts`), so a warm start with a sidecar reads only the spans it needs.
 *
 * The tables are reached through `IndexRows` (`index-rows.ts`): whole tables in memory, or a sidecar
 * that keeps only its name table in memory and reads a name's rows on first request. When a
 * sidecar's rows turn out damaged, the index scans the bytes again, carries on with fresh tables,
 * and hands them to `onRebuilt` (which rewrites the sidecar).
 *
 * Performance notes: a name's rows are contiguous in the tables, and in conda channels its records
 * are contiguous in the file (keys are sorted), so one name costs one or two reads of its byte range.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { fragmentSyntaxError } from '../parse.js';
import { RepodataIndexUnsupportedError, RepodataParseError, describeSource } from '../parse-errors.js';
import { normaliseRecordOrSkip, recordContext, type RecordContext, type RepodataSource } from '../record-normalise.js';
import { toSharedBytes } from '../shared-memory.js';
import type { ChannelRef, SubdirIndex } from '../types.js';
import { scanRepodata } from './stream-scan.js';
import { IndexSidecarDamagedError, isIndexRows, rowsInMemory, type IndexRows, type NameRows } from './index-rows.js';
import type { RepodataIndexTables } from './span-tables.js';
import type { RepodataInfo } from '../record-normalise.js';

/** Random access to the bytes of one repodata.json. */
export interface RepodataBytes {
  readonly length: number;
  /** The bytes `[start, end)`; may be a view into shared memory, never to be modified. */
  read(start: number, end: number): Uint8Array;
  /** True when each `read` costs a system call, so nearby spans should be read together. */
  readonly positional: boolean;
  /** All the bytes, in shared memory when the platform has it (for `toShared`). */
  readAll(): Uint8Array;
  /** Release what the source holds open (a file descriptor); reads fail afterwards. */
  close?(): void;
}

/** `RepodataBytes` over bytes already in memory. */
export function bytesInMemory(bytes: Uint8Array): RepodataBytes {
  return {
    length: bytes.length,
    positional: false,
    read: (start, end) => bytes.subarray(start, end),
    readAll: () => bytes,
  };
}

/** The structured-cloneable form of a lazy index, for `postMessage` to a worker thread. */
export interface SharedLazyIndexHandle {
  readonly kind: 'conda-resolve/lazy-subdir-index';
  readonly version: 1;
  readonly channel: ChannelRef;
  readonly subdir: string;
  /** The repodata.json bytes, over a SharedArrayBuffer. */
  readonly bytes: Uint8Array;
  readonly tables: RepodataIndexTables;
}

/** Spans closer than this are read together from a positional source. */
const READ_GAP = 64 * 1024;
const EMPTY: readonly PackageRecord[] = Object.freeze([]);
const decoder = new TextDecoder();

export interface LazyIndexOptions {
  /** Called with fresh tables after damaged sidecar rows made the index scan its bytes again. */
  readonly onRebuilt?: (tables: RepodataIndexTables) => void;
  /**
   * Records read by an earlier process (`record-cache.ts`), made for `recordCacheKey` of this
   * index; names read here are handed to it and saved once the work of the moment is done.
   */
  readonly recordCache?: ((key: string) => RecordCache) | undefined;
}

/** Where already-normalised records of names are kept between processes. */
export interface RecordCache {
  get(name: string): PackageRecord[] | undefined;
  remember(name: string, records: readonly PackageRecord[]): void;
  save(): void;
  close(): void;
}

export class LazySubdirIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly #bytes: RepodataBytes;
  readonly #context: RecordContext;
  readonly #where: string;
  readonly #onRebuilt: ((tables: RepodataIndexTables) => void) | undefined;
  readonly #recordCache: RecordCache | undefined;
  #saveScheduled = false;
  #rows: IndexRows;
  #rebuilt = false;
  readonly #ids = new Map<string, number>();
  readonly #records = new Map<string, readonly PackageRecord[]>();
  #names: string[] | null = null;

  /**
   * An index over `bytes` with tables built for them (by `scanRepodata` or read from a sidecar),
   * whole or as a row source. Throws `RepodataIndexUnsupportedError` when the tables do not
   * describe bytes of this length.
   */
  constructor(tables: RepodataIndexTables | IndexRows, bytes: RepodataBytes, source: RepodataSource, options: LazyIndexOptions = {}) {
    const rows = isIndexRows(tables) ? tables : rowsInMemory(tables);
    const subdir = source.subdir ?? rows.info.subdir;
    const where = describeSource(source.channel.name, subdir);
    if (bytes.length !== rows.byteLength) {
      throw new RepodataIndexUnsupportedError(where, `the index describes ${rows.byteLength} bytes but the document has ${bytes.length}`);
    }
    if (!subdir) throw new RepodataParseError(where, 'the document names no subdir ("info.subdir") and none was given');
    this.channel = source.channel;
    this.subdir = subdir;
    this.#rows = rows;
    this.#bytes = bytes;
    this.#where = where;
    this.#onRebuilt = options.onRebuilt;
    this.#context = recordContext(source, rows.info);
    this.#recordCache = options.recordCache?.(recordCacheKey(rows, this.#context));
  }

  /** Scan `bytes` (a whole repodata.json) and index it. See `scanRepodata` for the errors. */
  static fromBytes(bytes: Uint8Array, source: RepodataSource): LazySubdirIndex {
    const where = describeSource(source.channel.name, source.subdir);
    return new LazySubdirIndex(scanRepodata(bytes, where), bytesInMemory(bytes), source);
  }

  /** Rebuild an index in this thread over the memory of a handle made by `toShared()`. */
  static fromShared(handle: SharedLazyIndexHandle): LazySubdirIndex {
    return new LazySubdirIndex(handle.tables, bytesInMemory(handle.bytes), { channel: handle.channel, subdir: handle.subdir });
  }

  get recordCount(): number {
    return this.#rows.recordCount;
  }

  /** The document's `info` (no rows read). */
  get info(): RepodataInfo {
    return this.#rows.info;
  }

  /** The whole tables (over a sidecar: every row read and checked once, kept afterwards). */
  get tables(): RepodataIndexTables {
    return this.#withRows(() => this.#rows.tables());
  }

  /** Names with at least one record, in first-seen order. */
  names(): Iterable<string> {
    if (this.#names === null) {
      const rows = this.#rows;
      const names: string[] = [];
      for (let id = 0; id < rows.nameCount; id++) if (rows.rowCount(id) > 0) names.push(rows.nameAt(id));
      this.#names = names;
    }
    return this.#names;
  }

  has(name: string): boolean {
    const id = this.#id(name);
    return id >= 0 && this.#rows.rowCount(id) > 0;
  }

  records(name: string): readonly PackageRecord[] {
    let records = this.#records.get(name);
    if (records === undefined) {
      records = this.#cachedRecords(name);
      if (records === undefined) {
        records = this.#withRows(() => {
          const id = this.#id(name);
          return id < 0 ? EMPTY : this.#parseName(this.#rows.rows(id), name);
        });
        this.#keep(name, records);
      }
      this.#records.set(name, records);
    }
    return records;
  }

  /**
   * A handle for `postMessage`: the bytes (copied into a SharedArrayBuffer once, if they are not
   * already there; a file-backed index reads its whole file) and the tables, shared, not copied.
   */
  toShared(): SharedLazyIndexHandle {
    const bytes = toSharedBytes(this.#bytes.readAll());
    return { kind: 'conda-resolve/lazy-subdir-index', version: 1, channel: this.channel, subdir: this.subdir, bytes, tables: this.tables };
  }

  /** Release the bytes' source (a file-backed index closes its file); the index is unusable afterwards. */
  close(): void {
    this.#bytes.close?.();
    this.#rows.close?.();
    this.#recordCache?.close();
  }

  /** `name`'s records from the record cache, when it has them (each checked to be of `name`). */
  #cachedRecords(name: string): readonly PackageRecord[] | undefined {
    const cached = this.#recordCache?.get(name);
    if (cached === undefined) return undefined;
    for (const record of cached) if (record === null || typeof record !== 'object' || record.name !== name) return undefined;
    return cached.length === 0 ? EMPTY : cached;
  }

  /** Hand `name`'s records to the record cache, saved once the current work yields. */
  #keep(name: string, records: readonly PackageRecord[]): void {
    const cache = this.#recordCache;
    if (cache === undefined) return;
    cache.remember(name, records);
    if (this.#saveScheduled) return;
    this.#saveScheduled = true;
    // A solve reads its names in one synchronous stretch: one write after it, not one per name.
    // An immediate, not a timer: it runs before the CLI's last look for pending work (exit-when-idle.ts).
    setImmediate(() => {
      this.#saveScheduled = false;
      cache.save();
    });
  }

  #id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.#rows.lookup(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  /**
   * Run `read` over the rows; when a sidecar's rows are damaged, scan the bytes again (once), carry
   * on with the fresh tables and offer them to `onRebuilt`.
   */
  #withRows<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (this.#rebuilt || !(error instanceof IndexSidecarDamagedError)) throw error;
    }
    this.#rebuilt = true;
    const tables = scanRepodata(this.#bytes.readAll(), this.#where);
    this.#rows.close?.();
    this.#rows = rowsInMemory(tables);
    this.#ids.clear();
    this.#names = null;
    try {
      this.#onRebuilt?.(tables);
    } catch {
      // The sidecar stays damaged on disk: the next start detects it again and rebuilds.
    }
    return read();
  }

  #parseName(rows: NameRows, name: string): readonly PackageRecord[] {
    const { fnStart, fnEnd, recStart, recEnd } = rows;
    const first = 0;
    const last = fnStart.length;
    if (first === last) return EMPTY;
    // A slot stays null for a record over a bound (left out below).
    const out: (PackageRecord | null)[] = new Array<PackageRecord | null>(last - first);
    let row = first;
    while (row < last) {
      // One read per run of nearby rows (rows are in file order within each section).
      const lo = fnStart[row] - 1; // from the key's opening quote
      let hi = recEnd[row];
      let end = row + 1;
      if (this.#bytes.positional) {
        while (end < last && fnStart[end] >= hi && fnStart[end] - hi < READ_GAP) hi = recEnd[end++];
      } else {
        while (end < last && fnStart[end] >= hi) hi = recEnd[end++];
      }
      const window = this.#bytes.read(lo, hi);
      while (row < end) {
        // Rows that follow each other in the file (`"fn": {...}, "fn": {...}`) are parsed with one
        // JSON.parse as an object body: far fewer calls than one per record.
        let runEnd = row + 1;
        while (
          runEnd < end &&
          keyValueAdjacent(window, fnEnd[runEnd - 1] - lo, recStart[runEnd - 1] - lo) &&
          entriesAdjacent(window, recEnd[runEnd - 1] - lo, fnStart[runEnd] - 1 - lo)
        ) {
          runEnd++;
        }
        if (
          runEnd - row > 1 &&
          keyValueAdjacent(window, fnEnd[runEnd - 1] - lo, recStart[runEnd - 1] - lo) &&
          this.#parseRun(rows, window, lo, row, runEnd, name, out)
        ) {
          row = runEnd;
          continue;
        }
        for (; row < runEnd; row++) out[row] = this.#parseRow(rows, window, lo, row, name);
      }
    }
    return out.includes(null) ? out.filter((record) => record !== null) : (out as PackageRecord[]);
  }

  #parseRow(rows: NameRows, window: Uint8Array, lo: number, row: number, name: string): PackageRecord | null {
    const { fnStart, fnEnd, recStart, recEnd } = rows;
    const fn = decodeKey(window, fnStart[row] - lo, fnEnd[row] - lo);
    return this.#checked(
      normaliseRecordOrSkip(this.#parseRecord(window, recStart[row] - lo, recEnd[row] - lo, recStart[row], fn), fn, this.#context),
      fn,
      name,
    );
  }

  /** Parse rows `[row, runEnd)` in one go; false (nothing written) when that is not exact. */
  #parseRun(
    rows: NameRows,
    window: Uint8Array,
    lo: number,
    row: number,
    runEnd: number,
    name: string,
    out: (PackageRecord | null)[],
  ): boolean {
    const { fnStart, recEnd } = rows;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(`{${decoder.decode(window.subarray(fnStart[row] - 1 - lo, recEnd[runEnd - 1] - lo))}}`) as Record<
        string,
        unknown
      >;
    } catch {
      return false; // let the row-by-row path report the exact position
    }
    const fns = Object.keys(parsed);
    if (fns.length !== runEnd - row) return false;
    for (let i = 0; i < fns.length; i++) {
      const fn = fns[i];
      out[row + i] = this.#checked(normaliseRecordOrSkip(parsed[fn], fn, this.#context), fn, name);
    }
    return true;
  }

  #checked(record: PackageRecord | null, fn: string, name: string): PackageRecord | null {
    if (record !== null && record.name !== name) {
      throw new RepodataIndexUnsupportedError(
        this.#context.source,
        `record "${fn}" was indexed under "${name}" but is named "${record.name}"`,
      );
    }
    return record;
  }

  #parseRecord(window: Uint8Array, start: number, end: number, fileOffset: number, fn: string): unknown {
    const text = decoder.decode(window.subarray(start, end));
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw fragmentSyntaxError(this.#context.source, `record "${fn}"`, text, fileOffset, cause);
    }
  }
}

/** What records made from these rows depend on besides their JSON: the document and the record context. */
function recordCacheKey(rows: IndexRows, context: RecordContext): string {
  return JSON.stringify([
    rows.byteLength,
    rows.fingerprint,
    context.channel.name,
    context.channel.baseUrl,
    context.fallbackSubdir,
    context.packageBase,
  ]);
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Between a key's closing quote at `keyEnd` and its value at `valueStart`: only whitespace and ":". */
function keyValueAdjacent(window: Uint8Array, keyEnd: number, valueStart: number): boolean {
  let colons = 0;
  for (let i = keyEnd + 1; i < valueStart; i++) {
    const c = window[i];
    if (c === 0x3a) colons++;
    else if (!isWs(c)) return false;
  }
  return colons === 1;
}

/** Between one entry's end and the next key's opening quote: only whitespace and one ",". */
function entriesAdjacent(window: Uint8Array, end: number, nextKey: number): boolean {
  let commas = 0;
  for (let i = end; i < nextKey; i++) {
    const c = window[i];
    if (c === 0x2c) commas++;
    else if (!isWs(c)) return false;
  }
  return commas === 1;
}

function decodeKey(window: Uint8Array, start: number, end: number): string {
  const raw = window.subarray(start, end);
  // The key was checked by the scan; with escapes, JSON.parse of the quoted source decodes it exactly.
  return raw.includes(0x5c) ? (JSON.parse(decoder.decode(window.subarray(start - 1, end + 1))) as string) : decoder.decode(raw);
}
