/**
 * The lazy index's tables as a small binary "sidecar" that a disk cache stores next to the cached
 * repodata.json (or, for a local channel, in the cache directory), so a warm start skips the scan
 * and reads only the name table plus the rows of the names the solve reaches.
 *
 * Layout, format 3 (little-endian):
 *   - the magic `CRIDX\0\0\x03`, a u32 header length, the header as JSON (format version, the
 *     JSON's length and fingerprint, `info`, array lengths, a checksum of the whole row area),
 *     padding to 4 bytes;
 *   - the name table: `nameOffsets` and `nameByteOffsets` (u32, names + 1), `nameSlots` (i32),
 *     `rowSums` (u32 per name: a checksum of that name's row block), `nameBytes`, padding to 4;
 *   - a u32 checksum of everything before it (the first four bytes of its SHA-1, native);
 *   - the row tables `fnStart`, `fnEnd`, `recStart`, `recEnd` (u32 each, 16 bytes a row), rows
 *     grouped by name as in memory, so one name's rows are one range in each (four positional
 *     reads), and the whole tables are views over one read.
 * Opening reads and checks the header and the name table (a few hundred KB at conda-forge's size);
 * a name's rows are checked against its `rowSums` entry and the document's bounds when read;
 * reading the whole tables (for worker threads, or a server's memory mode) checks the row area
 * against the header's checksum instead (native, and no copy: the tables are views over it).
 * The file's size must be exactly what the header says, so a torn write is caught at open. Any
 * damage raises `IndexSidecarDamagedError` (a `RepodataIndexUnsupportedError`); callers rebuild
 * the tables from the JSON then.
 * Older formats (2: whole tables behind one checksum) are refused the same way, so they are rebuilt.
 *
 * About 16 bytes per record plus the names: 8.2 MB for 465,000 records and 25,000 names.
 */
import { createHash } from 'node:crypto';
import { RepodataIndexUnsupportedError } from '../parse-errors.js';
import type { RepodataInfo } from '../record-normalise.js';
import { sharedInt32, sharedUint32, sharedUint8 } from '../shared-memory.js';
import { IndexSidecarDamagedError, nameOf, type ByteReader, type IndexRows, type NameRows } from './index-rows.js';
import { fingerprintBytes, lookupName, type NameTable, type RepodataIndexTables } from './span-tables.js';

const MAGIC = [0x43, 0x52, 0x49, 0x44, 0x58, 0x00, 0x00, 0x03]; // "CRIDX\0\0" + format 3
const FORMAT = 3;
/** The first read at open: the header (then a second read for the rest of the name table). */
export const SIDECAR_FIRST_READ = 4096;

interface SidecarHeader {
  readonly format: number;
  readonly byteLength: number;
  readonly fingerprint: number;
  readonly info: RepodataInfo;
  readonly rows: number;
  readonly names: number;
  readonly nameByteTotal: number;
  readonly slots: number;
  /** `checksum` of the whole row area: whole tables are checked with it (native), not per block. */
  readonly rowsChecksum: number;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The first four bytes of the SHA-1 of `bytes[0, end)`, as a u32. */
function checksum(bytes: Uint8Array, end: number): number {
  const digest = createHash('sha1').update(bytes.subarray(0, end)).digest();
  return digest.readUInt32LE(0);
}

/**
 * One pass over one name's rows: their checksum, or -1 when a row lies outside a document of
 * `byteLength` bytes or runs backwards (each row's key must come before its record; rows need not
 * follow each other in the file: `packages.conda` rows follow `packages` rows, and a repeated file
 * name keeps its first key with its last record).
 *
 * The checksum is multiply-xor over the words row by row, seeded with the name id: each step is a
 * bijection of the running value, so any one changed word, or rows read for the wrong id, always
 * change it.
 */
function scanRows(rows: NameRows, id: number, byteLength: number): number {
  const { fnStart, fnEnd, recStart, recEnd } = rows;
  let hash = Math.imul(0x811c9dc5 ^ id, 0x01000193);
  let bad = 0;
  for (let r = 0; r < fnStart.length; r++) {
    const a = fnStart[r];
    const b = fnEnd[r];
    const c = recStart[r];
    const d = recEnd[r];
    hash = Math.imul(Math.imul(Math.imul(Math.imul(hash ^ a, 0x01000193) ^ b, 0x01000193) ^ c, 0x01000193) ^ d, 0x01000193);
    bad |= a < 1 || a > b || b >= c || c >= d || d > byteLength ? 1 : 0;
  }
  return bad !== 0 ? -1 : hash >>> 0;
}

const align4 = (n: number): number => (n + 3) & ~3;

/** Where each part of a sidecar with this header lies. */
function layout(header: SidecarHeader, headerLength: number) {
  const tableStart = align4(8 + 4 + headerLength);
  const nameOffsetsAt = tableStart;
  const nameByteOffsetsAt = nameOffsetsAt + 4 * (header.names + 1);
  const slotsAt = nameByteOffsetsAt + 4 * (header.names + 1);
  const rowSumsAt = slotsAt + 4 * header.slots;
  const nameBytesAt = rowSumsAt + 4 * header.names;
  const checksumAt = align4(nameBytesAt + header.nameByteTotal);
  const rowsAt = checksumAt + 4;
  return { nameOffsetsAt, nameByteOffsetsAt, slotsAt, rowSumsAt, nameBytesAt, checksumAt, rowsAt, fileLength: rowsAt + 16 * header.rows };
}

/** Serialise tables into one buffer. */
export function encodeIndexSidecar(tables: RepodataIndexTables): Uint8Array {
  requireLittleEndian('write');
  const names = tables.nameOffsets.length - 1;
  const rowCount = tables.recStart.length;
  const rowSums = new Uint32Array(names);
  for (let id = 0; id < names; id++) rowSums[id] = scanRows(sliceRows(tables, id), id, tables.byteLength);
  const columns = [tables.fnStart, tables.fnEnd, tables.recStart, tables.recEnd];
  const sha = createHash('sha1');
  for (const column of columns) sha.update(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  const header: SidecarHeader = {
    format: FORMAT,
    byteLength: tables.byteLength,
    fingerprint: tables.fingerprint,
    info: tables.info,
    rows: rowCount,
    names,
    nameByteTotal: tables.nameBytes.length,
    slots: tables.nameSlots.length,
    rowsChecksum: sha.digest().readUInt32LE(0),
  };
  const headerBytes = encoder.encode(JSON.stringify(header));
  const at = layout(header, headerBytes.length);
  const out = new Uint8Array(at.fileLength);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(MAGIC.length, headerBytes.length, true);
  out.set(headerBytes, MAGIC.length + 4);
  const put = (array: Uint32Array | Int32Array, offset: number): void =>
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
  put(tables.nameOffsets, at.nameOffsetsAt);
  put(tables.nameByteOffsets, at.nameByteOffsetsAt);
  put(tables.nameSlots, at.slotsAt);
  put(rowSums, at.rowSumsAt);
  out.set(tables.nameBytes, at.nameBytesAt);
  columns.forEach((column, k) => put(column, at.rowsAt + 4 * k * rowCount));
  view.setUint32(at.checksumAt, checksum(out, at.checksumAt), true);
  return out;
}

/** What a sidecar must have been written for. */
export interface ExpectedDocument {
  readonly byteLength: number;
  readonly fingerprint: number;
}

/**
 * Open a sidecar lazily: read and check its header and name table now, each name's rows when asked.
 * Throws `RepodataIndexUnsupportedError` when it is not a format 3 sidecar, is damaged or truncated,
 * or was written for a document of another length or fingerprint than `expected`. The rows keep
 * `reader` and close it with `close()`.
 */
export function openIndexSidecar(reader: ByteReader, expected: ExpectedDocument, where: string): IndexRows {
  const reject = (detail: string): never => {
    throw new IndexSidecarDamagedError(where, `the index sidecar ${detail}`);
  };
  requireLittleEndian('read');
  const size = reader.length;
  let bytes = aligned(reader.read(0, Math.min(size, SIDECAR_FIRST_READ)));
  if (bytes.length < MAGIC.length + 4 || MAGIC.some((byte, i) => bytes[i] !== byte)) {
    const format = bytes.length >= MAGIC.length && MAGIC.slice(0, 7).every((byte, i) => bytes[i] === byte) ? ` (format ${bytes[7]})` : '';
    reject(`is not an index sidecar of format ${FORMAT}${format}`);
  }
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(MAGIC.length, true);
  if (MAGIC.length + 4 + headerLength > size) reject('is truncated');
  if (MAGIC.length + 4 + headerLength > bytes.length) bytes = aligned(reader.read(0, MAGIC.length + 4 + headerLength));
  let header: SidecarHeader;
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerLength))) as SidecarHeader;
  } catch {
    return reject('has an unreadable header');
  }
  const counts = [header.rows, header.names, header.nameByteTotal, header.slots, header.byteLength, header.rowsChecksum];
  if (
    header.format !== FORMAT ||
    !counts.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    typeof header.info !== 'object' ||
    header.info === null
  ) {
    reject('has an unreadable header');
  }
  const at = layout(header, headerLength);
  if (size !== at.fileLength) reject(size < at.fileLength ? 'is truncated' : 'has trailing bytes');
  if (bytes.length < at.rowsAt) bytes = aligned(reader.read(0, at.rowsAt));
  if (checksum(bytes, at.checksumAt) !== new DataView(bytes.buffer, bytes.byteOffset).getUint32(at.checksumAt, true))
    reject('is corrupted (checksum mismatch)');
  if (header.byteLength !== expected.byteLength || header.fingerprint !== expected.fingerprint) {
    reject('belongs to a different repodata.json (length or fingerprint differ)');
  }
  const u32 = (offset: number, length: number): Uint32Array => new Uint32Array(bytes.buffer, bytes.byteOffset + offset, length);
  const names: SidecarNames = {
    nameOffsets: u32(at.nameOffsetsAt, header.names + 1),
    nameByteOffsets: u32(at.nameByteOffsetsAt, header.names + 1),
    nameSlots: new Int32Array(bytes.buffer, bytes.byteOffset + at.slotsAt, header.slots),
    rowSums: u32(at.rowSumsAt, header.names),
    nameBytes: bytes.subarray(at.nameBytesAt, at.nameBytesAt + header.nameByteTotal),
  };
  // Only O(1) checks here: a warm start must not walk every name. Each name's entries are checked
  // when used (`#range`), and all of them before whole tables are built (`nameTableProblem`).
  const slots = header.slots;
  if (
    names.nameOffsets[0] !== 0 ||
    names.nameOffsets[header.names] !== header.rows ||
    names.nameByteOffsets[0] !== 0 ||
    names.nameByteOffsets[header.names] !== header.nameByteTotal ||
    slots === 0 ||
    (slots & (slots - 1)) !== 0
  ) {
    reject('has a bad name table');
  }
  return new SidecarRows(reader, header, at.rowsAt, names, reject);
}

/**
 * Whole tables from sidecar bytes in memory (every row read and checked). Throws
 * `RepodataIndexUnsupportedError` as `openIndexSidecar` does.
 */
export function decodeIndexSidecar(bytes: Uint8Array, expected: ExpectedDocument, where: string): RepodataIndexTables {
  const reader: ByteReader = { length: bytes.length, read: (start, end) => bytes.subarray(start, end) };
  return openIndexSidecar(reader, expected, where).tables();
}

/** Does `bytes` look like the document `tables` were built for? (Length and fingerprint.) */
export function tablesMatchBytes(tables: RepodataIndexTables, bytes: Uint8Array): boolean {
  return tables.byteLength === bytes.length && tables.fingerprint === fingerprintBytes(bytes);
}

interface SidecarNames extends NameTable {
  readonly nameOffsets: Uint32Array;
  readonly rowSums: Uint32Array;
}

/** The name table's own consistency (its checksum passed; this guards the reads it drives). */
function nameTableProblem(names: SidecarNames, count: number): string | null {
  const { nameOffsets, nameByteOffsets, nameSlots } = names;
  for (let id = 0; id < count; id++) {
    if (nameOffsets[id + 1] < nameOffsets[id] || nameByteOffsets[id + 1] < nameByteOffsets[id])
      return 'has a bad name table (not monotone)';
  }
  const slots = nameSlots.length;
  if (slots <= count) return 'has a bad name table (hash slots)';
  let empty = 0;
  for (let i = 0; i < slots; i++) {
    const id = nameSlots[i];
    if (id === -1) empty++;
    else if (id < 0 || id >= count) return 'has a bad name table (hash slots)';
  }
  return empty === 0 ? 'has a bad name table (hash slots)' : null;
}

/** A typed-array-ready copy of `bytes` when its offset is not 4-byte aligned. */
function aligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
}

/** The rows of a sidecar: the name table in memory, row blocks read and checked on demand. */
class SidecarRows implements IndexRows {
  readonly byteLength: number;
  readonly fingerprint: number;
  readonly info: RepodataInfo;
  readonly recordCount: number;
  readonly nameCount: number;
  readonly #reader: ByteReader;
  readonly #rowsAt: number;
  readonly #names: SidecarNames;
  readonly #reject: (detail: string) => never;
  readonly #header: SidecarHeader;
  #tables: RepodataIndexTables | null = null;

  constructor(reader: ByteReader, header: SidecarHeader, rowsAt: number, names: SidecarNames, reject: (detail: string) => never) {
    this.byteLength = header.byteLength;
    this.fingerprint = header.fingerprint;
    this.info = header.info;
    this.recordCount = header.rows;
    this.nameCount = header.names;
    this.#reader = reader;
    this.#rowsAt = rowsAt;
    this.#names = names;
    this.#reject = reject;
    this.#header = header;
  }

  lookup(name: string): number {
    return lookupName(this.#names, name);
  }

  nameAt(id: number): string {
    this.#range(this.#names.nameByteOffsets, id);
    return nameOf(this.#names, id);
  }

  rowCount(id: number): number {
    return this.#range(this.#names.nameOffsets, id);
  }

  /** `offsets[id + 1] - offsets[id]`, refusing a range that runs backwards. */
  #range(offsets: Uint32Array, id: number): number {
    const count = offsets[id + 1] - offsets[id];
    if (!(count >= 0)) this.#reject('has a bad name table (not monotone)');
    return count;
  }

  rows(id: number): NameRows {
    if (this.#tables !== null) return sliceRows(this.#tables, id);
    const first = this.#names.nameOffsets[id];
    const count = this.rowCount(id);
    if (count === 0) return sliceRows(EMPTY_TABLES, 0);
    if (first + count > this.recordCount) this.#reject('has a bad name table (row ranges)');
    // One read per table: the name's range in each.
    const column = (k: number): Uint32Array => {
      const start = this.#rowsAt + 4 * (k * this.recordCount + first);
      const raw = aligned(this.#reader.read(start, start + 4 * count));
      if (raw.length !== 4 * count) this.#reject('is truncated');
      return new Uint32Array(raw.buffer, raw.byteOffset, count);
    };
    const rows = { fnStart: column(0), fnEnd: column(1), recStart: column(2), recEnd: column(3) };
    this.#check(scanRows(rows, id, this.byteLength), id);
    return rows;
  }

  tables(): RepodataIndexTables {
    if (this.#tables !== null) return this.#tables;
    const problem = nameTableProblem(this.#names, this.nameCount);
    if (problem !== null) this.#reject(problem);
    const rows = this.recordCount;
    // The row area in one read, into shared memory, checked natively; the tables are views of it.
    const area = sharedUint8(16 * rows);
    if (this.#reader.readInto) this.#reader.readInto(area, this.#rowsAt);
    else area.set(this.#reader.read(this.#rowsAt, this.#rowsAt + 16 * rows));
    if (checksum(area, area.length) !== this.#header.rowsChecksum) this.#reject('is corrupted (the rows fail their checksum)');
    const column = (k: number): Uint32Array => new Uint32Array(area.buffer, 4 * k * rows, rows);
    const { nameOffsets, nameByteOffsets, nameSlots, nameBytes } = this.#names;
    this.#tables = {
      byteLength: this.byteLength,
      fingerprint: this.fingerprint,
      info: this.info,
      fnStart: column(0),
      fnEnd: column(1),
      recStart: column(2),
      recEnd: column(3),
      nameOffsets: copyShared(nameOffsets, sharedUint32),
      nameByteOffsets: copyShared(nameByteOffsets, sharedUint32),
      nameSlots: copyShared(nameSlots, sharedInt32),
      nameBytes: copyShared(nameBytes, sharedUint8),
    };
    return this.#tables;
  }

  close(): void {
    this.#reader.close?.();
  }

  /** Reject rows whose `scanRows` result is not its recorded checksum. */
  #check(result: number, id: number): void {
    if (result === -1) this.#reject(`is corrupted (a row of "${this.nameAt(id)}" lies outside the document)`);
    if (result !== this.#names.rowSums[id]) this.#reject(`is corrupted (the rows of "${this.nameAt(id)}" fail their checksum)`);
  }
}

const EMPTY_TABLES = {
  nameOffsets: new Uint32Array(2),
  fnStart: new Uint32Array(0),
  fnEnd: new Uint32Array(0),
  recStart: new Uint32Array(0),
  recEnd: new Uint32Array(0),
};

function sliceRows(tables: Pick<RepodataIndexTables, 'nameOffsets' | 'fnStart' | 'fnEnd' | 'recStart' | 'recEnd'>, id: number): NameRows {
  const first = tables.nameOffsets[id];
  const last = tables.nameOffsets[id + 1];
  return {
    fnStart: tables.fnStart.subarray(first, last),
    fnEnd: tables.fnEnd.subarray(first, last),
    recStart: tables.recStart.subarray(first, last),
    recEnd: tables.recEnd.subarray(first, last),
  };
}

function copyShared<T extends Uint32Array | Int32Array | Uint8Array>(array: T, make: (length: number) => T): T {
  const out = make(array.length);
  out.set(array);
  return out;
}

function requireLittleEndian(what: string): void {
  if (!littleEndian) throw new RepodataIndexUnsupportedError('this machine', `cannot ${what} index sidecars on a big-endian platform`);
}
