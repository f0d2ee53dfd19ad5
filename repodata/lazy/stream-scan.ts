/**
 * The repodata.json scan behind `LazySubdirIndex`, fed in chunks as a document arrives: per record
 * it keeps the file name's and the record's byte spans and the package name, never the document.
 * One exact byte scan (`#unit`, states `Phase` in document order) reads it; in package sections it
 * first hands entries to the WebAssembly entry scan (`entry-scan.ts`), which takes the common shape,
 * is several times faster on conda-forge-sized documents (bench/RESULTS.md) and leaves anything
 * else to the byte scan. test/repodata/stream-scan.test.ts holds the two to the byte scan alone.
 * A unit cut by the end of the bytes so far is read again once the buffer has doubled (linear in a
 * huge value), and none may pass `MAX_UNIT_BYTES`.
 */
import { RepodataParseError } from '../parse-errors.js';
import { checkRepodataVersion, fragmentSyntaxError } from '../parse.js';
import { readRepodataInfo } from '../record-normalise.js';
import { EntryScan, RowFlag, Stop } from './entry-scan.js';
import { arrayIndexValue, buildTables, Column, DEAD, NameState, recordOut, scanRecordObject, UNUSABLE } from './json-scan.js';
import { FNV_OFFSET, FNV_PRIME, fingerprintWith, fnv1a, type RepodataIndexTables } from './span-tables.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Bytes read at a time when file names are read back. */
const GATHER_WINDOW = 4 << 20;

/**
 * The most one unit (one `"file name": {record}` entry, or one top-level value other than the
 * package sections) may take. conda-forge's largest are its `removed` lists, well under 1 MiB.
 */
export const MAX_UNIT_BYTES = 16 * 1024 * 1024;

/** Input is scanned once this much is buffered (fewer restarts of the unit cut by a chunk's end). */
export const SCAN_BATCH = 256 * 1024;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Thrown inside a unit that reaches the end of the bytes received so far. */
const NEED_MORE: unique symbol = Symbol('need more bytes');

/** What the next unit is, in document order. */
const Phase = {
  /** The "{" that opens the document. */
  Start: 0,
  /** After the document's "{": its first key or "}". */
  Opened: 1,
  /** A top-level key. */
  Key: 2,
  /** After a top-level key: its ":". */
  KeyColon: 3,
  /** After a top-level key's ":": what its value is. */
  KeyValue: 4,
  /** A top-level value other than a package section's object, read whole. */
  Value: 5,
  /** After a top-level value: "," or the closing "}". */
  AfterValue: 6,
  /** After a package section's "{": its first entry or "}". */
  Section: 7,
  /** One `"file name": value` entry of a package section. */
  Entry: 8,
  /** After an entry: "," or the section's "}". */
  EntrySeparator: 9,
  /** After the document's "}": only whitespace. */
  End: 10,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/** A growable byte store that hands out offsets. */
class ByteStore {
  // Small to start: a scanner makes two, and most documents' names and file names fit in a few kB.
  data = new Uint8Array(1 << 14);
  length = 0;

  append(from: Uint8Array, start: number, end: number): number {
    const at = this.length;
    const size = end - start;
    if (at + size > this.data.length) {
      const next = new Uint8Array(Math.max(this.data.length * 2, at + size));
      next.set(this.data.subarray(0, at));
      this.data = next;
    }
    this.data.set(from.subarray(start, end), at);
    this.length = at + size;
    return at;
  }
}

/** Distinct package names, their canonical UTF-8 bytes copied into a store. */
class NameTable {
  count = 0;
  readonly store = new ByteStore();
  #slots = new Int32Array(4096).fill(-1);
  #hashes = new Uint32Array(1024);
  #starts = new Uint32Array(1025);

  /** The id of the name in `b[start, end)` (raw JSON string content); `decode` undoes escapes. */
  id(b: Uint8Array, start: number, end: number, decode: () => string): number {
    let hash = FNV_OFFSET;
    let plain = true;
    for (let i = start; i < end; i++) {
      const c = b[i];
      if (c >= 0x80 || c === BACKSLASH) plain = false;
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }
    if (!plain) {
      const q = encoder.encode(decode());
      return this.plainId(q, 0, q.length, fnv1a(q, 0, q.length) >>> 0);
    }
    return this.plainId(b, start, end, hash >>> 0);
  }

  /** The id of the name whose canonical bytes are `q[qs, qe)`, with their FNV-1a hash. */
  plainId(q: Uint8Array, qs: number, qe: number, hash: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    const stored = this.store;
    for (;;) {
      const id = slots[slot];
      if (id === -1) break;
      if (this.#hashes[id] === hash) {
        const s = this.#starts[id];
        const length = this.#starts[id + 1] - s;
        if (length === qe - qs) {
          const data = stored.data;
          let i = 0;
          while (i < length && data[s + i] === q[qs + i]) i++;
          if (i === length) return id;
        }
      }
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    if (id + 1 >= this.#hashes.length) {
      const hashes = new Uint32Array(this.#hashes.length * 2);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
      const starts = new Uint32Array(this.#starts.length * 2);
      starts.set(this.#starts);
      this.#starts = starts;
    }
    this.#hashes[id] = hash;
    this.#starts[id] = stored.append(q, qs, qe);
    this.#starts[id + 1] = stored.length;
    if (this.count * 4 > slots.length) this.#rehash();
    else slots[slot] = id;
    return id;
  }

  bytes(id: number): Uint8Array {
    return this.store.data.subarray(this.#starts[id], this.#starts[id + 1]);
  }

  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.#hashes[id] & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.#slots = slots;
  }
}

export interface StreamScanOptions {
  /**
   * Reads bytes `[start, end)` of the document that were already pushed: for the fingerprint at the
   * end (66 small reads) and for the line and column of a syntax error. The caller has them on disk
   * (the file being read, or the temp file a download is written to before each push).
   */
  readonly read: (start: number, end: number) => Uint8Array;
  /** Scan once this many bytes are buffered; default `SCAN_BATCH`. */
  readonly batchBytes?: number;
  /** The document's expected length, when known (a file's size, a Content-Length): sizes the tables up front. */
  readonly expectedBytes?: number | undefined;
  /** Read every entry with the byte scan, without the WebAssembly entry scan: the tests' reference. */
  readonly exact?: boolean;
}

/** Bytes pushed at a time by `scanRepodata` (the scanner then holds a slice, not a copy of the document). */
const WHOLE_SLICE = 4 << 20;

/** Scan `bytes` (a complete repodata.json) and build its index tables. */
export function scanRepodata(bytes: Uint8Array, where: string, options: { readonly exact?: boolean } = {}): RepodataIndexTables {
  const scanner = new RepodataStreamScanner(where, {
    read: (start, end) => bytes.subarray(start, end),
    expectedBytes: bytes.length,
    exact: options.exact,
  });
  for (let at = 0; at < bytes.length; at += WHOLE_SLICE) scanner.push(bytes.subarray(at, at + WHOLE_SLICE));
  return scanner.finish();
}

/** Scans a repodata.json pushed in chunks of any size. */
export class RepodataStreamScanner {
  readonly #where: string;
  readonly #read: (start: number, end: number) => Uint8Array;
  readonly #batch: number;
  /** The WebAssembly entry scan, which also holds `#buf`; null where it is not used, and once released. */
  #wasm: EntryScan | null;
  /** Input not yet consumed: `#buf[#pos, #len)` is document bytes `#base + #pos ..`. */
  #buf = new Uint8Array(0);
  #words = new Uint32Array(0);
  #len = 0;
  #pos = 0;
  #base = 0;
  /** Scan again once `#len - #pos` reaches this (doubling after each cut-off unit). */
  #scanAt: number;
  #final = false;
  #failed: unknown = null;

  #phase: Phase = Phase.Start;
  /** The top-level value being read (`Phase.Value`): `skip`, a key to keep, or a section that is not an object. */
  #valueKey = '';
  #valueKind: 'skip' | 'keep' | 'bad-section' = 'skip';
  readonly #top: Record<string, unknown> = {};
  readonly #seenSections = [false, false];
  /** A package section's value that is neither an object nor null. */
  readonly #sectionError: Array<RepodataParseError | null> = [null, null];
  #section = 0;
  #sectionName = '';

  #rows = 0;
  /** FNV-1a of each row's raw file-name bytes (for `removed` in sorted sections). */
  readonly #fnHash: Column;
  readonly #docFnStart: Column;
  readonly #docFnEnd: Column;
  readonly #recStart: Column;
  readonly #recEnd: Column;
  readonly #recName: Column;
  #sectionOf: Uint8Array;
  readonly #sectionRows: Array<[number, number]> = [
    [0, 0],
    [0, 0],
  ];
  #sorted = true;
  #previousKey = new Uint8Array(256);
  #previousKeyLength = -1;
  #keyHash = 0;
  /** The `UNUSABLE` rows' file names and what is wrong, by their value's document offset. */
  readonly #unusable = new Map<number, { fileName: string; detail: string }>();
  /** Rows whose file name is integer-like, with its value. */
  #indexKeyRows: Array<[row: number, value: number]> = [];
  readonly #names = new NameTable();
  #stack = new Uint8Array(64);

  constructor(where: string, options: StreamScanOptions) {
    this.#where = where;
    this.#read = options.read;
    this.#batch = Math.max(1, options.batchBytes ?? SCAN_BATCH);
    this.#wasm = options.exact === true ? null : EntryScan.create();
    this.#scanAt = this.#batch;
    // About one record per 400 bytes in conda-forge's repodata.
    const rows = Math.min(1 << 22, Math.floor((options.expectedBytes ?? 0) / 400));
    this.#fnHash = new Column(Math.max(1024, rows));
    this.#docFnStart = new Column(Math.max(1024, rows));
    this.#docFnEnd = new Column(Math.max(1024, rows));
    this.#recStart = new Column(Math.max(1024, rows));
    this.#recEnd = new Column(Math.max(1024, rows));
    this.#recName = new Column(Math.max(1024, rows));
    this.#sectionOf = new Uint8Array(Math.max(1024, rows));
  }

  /** Bytes received and not yet consumed by a finished unit. */
  get bufferedBytes(): number {
    return this.#len - this.#pos;
  }

  /** Memory held for input (the buffer's capacity). */
  get heldBytes(): number {
    return this.#buf.byteLength;
  }

  /** Bytes pushed so far. */
  get totalBytes(): number {
    return this.#base + this.#len;
  }

  /** Add the next bytes of the document; throws the document's first error as soon as it is seen. */
  push(chunk: Uint8Array): void {
    if (this.#failed !== null) throw this.#failed;
    if (this.#final) throw new Error('RepodataStreamScanner: push after finish');
    if (this.totalBytes + chunk.length >= 0xffffffff) {
      // Offsets are 32-bit; `JSON.parse` could not read such a document either (V8's strings are far shorter).
      this.#failed = new RepodataParseError(this.#where, 'the document is 4 GiB or larger, more than the index addresses', {
        byteOffset: this.totalBytes,
      });
      throw this.#failed;
    }
    this.#append(chunk);
    if (this.#len - this.#pos >= this.#scanAt) this.#scan();
    if (this.#len - this.#pos > MAX_UNIT_BYTES + this.#batch) {
      this.#failed = new RepodataParseError(
        this.#where,
        `a single JSON value at byte ${this.#base + this.#pos} is larger than ${MAX_UNIT_BYTES / (1024 * 1024)} MiB (no repodata holds one)`,
        { byteOffset: this.#base + this.#pos },
      );
      // Nothing of it is needed again: let the buffer go now, not when the scanner does.
      this.#buf = new Uint8Array(0);
      this.#len = 0;
      this.#pos = 0;
      throw this.#failed;
    }
  }

  /** The document ended: scan the rest and build the tables. */
  finish(): RepodataIndexTables {
    if (this.#failed !== null) throw this.#failed;
    this.#final = true;
    try {
      this.#scan();
    } finally {
      // Nothing reads the input buffer after the last scan (a finished scanner takes no more
      // bytes): the instance goes to the next scanner, and this one keeps no reference to it.
      this.#wasm?.release();
      this.#wasm = null;
    }
    const total = this.totalBytes;
    const info = readRepodataInfo(this.#top, this.#where);
    checkRepodataVersion(info, this.#where);
    for (const error of this.#sectionError) if (error !== null) throw error;
    const names = this.#names;
    // Sorted sections (conda-index output) need file names only for `removed`, found by hash and
    // checked by reading them back; otherwise repeated keys are resolved over all of them, copied
    // back from the document in one sequential read.
    const files = this.#sorted ? null : this.#gatherFileNames();
    const store = files?.store ?? new Uint8Array(0);
    return buildTables({
      bytes: store,
      byteLength: total,
      fingerprint: fingerprintWith(total, this.#read),
      info,
      recordTotal: this.#rows,
      fnStart: files?.starts ?? this.#docFnStart.data,
      fnEnd: files?.ends ?? this.#docFnEnd.data,
      dropRemoved: (scan) => this.#dropRemoved(scan.info.removed, scan.recName),
      indexKeyRows: this.#indexKeyRows,
      unusable: (row) => {
        const at = this.#recStart.data[row];
        const { fileName, detail } = this.#unusable.get(at)!;
        return new RepodataParseError(this.#where, `record "${fileName}" ${detail}`, { byteOffset: at });
      },
      outFnStart: this.#docFnStart.data,
      outFnEnd: this.#docFnEnd.data,
      recStart: this.#recStart.data,
      recEnd: this.#recEnd.data,
      recName: this.#recName.data,
      sectionOf: this.#sectionOf,
      sectionRows: this.#sectionRows,
      sorted: this.#sorted,
      nameCount: names.count,
      canonicalName: (id) => names.bytes(id),
      decodeString: (start, end) => decodeJsonString(store, start, end, this.#where, this.#documentOffset(files?.starts, start) - 1),
    });
  }

  /** The document offset of the file name gathered at `at` (rows are gathered in order). */
  #documentOffset(starts: Uint32Array | undefined, at: number): number {
    if (starts === undefined) return -1;
    const fnAt = starts;
    let lo = 0;
    let hi = this.#rows - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (fnAt[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return this.#docFnStart.data[lo] + at - fnAt[lo];
  }

  /** Every row's file name, read back from the document in order. */
  #gatherFileNames(): { store: Uint8Array; starts: Uint32Array; ends: Uint32Array } {
    const rows = this.#rows;
    const docStart = this.#docFnStart.data;
    const docEnd = this.#docFnEnd.data;
    const starts = new Uint32Array(rows);
    const ends = new Uint32Array(rows);
    const store = new ByteStore();
    const total = this.totalBytes;
    let window: Uint8Array = new Uint8Array(0);
    let windowStart = 0;
    for (let row = 0; row < rows; row++) {
      const start = docStart[row];
      const end = docEnd[row];
      if (end > windowStart + window.length) {
        windowStart = start;
        window = this.#read(start, Math.min(total, Math.max(end, start + GATHER_WINDOW)));
      }
      starts[row] = store.append(window, start - windowStart, end - windowStart);
      ends[row] = store.length;
    }
    return { store: store.data, starts, ends };
  }

  /** Sorted sections: the rows `removed` names, found by their file name's hash and checked by reading it. */
  #dropRemoved(removed: readonly string[], recName: Uint32Array): number {
    if (removed.length === 0) return 0;
    const wanted = new Map<number, Set<string>>();
    for (const name of removed) {
      const bytes = encoder.encode(name);
      const hash = fnv1a(bytes, 0, bytes.length);
      const set = wanted.get(hash) ?? new Set<string>();
      set.add(name);
      wanted.set(hash, set);
    }
    const hashes = this.#fnHash.data;
    let dropped = 0;
    for (let row = 0; row < this.#rows; row++) {
      const names = wanted.get(hashes[row]);
      if (names === undefined || recName[row] === DEAD) continue;
      // Sorted sections hold plain ASCII file names: their bytes are the string.
      if (names.has(decoder.decode(this.#read(this.#docFnStart.data[row], this.#docFnEnd.data[row])))) {
        recName[row] = DEAD;
        dropped++;
      }
    }
    return dropped;
  }

  #append(chunk: Uint8Array): void {
    const needed = this.#len + chunk.length;
    if (needed > this.#buf.length) {
      // Drop what is consumed first; grow only when the unfinished unit plus the chunk need it.
      const keep = this.#len - this.#pos;
      const capacity =
        keep + chunk.length > this.#buf.length
          ? Math.max(this.#buf.length * 2, (keep + chunk.length + 3) & ~3, this.#batch + 4)
          : this.#buf.length;
      if (capacity !== this.#buf.length) {
        let next: Uint8Array<ArrayBuffer>;
        if (this.#wasm !== null) {
          // The instance's memory only grows, keeping its bytes: move the kept ones down first.
          this.#buf.copyWithin(0, this.#pos, this.#len);
          next = this.#wasm.buffer(capacity);
        } else {
          next = new Uint8Array(capacity);
          next.set(this.#buf.subarray(this.#pos, this.#len));
        }
        this.#buf = next;
        this.#words = new Uint32Array(next.buffer, next.byteOffset, capacity >>> 2);
      } else {
        this.#buf.copyWithin(0, this.#pos, this.#len);
      }
      this.#base += this.#pos;
      this.#len = keep;
      this.#pos = 0;
    }
    this.#buf.set(chunk, this.#len);
    this.#len += chunk.length;
  }

  /** Run units until the bytes run out (or, at the end, the document does). */
  #scan(): void {
    const b = this.#buf.subarray(0, this.#len);
    try {
      for (;;) {
        if (this.#phase === Phase.End) {
          const at = this.#skipWs(b, this.#pos);
          if (at < b.length) throw this.#syntaxError(b, at, 'the end of the document');
          this.#pos = at;
          break;
        }
        this.#pos = this.#unit(b, this.#pos);
      }
      this.#scanAt = this.#batch;
    } catch (error) {
      if (error !== NEED_MORE) {
        this.#failed = error;
        throw error;
      }
      this.#scanAt = Math.max(this.#batch, 2 * (this.#len - this.#pos));
    }
  }

  /** One unit from `at`; returns where the next starts. Throws `NEED_MORE` when the bytes end first. */
  #unit(b: Uint8Array, at: number): number {
    switch (this.#phase) {
      case Phase.Start: {
        if (this.#base + at === 0) {
          if (b.length < 3 && !this.#final) throw NEED_MORE;
          if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) at = 3; // UTF-8 byte order mark
        }
        at = this.#skipWsOrWait(b, at);
        if (b[at] !== OPEN_BRACE) throw this.#syntaxError(b, at, 'the "{" that opens the document');
        this.#phase = Phase.Opened;
        return at + 1;
      }
      case Phase.Opened: {
        at = this.#skipWsOrWait(b, at);
        if (b[at] === CLOSE_BRACE) {
          this.#phase = Phase.End;
          return at + 1;
        }
        if (at >= b.length) throw this.#syntaxError(b, at, 'a key');
        this.#phase = Phase.Key;
        return at;
      }
      case Phase.Key: {
        at = this.#skipWsOrWait(b, at);
        if (b[at] !== QUOTE) throw this.#syntaxError(b, at, 'a key');
        const keyEnd = this.#stringEnd(b, at + 1);
        this.#valueKey = this.#decode(b, at + 1, keyEnd);
        this.#phase = Phase.KeyColon;
        return keyEnd + 1;
      }
      case Phase.KeyColon: {
        at = this.#skipWsOrWait(b, at);
        if (b[at] !== COLON) throw this.#syntaxError(b, at, '":"');
        this.#phase = Phase.KeyValue;
        return at + 1;
      }
      case Phase.KeyValue: {
        const key = this.#valueKey;
        at = this.#skipWsOrWait(b, at);
        if (at >= b.length) throw this.#syntaxError(b, at, 'a value');
        const section = key === 'packages' ? 0 : key === 'packages.conda' ? 1 : -1;
        if (section >= 0) {
          // A section given again replaces the earlier one, as in `JSON.parse`.
          if (this.#seenSections[section]) this.#dropSection(section);
          this.#seenSections[section] = true;
          this.#sectionError[section] = null;
          if (b[at] === OPEN_BRACE) {
            this.#section = section;
            this.#sectionName = key;
            this.#sectionRows[section] = [this.#rows, this.#rows];
            this.#previousKeyLength = -1; // keys increase within a section
            this.#phase = Phase.Section;
            return at + 1;
          }
          this.#valueKind = 'bad-section';
        } else {
          this.#valueKind = key === 'info' || key === 'metadata' || key === 'removed' || key === 'repodata_version' ? 'keep' : 'skip';
        }
        this.#phase = Phase.Value;
        return at;
      }
      case Phase.Value: {
        const end = this.#skipValue(b, at);
        if (this.#valueKind !== 'skip') {
          const value = this.#parseSmall(b, at, end, this.#valueKey);
          if (this.#valueKind === 'keep') this.#top[this.#valueKey] = value;
          else if (value !== null) {
            // Reported at the end (a later copy of the section may replace it), as the eager parser does.
            this.#sectionError[this.#valueKey === 'packages' ? 0 : 1] = new RepodataParseError(
              this.#where,
              `"${this.#valueKey}" must be an object of file name to record`,
              {
                byteOffset: this.#base + at,
              },
            );
          }
        }
        this.#phase = Phase.AfterValue;
        return end;
      }
      case Phase.AfterValue: {
        at = this.#skipWsOrWait(b, at);
        const c = b[at];
        if (c === COMMA) {
          this.#phase = Phase.Key;
          return at + 1;
        }
        if (c === CLOSE_BRACE) {
          this.#phase = Phase.End;
          return at + 1;
        }
        throw this.#syntaxError(b, at, '"," or "}" after a top-level value');
      }
      case Phase.Section: {
        at = this.#skipWsOrWait(b, at);
        if (b[at] === CLOSE_BRACE) {
          this.#phase = Phase.AfterValue;
          return at + 1;
        }
        if (at >= b.length) throw this.#syntaxError(b, at, `a file name in "${this.#sectionName}"`);
        this.#phase = Phase.Entry;
        return at;
      }
      case Phase.Entry:
        return this.#entry(b, at);
      case Phase.EntrySeparator: {
        at = this.#skipWsOrWait(b, at);
        const c = b[at];
        if (c === COMMA) {
          this.#phase = Phase.Entry;
          return this.#skipWs(b, at + 1);
        }
        if (c === CLOSE_BRACE) {
          this.#phase = Phase.AfterValue;
          return at + 1;
        }
        throw this.#syntaxError(b, at, `"," or "}" in "${this.#sectionName}"`);
      }
      default:
        throw new Error(`RepodataStreamScanner: bad phase ${this.#phase}`);
    }
  }

  /**
   * One `"file name": value` of a section, or as many as the WebAssembly entry scan takes in a row.
   * Nothing is recorded until the value is complete.
   */
  #entry(b: Uint8Array, at: number): number {
    if (this.#wasm !== null) {
      const end = this.#wasmEntries(b, at);
      if (end >= 0) return end;
    }
    const sectionName = this.#sectionName;
    at = this.#skipWsOrWait(b, at);
    if (b[at] !== QUOTE) throw this.#syntaxError(b, at, `a file name in "${sectionName}"`);
    const fnStart = at + 1;
    const fnEnd = this.#stringEnd(b, fnStart);
    at = this.#skipWs(b, fnEnd + 1);
    if (b[at] !== COLON) throw this.#syntaxError(b, at, '":"');
    at = this.#skipWs(b, at + 1);
    const valueStart = at;
    const isObject = b[at] === OPEN_BRACE;
    const valueEnd = isObject ? scanRecordObject(b, this.#words, 0, b.length, at) : this.#skipValue(b, at);
    if (valueEnd < 0) {
      // The record may go on in the next bytes: only then is its key decoded (for the message), so
      // a key with a bad escape fails the same way wherever the chunks are cut.
      if (!this.#final) throw NEED_MORE;
      throw this.#syntaxError(b, b.length, `the end of record "${this.#decode(b, fnStart, fnEnd)}"`);
    }
    this.#phase = Phase.EntrySeparator;
    this.#noteKey(b, fnStart, fnEnd);
    const first = b[fnStart];
    if ((first >= 0x30 && first <= 0x39) || hasBackslash(b, fnStart, fnEnd)) {
      const value = arrayIndexValue(this.#decode(b, fnStart, fnEnd));
      if (value >= 0) this.#indexKeyRows.push([this.#rows, value]);
    }
    const nameStart = recordOut[0];
    const nameEnd = recordOut[1];
    const nameState = isObject ? recordOut[2] : NameState.Missing;
    // Not an error yet: `removed` (which may come later), or a later entry of the same file name, can drop it.
    const unusable = !isObject
      ? 'must be an object'
      : nameState === NameState.NotString
        ? 'field "name" must be a non-empty string'
        : nameState === NameState.Missing
          ? 'field "name" is missing'
          : nameStart === nameEnd
            ? 'field "name" must be a non-empty string, got ""'
            : null;
    if (unusable !== null) this.#unusable.set(this.#base + valueStart, { fileName: this.#decode(b, fnStart, fnEnd), detail: unusable });
    const name = unusable !== null ? UNUSABLE : this.#names.id(b, nameStart, nameEnd, () => this.#decode(b, nameStart, nameEnd));
    this.#addRow(fnStart, fnEnd, valueStart, valueEnd, name);
    return valueEnd;
  }

  /**
   * Entries from `at` read by the WebAssembly scan, as many as it takes in a row: returns where
   * they end (the phase set for what follows), or -1 when it took none (the byte scan reads the
   * entry at `at`).
   */
  #wasmEntries(b: Uint8Array, at: number): number {
    const wasm = this.#wasm!;
    const count = wasm.scan(at, b.length, this.#base);
    const out = wasm.rows;
    if (count === 0) return -1;
    const [stopAt, reason, unsortedRow] = out.results;
    const base = this.#base;
    if (this.#sorted) {
      // The scan compared each file name with the one before it; the first is compared here.
      if (unsortedRow < count || !this.#keyFollows(b, out.fnStart[0] - base, out.fnEnd[0] - base)) this.#sorted = false;
      else this.#rememberKey(b, out.fnStart[count - 1] - base, out.fnEnd[count - 1] - base);
    }
    const first = this.#rows;
    const end = first + count;
    const columns: Array<[Column, Uint32Array]> = [
      [this.#fnHash, out.fnHash],
      [this.#docFnStart, out.fnStart],
      [this.#docFnEnd, out.fnEnd],
      [this.#recStart, out.recStart],
      [this.#recEnd, out.recEnd],
    ];
    for (const [column, values] of columns) {
      column.ensure(end);
      column.data.set(values.subarray(0, count), first);
    }
    this.#recName.ensure(end);
    const recName = this.#recName.data;
    const names = this.#names;
    const { flags, nameStart, nameEnd, nameHash } = out;
    let id = -1;
    for (let r = 0; r < count; r++) {
      const flag = flags[r];
      if (id < 0 || (flag & RowFlag.SameName) === 0) {
        const s = nameStart[r];
        const e = nameEnd[r];
        id = (flag & RowFlag.NonAscii) === 0 ? names.plainId(b, s, e, nameHash[r]) : names.id(b, s, e, () => this.#decode(b, s, e));
      }
      recName[first + r] = id;
    }
    this.#sectionRoom(end);
    this.#sectionOf.fill(this.#section, first, end);
    this.#rows = end;
    this.#sectionRows[this.#section][1] = end;
    this.#phase = reason === Stop.Separator ? Phase.EntrySeparator : Phase.Entry;
    return stopAt;
  }

  /** Add a row (offsets into the buffer; `name` a name id or `UNUSABLE`). */
  #addRow(fnStart: number, fnEnd: number, recStart: number, recEnd: number, name: number): void {
    const base = this.#base;
    const row = this.#rows++;
    this.#fnHash.set(row, this.#keyHash);
    this.#docFnStart.set(row, base + fnStart);
    this.#docFnEnd.set(row, base + fnEnd);
    this.#recStart.set(row, base + recStart);
    this.#recEnd.set(row, base + recEnd);
    this.#recName.set(row, name);
    this.#sectionRoom(row + 1);
    this.#sectionOf[row] = this.#section;
    this.#sectionRows[this.#section][1] = row + 1;
  }

  /** Forget the rows of an earlier copy of `section`, moving later rows down. */
  #dropSection(section: number): void {
    const [first, last] = this.#sectionRows[section];
    const gone = last - first;
    if (gone === 0) return;
    const total = this.#rows;
    for (const column of [this.#fnHash, this.#docFnStart, this.#docFnEnd, this.#recStart, this.#recEnd, this.#recName])
      column.data.copyWithin(first, last, total);
    this.#sectionOf.copyWithin(first, last, total);
    this.#rows = total - gone;
    this.#sectionRows[section] = [first, first];
    const other = this.#sectionRows[1 - section];
    if (other[0] >= last) this.#sectionRows[1 - section] = [other[0] - gone, other[1] - gone];
    this.#indexKeyRows = this.#indexKeyRows
      .filter(([row]) => row < first || row >= last)
      .map(([row, value]) => [row >= last ? row - gone : row, value]);
  }

  /** Room in `#sectionOf` for `size` rows. */
  #sectionRoom(size: number): void {
    if (size <= this.#sectionOf.length) return;
    const bigger = new Uint8Array(Math.max(size, this.#sectionOf.length * 2));
    bigger.set(this.#sectionOf);
    this.#sectionOf = bigger;
  }

  /**
   * Keep "every key so far is plain ASCII and strictly increasing" up to date, and the key's hash
   * (`#keyHash`) while the keys are sorted.
   */
  #noteKey(b: Uint8Array, start: number, end: number): void {
    if (!this.#sorted) return;
    let hash = FNV_OFFSET;
    for (let i = start; i < end; i++) {
      const c = b[i];
      if (c >= 0x80 || c === BACKSLASH) {
        this.#sorted = false;
        return;
      }
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }
    this.#keyHash = hash >>> 0;
    if (!this.#keyFollows(b, start, end)) {
      this.#sorted = false;
      return;
    }
    this.#rememberKey(b, start, end);
  }

  /** Is the file name `b[start, end)` greater than the previous one (or the first of its section)? */
  #keyFollows(b: Uint8Array, start: number, end: number): boolean {
    const previousLength = this.#previousKeyLength;
    if (previousLength < 0) return true;
    const previous = this.#previousKey;
    const length = end - start;
    const common = Math.min(length, previousLength);
    let order = 0;
    for (let i = 0; i < common && order === 0; i++) order = previous[i] - b[start + i];
    if (order === 0) order = previousLength - length;
    return order < 0;
  }

  #rememberKey(b: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (length > this.#previousKey.length) this.#previousKey = new Uint8Array(Math.max(length, this.#previousKey.length * 2));
    this.#previousKey.set(b.subarray(start, end));
    this.#previousKeyLength = length;
  }

  /**
   * At the start of a unit: skip whitespace, and when it runs to the end of the bytes so far, mark
   * it consumed and wait for more, so whitespace (a decompression bomb of spaces) is never held.
   */
  #skipWsOrWait(b: Uint8Array, at: number): number {
    at = this.#skipWs(b, at);
    if (at >= b.length && !this.#final) {
      this.#pos = at;
      throw NEED_MORE;
    }
    return at;
  }

  #skipWs(b: Uint8Array, at: number): number {
    let c = b[at];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++at];
    return at;
  }

  #stringEnd(b: Uint8Array, at: number): number {
    const n = b.length;
    while (at < n) {
      const c = b[at];
      if (c === QUOTE) return at;
      at += c === BACKSLASH ? 2 : 1;
    }
    throw this.#syntaxError(b, n, 'the end of a string');
  }

  #decode(b: Uint8Array, start: number, end: number): string {
    return decodeJsonString(b, start, end, this.#where, this.#base + start - 1);
  }

  #skipValue(b: Uint8Array, at: number): number {
    const n = b.length;
    const c = b[at];
    if (c === QUOTE) return this.#stringEnd(b, at + 1) + 1;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      for (;;) {
        const d = b[at];
        if (d === QUOTE) {
          at = this.#stringEnd(b, at + 1) + 1;
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) {
          if (depth === this.#stack.length) {
            const bigger = new Uint8Array(this.#stack.length * 2);
            bigger.set(this.#stack);
            this.#stack = bigger;
          }
          this.#stack[depth++] = d;
        } else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          if (depth === 0 || this.#stack[depth - 1] !== d - 2) throw this.#syntaxError(b, at, 'a matching bracket');
          depth--;
          if (depth === 0) return at + 1;
        } else if (at >= n) {
          throw this.#syntaxError(b, n, 'the end of an object or array');
        }
        at++;
      }
    }
    const start = at;
    for (;;) {
      const d = b[at];
      if ((d >= 0x30 && d <= 0x39) || (d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || d === 0x2b || d === 0x2d || d === 0x2e) at++;
      else break;
    }
    // A number or literal cut by the chunk's end may go on in the next one.
    if (at >= n && !this.#final) throw NEED_MORE;
    if (at === start) throw this.#syntaxError(b, at, 'a value');
    return at;
  }

  #parseSmall(b: Uint8Array, start: number, end: number, key: string): unknown {
    const text = decoder.decode(b.subarray(start, end));
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw fragmentSyntaxError(this.#where, `"${key}"`, text, this.#base + start, cause);
    }
  }

  /** The error for `b[at]`; `NEED_MORE` when `at` is past the bytes received and more may come. */
  #syntaxError(b: Uint8Array, at: number, expected: string): RepodataParseError | typeof NEED_MORE {
    if (at >= b.length) {
      if (!this.#final) return NEED_MORE;
      return new RepodataParseError(this.#where, `the JSON ends unexpectedly (truncated file?): expected ${expected}`, {
        byteOffset: this.totalBytes,
      });
    }
    const offset = this.#base + at;
    // Lines before this buffer are counted from the document already pushed.
    let line = 1;
    let lineStart = 0;
    const step = 1 << 20;
    for (let from = 0; from < this.#base; from += step) {
      const piece = this.#read(from, Math.min(this.#base, from + step));
      for (let i = 0; i < piece.length; i++) {
        if (piece[i] === 0x0a) {
          line++;
          lineStart = from + i + 1;
        }
      }
    }
    for (let i = 0; i < at; i++) {
      if (b[i] === 0x0a) {
        line++;
        lineStart = this.#base + i + 1;
      }
    }
    const found = JSON.stringify(decoder.decode(b.subarray(at, at + 1)));
    return new RepodataParseError(
      this.#where,
      `invalid JSON at byte ${offset} (line ${line}, column ${offset - lineStart + 1}): expected ${expected}, found ${found}`,
      {
        byteOffset: offset,
      },
    );
  }
}

function hasBackslash(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i] === BACKSLASH) return true;
  return false;
}

/** The JS string of the JSON string content `b[start, end)`; `at` is its opening quote's document offset for errors. */
function decodeJsonString(b: Uint8Array, start: number, end: number, where: string, at: number): string {
  const piece = b.subarray(start, end);
  if (!piece.includes(BACKSLASH)) return decoder.decode(piece);
  try {
    return JSON.parse(`"${decoder.decode(piece)}"`) as string;
  } catch (cause) {
    throw new RepodataParseError(where, `invalid escape in the string at byte ${at}`, { byteOffset: at, cause });
  }
}
