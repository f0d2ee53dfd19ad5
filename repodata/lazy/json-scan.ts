/**
 * The exact parts of the repodata.json scan that `stream-scan.ts` drives: the byte scan of one
 * record object (where its "name" is, without building it), and the tables built from the rows.
 * Only what the index needs is followed exactly (strings with escapes, nesting, which string is a
 * key); a record's other content is left to `JSON.parse` when `records(name)` reads it, which also
 * checks the parsed name, so a malformed record fails there instead of being mis-indexed.
 * Repeated file names, `removed`, integer-like keys and unusable entries are resolved here as
 * `JSON.parse` and the eager parser (`parse.ts`) see them.
 */
import { RepodataParseError } from '../parse-errors.js';
import { sharedInt32, sharedUint32, sharedUint8 } from '../shared-memory.js';
import { FNV_OFFSET, FNV_PRIME, fnv1a, type RepodataIndexTables } from './span-tables.js';

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
const K_NONE = 0;
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

/** What a record's "name" key holds (the last one wins). Also `name_state` in wasm/entry-scan.c. */
export const NameState = { Missing: 0, String: 1, NotString: 2 } as const;
export type NameState = (typeof NameState)[keyof typeof NameState];

/** What `scanRecordObject` found: `[nameStart, nameEnd, NameState]`. */
export const recordOut = new Int32Array(3);

/** `recName` of a row that is no record: dropped (repeated, removed, an earlier copy of its section). */
export const DEAD = 0xffffffff;
/** `recName` of an entry without a usable name: an error unless `removed` lists it or a later copy replaces it. */
export const UNUSABLE = 0xfffffffe;

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
  let nameState: NameState = NameState.Missing;
  while (i < n) {
    const kind = CLASS[b[i]];
    if (kind === K_NONE) {
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
            nameState = NameState.String;
            i = j + 1;
          } else {
            nameState = NameState.NotString;
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
  /** Room for `size` rows. */
  ensure(size: number): void {
    if (size <= this.data.length) return;
    const next = new Uint32Array(Math.max(size, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }
  set(row: number, value: number): void {
    if (row >= this.data.length) this.ensure(row + 1);
    this.data[row] = value;
  }
}

/** The value of an integer-like key (an array index, which `JSON.parse` orders first), else -1. */
export function arrayIndexValue(key: string): number {
  if (!/^(?:0|[1-9][0-9]{0,9})$/.test(key)) return -1;
  const value = Number(key);
  return value < 2 ** 32 - 1 ? value : -1;
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
  /** The bytes `fnStart`/`fnEnd` point into: a store of the file names (unsorted documents only). */
  bytes: Uint8Array;
  /** Length and `fingerprintBytes` of the document. */
  byteLength: number;
  fingerprint: number;
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
  /** Marks the rows named in `removed` dead in sorted sections; returns how many. */
  dropRemoved: (scan: ScanColumns) => number;
  /** Rows whose file name is integer-like, with its value: `JSON.parse` lists them first, by value. */
  indexKeyRows: ReadonlyArray<readonly [row: number, value: number]>;
  /** The error for an `UNUSABLE` row that stays. */
  unusable: (row: number) => RepodataParseError;
  /** Name `id`'s canonical UTF-8 bytes. */
  canonicalName: (id: number) => Uint8Array;
  decodeString: (start: number, end: number) => string;
}

/**
 * Resolve repeated file names and `removed`, then lay the rows out grouped by name in shared memory.
 */
export function buildTables(scan: ScanColumns): RepodataIndexTables {
  const { recordTotal, outFnStart: fnStart, outFnEnd: fnEnd, recStart, recEnd, recName } = scan;
  // Sorted plain keys (conda-index output) cannot repeat; otherwise resolve repeats by hashing.
  const live = recordTotal - (scan.sorted ? scan.dropRemoved(scan) : resolveRepeats(scan));
  for (let row = 0; row < recordTotal; row++) if (recName[row] === UNUSABLE) throw scan.unusable(row);

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
  const place = (row: number): void => {
    const id = recName[row];
    if (id === DEAD) return;
    const to = cursor[id]++;
    outFnStart[to] = fnStart[row];
    outFnEnd[to] = fnEnd[row];
    outRecStart[to] = recStart[row];
    outRecEnd[to] = recEnd[row];
  };
  // Integer-like file names first, by value, as `for...in` over the parsed section lists them.
  const indexKeyRows = [...scan.indexKeyRows].sort((x, y) => x[1] - y[1] || x[0] - y[0]);
  const indexKey = new Set(indexKeyRows.map(([row]) => row));
  for (let section = 0; section < 2; section++) {
    const [first, last] = scan.sectionRows[section];
    for (const [row] of indexKeyRows) if (row >= first && row < last) place(row);
    for (let row = first; row < last; row++) if (indexKey.size === 0 || !indexKey.has(row)) place(row);
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
    recName[found] = recName[row];
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
        plainFn[other]
          ? compareWith(b, fnStart[other], fnEnd[other], canonical) === 0
          : scan.decodeString(fnStart[other], fnEnd[other]) === removed,
      );
      if (row >= 0 && recName[row] !== DEAD) {
        recName[row] = DEAD;
        dead++;
      }
    }
  }
  return dead;
}
