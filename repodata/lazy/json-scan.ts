/**
 * One pass over the bytes of a repodata.json that finds, for every entry of `packages` and
 * `packages.conda`, the span of its file-name key, the span of its record object and its `name`,
 * without building a JS object per record. The result is `RepodataIndexTables`.
 *
 * The scan follows JSON structure exactly where it matters for the index (the top-level object, the
 * two package sections and their separators, every string with its escapes, nesting) and leaves
 * the content of values to `JSON.parse` when a record is read. It reproduces `JSON.parse` and the
 * eager parser for what it indexes: the last of duplicate `name` keys wins; a file name repeated
 * within a section keeps its first position and its last value; names and file names with escapes
 * or non-ASCII bytes are compared decoded; entries listed in `removed` are dropped, and are not
 * errors even when they have no name. Whatever it cannot reproduce exactly (a package section
 * given twice, a file name repeated with different package names, integer-like file names, a file
 * over 4 GiB) raises `RepodataIndexUnsupportedError`, and the caller falls back to eager parsing.
 * Invalid JSON inside a value the index never reads (a record, `signatures`) is not detected by
 * the scan: a record's is reported by `records(name)`, the rest never matters to a solve.
 *
 * Inside a record object the scan is a single tight loop over the bytes (a class table per byte,
 * an inner loop per string) that tracks nesting and, at the record's own level, which string is a
 * key; the `name` value is read after `"name":`. It does not validate the JSON inside a record:
 * `records(name)` parses every span it returns with `JSON.parse` and checks the parsed name, so a
 * malformed record fails there with `RepodataParseError` instead of being mis-indexed.
 *
 * Performance notes: no closures or JS objects per record; per-record data goes into growable typed
 * arrays; only the distinct names (25,000 of 465,000 records on conda-forge) are ever decoded into
 * JS strings.
 */
import { RepodataIndexUnsupportedError, RepodataParseError } from '../parse-errors.js';
import { checkRepodataVersion, fragmentSyntaxError } from '../parse.js';
import { readRepodataInfo } from '../record-normalise.js';
import { sharedInt32, sharedUint32, sharedUint8 } from '../shared-memory.js';
import { FNV_OFFSET, FNV_PRIME, fingerprintBytes, fnv1a, type RepodataIndexTables } from './span-tables.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Byte classes for the record loop: 0 is "nothing to do". */
const K_QUOTE = 1;
const K_OPEN = 2;
const K_CLOSE = 3;
const K_COLON = 4;
const K_COMMA = 5;
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = K_QUOTE;
CLASS[OPEN_BRACE] = K_OPEN;
CLASS[OPEN_BRACKET] = K_OPEN;
CLASS[CLOSE_BRACE] = K_CLOSE;
CLASS[CLOSE_BRACKET] = K_CLOSE;
CLASS[COLON] = K_COLON;
CLASS[COMMA] = K_COMMA;

/** What `scanRecordObject` found: `[nameStart, nameEnd, nameState]`; state 0 missing, 1 string, 2 not a string. */
export const recordOut = new Int32Array(3);

/**
 * Skip the record object starting at `at` (its `{`) and find its `name` value. Returns the index
 * just past the closing `}`, or -1 when the bytes end first.
 */
export function scanRecordObject(b: Uint8Array, words: Uint32Array, base: number, n: number, at: number): number {
  const wordEnd = n - 4;
  let i = at + 1;
  let depth = 1;
  let expectKey = true;
  let keyIsName = false;
  let nameStart = -1;
  let nameEnd = -1;
  let nameState = 0;
  while (i < n) {
    const kind = CLASS[b[i]];
    if (kind === 0) {
      i++;
      // Indentation: skip aligned words of four spaces at once.
      while (((base + i) & 3) === 0 && i <= wordEnd && words[(base + i) >> 2] === 0x20202020) i += 4;
    } else if (kind === K_QUOTE) {
      const start = i + 1;
      let j = start;
      for (;;) {
        // SWAR: skip aligned words that hold neither a quote nor a backslash.
        if (((base + j) & 3) === 0 && j <= wordEnd) {
          const w = words[(base + j) >> 2];
          const q = w ^ 0x22222222;
          const e = w ^ 0x5c5c5c5c;
          if (((((q - 0x01010101) & ~q) | ((e - 0x01010101) & ~e)) & 0x80808080) === 0) {
            j += 4;
            continue;
          }
        }
        if (j >= n) return -1;
        const d = b[j];
        if (d === QUOTE) break;
        j += d === BACKSLASH ? 2 : 1;
      }
      if (depth === 1 && expectKey) keyIsName = isNameKey(b, start, j);
      i = j + 1;
    } else if (kind === K_COLON) {
      i++;
      if (depth === 1) {
        expectKey = false;
        if (keyIsName) {
          // The value of "name": the last one wins, as in JSON.parse.
          keyIsName = false;
          let d = b[i];
          while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = b[++i];
          if (d === QUOTE) {
            let j = i + 1;
            while (j < n) {
              const e = b[j];
              if (e === QUOTE) break;
              j += e === BACKSLASH ? 2 : 1;
            }
            if (j >= n) return -1;
            nameStart = i + 1;
            nameEnd = j;
            nameState = 1;
            i = j + 1;
          } else {
            nameState = 2;
          }
        }
      }
    } else if (kind === K_COMMA) {
      if (depth === 1) expectKey = true;
      i++;
    } else if (kind === K_OPEN) {
      depth++;
      i++;
    } else {
      depth--;
      i++;
      if (depth === 0) {
        recordOut[0] = nameStart;
        recordOut[1] = nameEnd;
        recordOut[2] = nameState;
        return i;
      }
    }
  }
  return -1;
}

/** Is the key `b[start, end)` the string "name", spelled plainly or with escapes? */
function isNameKey(b: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  const first = b[start];
  if (length === 4) return first === 0x6e && b[start + 1] === 0x61 && b[start + 2] === 0x6d && b[start + 3] === 0x65;
  // An escaped spelling (`"na\u006de"`) starts with "n" or a backslash and is 5..24 bytes.
  if (length < 5 || length > 24 || (first !== 0x6e && first !== BACKSLASH)) return false;
  if (!b.subarray(start, end).includes(BACKSLASH)) return false;
  try {
    return JSON.parse(decoder.decode(b.subarray(start - 1, end + 1))) === 'name';
  } catch {
    return false; // an invalid escape: JSON.parse of the record reports it
  }
}

/** Growable Uint32 column (the streaming scan's too). */
export class Column {
  data: Uint32Array<ArrayBuffer>;
  constructor(capacity: number) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }
  set(row: number, value: number): void {
    if (row >= this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[row] = value;
  }
}

/**
 * Names seen so far, keyed by their canonical UTF-8 bytes. A name is "plain" when its raw bytes are
 * ASCII without escapes (then they are canonical); otherwise its decoded string is kept and compared.
 */
class NameTable {
  count = 0;
  slots: Int32Array<ArrayBuffer>;
  hashes: Uint32Array<ArrayBuffer>;
  starts: Uint32Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
  readonly exotic = new Map<number, string>();

  constructor(
    private readonly b: Uint8Array,
    private readonly decode: (start: number, end: number) => string,
  ) {
    this.slots = new Int32Array(4096).fill(-1);
    this.hashes = new Uint32Array(1024);
    this.starts = new Uint32Array(1024);
    this.ends = new Uint32Array(1024);
  }

  id(start: number, end: number): number {
    const b = this.b;
    let hash = FNV_OFFSET;
    let plain = true;
    for (let i = start; i < end; i++) {
      const c = b[i];
      if (c >= 0x80 || c === BACKSLASH) plain = false;
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }
    let decoded: string | null = null;
    if (!plain) {
      decoded = this.decode(start, end);
      const canonical = encoder.encode(decoded);
      hash = fnv1a(canonical, 0, canonical.length);
    }
    hash >>>= 0;
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const id = slots[slot];
      if (id === -1) break;
      if (this.hashes[id] === hash && this.#equals(id, start, end, plain, decoded)) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    if (id === this.hashes.length) this.#grow();
    this.hashes[id] = hash;
    this.starts[id] = start;
    this.ends[id] = end;
    if (decoded !== null) this.exotic.set(id, decoded);
    if (this.count * 4 > this.slots.length) this.#rehash();
    else slots[slot] = id;
    return id;
  }

  #equals(id: number, start: number, end: number, plain: boolean, decoded: string | null): boolean {
    const other = this.exotic.get(id);
    if (plain && other === undefined) {
      const s = this.starts[id];
      const length = this.ends[id] - s;
      if (length !== end - start) return false;
      const b = this.b;
      for (let i = 0; i < length; i++) if (b[s + i] !== b[start + i]) return false;
      return true;
    }
    return (decoded ?? this.decode(start, end)) === (other ?? this.decode(this.starts[id], this.ends[id]));
  }

  #grow(): void {
    const size = this.hashes.length * 2;
    const grow = (old: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> => {
      const next = new Uint32Array(size);
      next.set(old);
      return next;
    };
    this.hashes = grow(this.hashes);
    this.starts = grow(this.starts);
    this.ends = grow(this.ends);
  }

  /** Rebuild the slots at twice the size (includes the id just added). */
  #rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
  }
}

/** Scan `bytes` (a complete repodata.json) and build its index tables. */
export function scanRepodata(bytes: Uint8Array, where: string): RepodataIndexTables {
  if (bytes.length >= 0xffffffff) throw new RepodataIndexUnsupportedError(where, 'the document is 4 GiB or larger');
  return new RepodataScanner(bytes, where).run();
}

class RepodataScanner {
  readonly #b: Uint8Array;
  readonly #n: number;
  readonly #where: string;
  readonly #fnStart: Column;
  readonly #fnEnd: Column;
  readonly #recStart: Column;
  readonly #recEnd: Column;
  readonly #recName: Column;
  #sectionOf: Uint8Array<ArrayBuffer>;
  #rows = 0;
  /** Row range of each section, in scan order. */
  readonly #sectionRows: Array<[number, number]> = [
    [0, 0],
    [0, 0],
  ];
  /** Every file name so far is plain ASCII and each section's keys strictly increase (as conda-index writes them). */
  #sorted = true;
  /** Entries that cannot be indexed, checked against `removed` at the end. */
  readonly #unusable: Array<{ fnStart: number; fnEnd: number; detail: string; at: number }> = [];
  readonly #names: NameTable;
  #stack = new Uint8Array(64);
  /** The bytes' buffer as 32-bit words, for skipping four bytes at a time. */
  readonly #words: Uint32Array;

  constructor(bytes: Uint8Array, where: string) {
    this.#b = bytes;
    this.#words = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >>> 2);
    this.#n = bytes.length;
    this.#where = where;
    const estimate = Math.max(16, Math.floor(bytes.length / 400));
    this.#fnStart = new Column(estimate);
    this.#fnEnd = new Column(estimate);
    this.#recStart = new Column(estimate);
    this.#recEnd = new Column(estimate);
    this.#recName = new Column(estimate);
    this.#sectionOf = new Uint8Array(estimate);
    this.#names = new NameTable(bytes, (start, end) => this.decodeString(start, end));
  }

  run(): RepodataIndexTables {
    const b = this.#b;
    const n = this.#n;
    const top: Record<string, unknown> = {};
    const seenSections = [false, false];
    let at = 0;
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) at = 3; // UTF-8 byte order mark
    at = this.#skipWs(at);
    if (b[at] !== OPEN_BRACE) throw this.#syntaxError(at, 'the "{" that opens the document');
    at = this.#skipWs(at + 1);
    if (b[at] !== CLOSE_BRACE) {
      for (;;) {
        if (b[at] !== QUOTE) throw this.#syntaxError(at, 'a key');
        const keyEnd = this.#stringEnd(at + 1);
        const key = this.decodeString(at + 1, keyEnd);
        at = this.#skipWs(keyEnd + 1);
        if (b[at] !== COLON) throw this.#syntaxError(at, '":"');
        at = this.#skipWs(at + 1);
        const section = key === 'packages' ? 0 : key === 'packages.conda' ? 1 : -1;
        if (section >= 0) {
          if (seenSections[section]) throw new RepodataIndexUnsupportedError(this.#where, `"${key}" appears twice`);
          seenSections[section] = true;
          if (b[at] === OPEN_BRACE) {
            at = this.#scanSection(at, section, key);
          } else {
            const end = this.#skipValue(at);
            if (this.#parseSmall(at, end, key) !== null) {
              throw new RepodataParseError(this.#where, `"${key}" must be an object of file name to record`, { byteOffset: at });
            }
            at = end;
          }
        } else if (key === 'info' || key === 'metadata' || key === 'removed' || key === 'repodata_version') {
          const end = this.#skipValue(at);
          top[key] = this.#parseSmall(at, end, key);
          at = end;
        } else {
          at = this.#skipValue(at);
        }
        at = this.#skipWs(at);
        const c = b[at];
        if (c === COMMA) at = this.#skipWs(at + 1);
        else if (c === CLOSE_BRACE) break;
        else throw this.#syntaxError(at, '"," or "}" after a top-level value');
      }
    }
    at = this.#skipWs(at + 1);
    if (at < n) throw this.#syntaxError(at, 'the end of the document');

    const info = readRepodataInfo(top, this.#where);
    checkRepodataVersion(info, this.#where);
    this.#checkUnusable(info.removed);
    const names = this.#names;
    return buildTables({
      bytes: b,
      byteLength: b.length,
      fingerprint: fingerprintBytes(b),
      where: this.#where,
      info,
      recordTotal: this.#rows,
      fnStart: this.#fnStart.data,
      fnEnd: this.#fnEnd.data,
      outFnStart: this.#fnStart.data,
      outFnEnd: this.#fnEnd.data,
      recStart: this.#recStart.data,
      recEnd: this.#recEnd.data,
      recName: this.#recName.data,
      sectionOf: this.#sectionOf,
      sectionRows: this.#sectionRows,
      sorted: this.#sorted,
      nameCount: names.count,
      canonicalName: (id) => {
        const exotic = names.exotic.get(id);
        return exotic === undefined ? b.subarray(names.starts[id], names.ends[id]) : encoder.encode(exotic);
      },
      decodeString: (start, end) => this.decodeString(start, end),
    });
  }

  /** Scan `packages` or `packages.conda` at `at` (a `{`); returns the index past its `}`. */
  #scanSection(at: number, section: number, sectionName: string): number {
    const b = this.#b;
    const n = this.#n;
    this.#sectionRows[section] = [this.#rows, this.#rows];
    at = this.#skipWs(at + 1);
    if (b[at] === CLOSE_BRACE) return at + 1;
    let previousStart = 0;
    let previousEnd = -1;
    for (;;) {
      if (b[at] !== QUOTE) throw this.#syntaxError(at, `a file name in "${sectionName}"`);
      const fnStart = at + 1;
      const fnEnd = this.#stringEnd(fnStart);
      if (this.#sorted) {
        this.#sorted = isPlain(b, fnStart, fnEnd) && (previousEnd < 0 || compareBytes(b, previousStart, previousEnd, fnStart, fnEnd) < 0);
        previousStart = fnStart;
        previousEnd = fnEnd;
      }
      const first = b[fnStart];
      if (first >= 0x30 && first <= 0x39 && isArrayIndexKey(b, fnStart, fnEnd)) {
        // JSON.parse orders integer-like keys first; such a "file name" is not worth reproducing.
        throw new RepodataIndexUnsupportedError(this.#where, `"${sectionName}" has an integer-like key "${this.decodeString(fnStart, fnEnd)}"`);
      }
      at = this.#skipWs(fnEnd + 1);
      if (b[at] !== COLON) throw this.#syntaxError(at, '":"');
      at = this.#skipWs(at + 1);
      if (b[at] !== OPEN_BRACE) {
        // Not an error yet: `removed` (which may come later) can list it, and then it is ignored.
        this.#unusable.push({ fnStart, fnEnd, detail: 'must be an object', at });
        at = this.#afterEntry(this.#skipValue(at), sectionName);
        if (at < 0) return -at;
        continue;
      }
      const recStart = at;
      const recEnd = scanRecordObject(b, this.#words, b.byteOffset, n, at);
      if (recEnd < 0) throw this.#syntaxError(n, `the end of record "${this.decodeString(fnStart, fnEnd)}"`);
      const state = recordOut[2];
      const nameStart = recordOut[0];
      const nameEnd = recordOut[1];
      const unusable =
        state === 2 ? 'field "name" must be a non-empty string' : state === 0 ? 'field "name" is missing' : nameStart === nameEnd ? 'field "name" must be a non-empty string, got ""' : null;
      if (unusable !== null) {
        this.#unusable.push({ fnStart, fnEnd, detail: unusable, at: recStart });
        at = this.#afterEntry(recEnd, sectionName);
        if (at < 0) return -at;
        continue;
      }
      const row = this.#rows++;
      this.#fnStart.set(row, fnStart);
      this.#fnEnd.set(row, fnEnd);
      this.#recStart.set(row, recStart);
      this.#recEnd.set(row, recEnd);
      this.#recName.set(row, this.#names.id(nameStart, nameEnd));
      if (row >= this.#sectionOf.length) {
        const bigger = new Uint8Array(this.#sectionOf.length * 2);
        bigger.set(this.#sectionOf);
        this.#sectionOf = bigger;
      }
      this.#sectionOf[row] = section;
      this.#sectionRows[section][1] = row + 1;
      at = this.#afterEntry(recEnd, sectionName);
      if (at < 0) return -at;
    }
  }

  /** After an entry of a section: the next key's index, or minus the index past the section's `}`. */
  #afterEntry(at: number, sectionName: string): number {
    at = this.#skipWs(at);
    const c = this.#b[at];
    if (c === COMMA) return this.#skipWs(at + 1);
    if (c === CLOSE_BRACE) return -(at + 1);
    throw this.#syntaxError(at, `"," or "}" in "${sectionName}"`);
  }

  /**
   * Entries without a usable name (or not objects) are errors unless `removed` lists them, as in
   * the eager parser, which skips removed entries before reading them. With unsorted keys a
   * repeated key could replace such an entry, which only the eager parser reproduces exactly.
   */
  #checkUnusable(removed: readonly string[]): void {
    if (this.#unusable.length === 0) return;
    const gone = new Set(removed);
    for (const entry of this.#unusable) {
      if (gone.has(this.decodeString(entry.fnStart, entry.fnEnd))) continue;
      if (!this.#sorted) throw new RepodataIndexUnsupportedError(this.#where, `record "${this.decodeString(entry.fnStart, entry.fnEnd)}" ${entry.detail}`);
      throw this.#recordError(entry.fnStart, entry.fnEnd, entry.detail, entry.at);
    }
  }

  #skipWs(at: number): number {
    const b = this.#b;
    let c = b[at];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++at];
    return at;
  }

  /** Index of the closing quote of a string whose content starts at `at`. */
  #stringEnd(at: number): number {
    const b = this.#b;
    const n = this.#n;
    while (at < n) {
      const c = b[at];
      if (c === QUOTE) return at;
      at += c === BACKSLASH ? 2 : 1;
    }
    throw this.#syntaxError(n, 'the end of a string');
  }

  /** The JS string of the JSON string content `[start, end)`. */
  decodeString(start: number, end: number): string {
    const b = this.#b;
    if (!b.subarray(start, end).includes(BACKSLASH)) return decoder.decode(b.subarray(start, end));
    // With escapes, JSON.parse of the quoted source is the exact decoding.
    try {
      return JSON.parse(decoder.decode(b.subarray(start - 1, end + 1))) as string;
    } catch (cause) {
      throw new RepodataParseError(this.#where, `invalid escape in the string at byte ${start - 1}`, { byteOffset: start - 1, cause });
    }
  }

  /** Skip any JSON value starting at `at`; returns the index just past it. */
  #skipValue(at: number): number {
    const b = this.#b;
    const n = this.#n;
    const c = b[at];
    if (c === QUOTE) return this.#stringEnd(at + 1) + 1;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      for (;;) {
        const d = b[at];
        if (d === QUOTE) {
          at = this.#stringEnd(at + 1) + 1;
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
          if (depth === 0 || this.#stack[depth - 1] !== d - 2) throw this.#syntaxError(at, 'a matching bracket');
          depth--;
          if (depth === 0) return at + 1;
        } else if (at >= n) {
          throw this.#syntaxError(n, 'the end of an object or array');
        }
        at++;
      }
    }
    // A number or a literal: letters, digits, sign, dot.
    const start = at;
    for (;;) {
      const d = b[at];
      if ((d >= 0x30 && d <= 0x39) || (d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || d === 0x2b || d === 0x2d || d === 0x2e) at++;
      else break;
    }
    if (at === start) throw this.#syntaxError(at, 'a value');
    return at;
  }

  #parseSmall(start: number, end: number, key: string): unknown {
    const text = decoder.decode(this.#b.subarray(start, end));
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw fragmentSyntaxError(this.#where, `"${key}"`, text, start, cause);
    }
  }

  #recordError(fnStart: number, fnEnd: number, detail: string, at: number): RepodataParseError {
    return new RepodataParseError(this.#where, `record "${this.decodeString(fnStart, fnEnd)}" ${detail}`, { byteOffset: at });
  }

  #syntaxError(at: number, expected: string): RepodataParseError {
    const b = this.#b;
    const n = this.#n;
    if (at >= n) return new RepodataParseError(this.#where, `the JSON ends unexpectedly (truncated file?): expected ${expected}`, { byteOffset: n });
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i++) {
      if (b[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const found = JSON.stringify(decoder.decode(b.subarray(at, Math.min(n, at + 1))));
    return new RepodataParseError(this.#where, `invalid JSON at byte ${at} (line ${line}, column ${at - lineStart + 1}): expected ${expected}, found ${found}`, {
      byteOffset: at,
    });
  }
}

export function isArrayIndexKey(b: Uint8Array, start: number, end: number): boolean {
  if (end - start > 10 || (b[start] === 0x30 && end - start > 1)) return false;
  for (let i = start; i < end; i++) if (b[i] < 0x30 || b[i] > 0x39) return false;
  return Number(decoder.decode(b.subarray(start, end))) < 2 ** 32 - 1;
}

/** ASCII without escapes: raw bytes equal the decoded string's UTF-8. */
export function isPlain(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c >= 0x80 || c === BACKSLASH) return false;
  }
  return true;
}

/** Lexicographic comparison of `b[s1, e1)` and `b[s2, e2)`. */
export function compareBytes(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): number {
  const length = Math.min(e1 - s1, e2 - s2);
  for (let i = 0; i < length; i++) {
    const d = b[s1 + i] - b[s2 + i];
    if (d !== 0) return d;
  }
  return e1 - s1 - (e2 - s2);
}

/** What a scan found, for `buildTables`. */
export interface ScanColumns {
  /** The bytes `fnStart`/`fnEnd` point into: the document, or a store of the file names alone. */
  bytes: Uint8Array;
  /** Length and `fingerprintBytes` of the document. */
  byteLength: number;
  fingerprint: number;
  where: string;
  info: RepodataIndexTables['info'];
  recordTotal: number;
  fnStart: Uint32Array;
  fnEnd: Uint32Array;
  /** The file names' offsets in the document (the tables' `fnStart`/`fnEnd`). */
  outFnStart: Uint32Array;
  outFnEnd: Uint32Array;
  recStart: Uint32Array;
  recEnd: Uint32Array;
  recName: Uint32Array;
  sectionOf: Uint8Array;
  sectionRows: ReadonlyArray<readonly [number, number]>;
  sorted: boolean;
  nameCount: number;
  /** Marks the rows named in `removed` dead in sorted sections (default: binary search over `bytes`); returns how many. */
  dropRemoved?: (scan: ScanColumns) => number;
  /** Name `id`'s canonical UTF-8 bytes. */
  canonicalName: (id: number) => Uint8Array;
  decodeString: (start: number, end: number) => string;
}

const DEAD = 0xffffffff;

/**
 * Resolve repeated file names and `removed`, then lay the rows out grouped by name in shared memory.
 */
export function buildTables(scan: ScanColumns): RepodataIndexTables {
  const { recordTotal, outFnStart: fnStart, outFnEnd: fnEnd, recStart, recEnd, recName } = scan;
  // Sorted plain keys (conda-index output) cannot repeat; otherwise resolve repeats by hashing.
  const live = recordTotal - (scan.sorted ? (scan.dropRemoved ?? dropRemovedSorted)(scan) : resolveRepeats(scan));

  // Group rows by name: count, prefix-sum, then fill `packages` rows before `packages.conda` rows.
  const nameCount = scan.nameCount;
  const nameOffsets = sharedUint32(nameCount + 1);
  for (let row = 0; row < recordTotal; row++) if (recName[row] !== DEAD) nameOffsets[recName[row] + 1]++;
  for (let id = 0; id < nameCount; id++) nameOffsets[id + 1] += nameOffsets[id];
  const cursor = nameOffsets.slice(0, nameCount);
  const outFnStart = sharedUint32(live);
  const outFnEnd = sharedUint32(live);
  const outRecStart = sharedUint32(live);
  const outRecEnd = sharedUint32(live);
  for (let section = 0; section < 2; section++) {
    const [first, last] = scan.sectionRows[section];
    for (let row = first; row < last; row++) {
      const id = recName[row];
      if (id === DEAD) continue;
      const to = cursor[id]++;
      outFnStart[to] = fnStart[row];
      outFnEnd[to] = fnEnd[row];
      outRecStart[to] = recStart[row];
      outRecEnd[to] = recEnd[row];
    }
  }

  // Canonical name bytes, and the name hash table over them. A name whose records were all
  // removed keeps its id (with no rows) so ids stay dense; `names()` skips it.
  const canonicalNames: Uint8Array[] = [];
  let nameByteTotal = 0;
  for (let id = 0; id < nameCount; id++) {
    const bytes = scan.canonicalName(id);
    canonicalNames.push(bytes);
    nameByteTotal += bytes.length;
  }
  const nameBytes = sharedUint8(nameByteTotal);
  const nameByteOffsets = sharedUint32(nameCount + 1);
  let nameCapacity = 16;
  while (nameCapacity < nameCount * 2) nameCapacity *= 2;
  const nameSlots = sharedInt32(nameCapacity);
  nameSlots.fill(-1);
  const nameMask = nameCapacity - 1;
  let offset = 0;
  for (let id = 0; id < nameCount; id++) {
    const bytes = canonicalNames[id];
    nameBytes.set(bytes, offset);
    nameByteOffsets[id] = offset;
    offset += bytes.length;
    let slot = fnv1a(bytes, 0, bytes.length) & nameMask;
    while (nameSlots[slot] !== -1) slot = (slot + 1) & nameMask;
    nameSlots[slot] = id;
  }
  nameByteOffsets[nameCount] = offset;

  return {
    byteLength: scan.byteLength,
    fingerprint: scan.fingerprint,
    info: scan.info,
    fnStart: outFnStart,
    fnEnd: outFnEnd,
    recStart: outRecStart,
    recEnd: outRecEnd,
    nameOffsets,
    nameBytes,
    nameByteOffsets,
    nameSlots,
  };
}

/** Mark rows named in `removed` dead, by binary search in each sorted section; returns how many. */
function dropRemovedSorted(scan: ScanColumns): number {
  const { bytes: b, fnStart, fnEnd, recName } = scan;
  let dropped = 0;
  for (const removed of scan.info.removed) {
    const key = encoder.encode(removed);
    for (const [first, last] of scan.sectionRows) {
      let lo = first;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const order = compareWith(b, fnStart[mid], fnEnd[mid], key);
        if (order === 0) {
          if (recName[mid] !== DEAD) {
            recName[mid] = DEAD;
            dropped++;
          }
          break;
        }
        if (order < 0) lo = mid + 1;
        else hi = mid;
      }
    }
  }
  return dropped;
}

function compareWith(b: Uint8Array, start: number, end: number, key: Uint8Array): number {
  const length = Math.min(end - start, key.length);
  for (let i = 0; i < length; i++) {
    const d = b[start + i] - key[i];
    if (d !== 0) return d;
  }
  return end - start - key.length;
}

/**
 * Resolve file names repeated within a section as JSON.parse does (first position, last value) and
 * drop `removed` ones, using a hash table over canonical file names; returns how many rows died.
 */
function resolveRepeats(scan: ScanColumns): number {
  const { bytes: b, recordTotal, fnStart, fnEnd, recStart, recEnd, recName, sectionOf } = scan;
  const plainFn = new Uint8Array(recordTotal);
  const fnHash = new Uint32Array(recordTotal);
  for (let row = 0; row < recordTotal; row++) {
    let hash = FNV_OFFSET;
    let plain = 1;
    const end = fnEnd[row];
    for (let i = fnStart[row]; i < end; i++) {
      const c = b[i];
      if (c >= 0x80 || c === BACKSLASH) plain = 0;
      hash = Math.imul(hash ^ c, FNV_PRIME);
    }
    if (!plain) {
      const canonical = encoder.encode(scan.decodeString(fnStart[row], end));
      hash = fnv1a(canonical, 0, canonical.length);
    }
    plainFn[row] = plain;
    fnHash[row] = (hash ^ Math.imul(sectionOf[row], 0x9e3779b9)) >>> 0;
  }
  const fnEquals = (row: number, other: number): boolean => {
    if (plainFn[row] && plainFn[other]) return compareBytes(b, fnStart[row], fnEnd[row], fnStart[other], fnEnd[other]) === 0;
    return scan.decodeString(fnStart[row], fnEnd[row]) === scan.decodeString(fnStart[other], fnEnd[other]);
  };
  let capacity = 16;
  while (capacity < recordTotal * 2) capacity *= 2;
  const fnSlots = new Int32Array(capacity).fill(-1);
  const mask = capacity - 1;
  const findRow = (hash: number, section: number, equals: (other: number) => boolean): number => {
    let slot = hash & mask;
    for (;;) {
      const other = fnSlots[slot];
      if (other === -1) return -1 - slot;
      if (fnHash[other] === hash && sectionOf[other] === section && equals(other)) return other;
      slot = (slot + 1) & mask;
    }
  };
  let dead = 0;
  for (let row = 0; row < recordTotal; row++) {
    const found = findRow(fnHash[row], sectionOf[row], (other) => fnEquals(row, other));
    if (found < 0) {
      fnSlots[-1 - found] = row;
      continue;
    }
    // JSON.parse keeps the first position of a repeated key and its last value.
    if (recName[found] !== recName[row]) {
      throw new RepodataIndexUnsupportedError(scan.where, `file name "${scan.decodeString(fnStart[row], fnEnd[row])}" appears twice with different package names`);
    }
    recStart[found] = recStart[row];
    recEnd[found] = recEnd[row];
    recName[row] = DEAD;
    dead++;
  }
  for (const removed of scan.info.removed) {
    const canonical = encoder.encode(removed);
    const base = fnv1a(canonical, 0, canonical.length);
    for (let section = 0; section < 2; section++) {
      const hash = (base ^ Math.imul(section, 0x9e3779b9)) >>> 0;
      const row = findRow(hash, section, (other) =>
        plainFn[other] ? compareWith(b, fnStart[other], fnEnd[other], canonical) === 0 : scan.decodeString(fnStart[other], fnEnd[other]) === removed,
      );
      if (row >= 0 && recName[row] !== DEAD) {
        recName[row] = DEAD;
        dead++;
      }
    }
  }
  return dead;
}
