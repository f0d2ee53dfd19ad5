/**
 * The lazy index's tables as a small binary "sidecar" that a disk cache stores next to the cached
 * repodata.json (keyed by the same validator), so a warm start can skip the scan.
 *
 * Layout (little-endian): the magic `CRIDX\0\0\x01`, a u32 header length, the header as JSON
 * (format version, the JSON's length and fingerprint, `info`, array lengths), padding to 4 bytes,
 * the arrays (`fnStart`, `fnEnd`, `recStart`, `recEnd`, `nameOffsets`, `nameByteOffsets` as u32,
 * `nameSlots` as i32, then `nameBytes`), and a trailing u32 checksum of everything before it (the
 * first four bytes of its SHA-1: native, so checking a 10 MB sidecar costs milliseconds where a
 * byte loop in JavaScript cost a warm start 60 ms), so a torn or corrupted sidecar is detected
 * rather than trusted. Decoding builds views over the bytes
 * it is given (no copy), so reading a sidecar into a SharedArrayBuffer gives shareable tables.
 *
 * About 21 bytes per record: 10 MB for conda-forge's 465,000 linux-64 records (243 MB of JSON).
 */
import { createHash } from 'node:crypto';
import { RepodataIndexUnsupportedError } from '../parse-errors.js';
import type { RepodataInfo } from '../record-normalise.js';
import { fingerprintBytes, type RepodataIndexTables } from './span-tables.js';

const MAGIC = [0x43, 0x52, 0x49, 0x44, 0x58, 0x00, 0x00, 0x02]; // "CRIDX\0\0" + format 2
const FORMAT = 2;

interface SidecarHeader {
  readonly format: number;
  readonly byteLength: number;
  readonly fingerprint: number;
  readonly info: RepodataInfo;
  readonly rows: number;
  readonly names: number;
  readonly nameByteTotal: number;
  readonly slots: number;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The first four bytes of the SHA-1 of `bytes[0, end)`, as a u32. */
function checksum(bytes: Uint8Array, end: number): number {
  const digest = createHash('sha1').update(bytes.subarray(0, end)).digest();
  return digest.readUInt32LE(0);
}

const align4 = (n: number): number => (n + 3) & ~3;

/** Serialise tables into one buffer. */
export function encodeIndexSidecar(tables: RepodataIndexTables): Uint8Array {
  requireLittleEndian('write');
  const header: SidecarHeader = {
    format: FORMAT,
    byteLength: tables.byteLength,
    fingerprint: tables.fingerprint,
    info: tables.info,
    rows: tables.recStart.length,
    names: tables.nameOffsets.length - 1,
    nameByteTotal: tables.nameBytes.length,
    slots: tables.nameSlots.length,
  };
  const headerBytes = encoder.encode(JSON.stringify(header));
  const arraysStart = align4(MAGIC.length + 4 + headerBytes.length);
  const words = [tables.fnStart, tables.fnEnd, tables.recStart, tables.recEnd, tables.nameOffsets, tables.nameByteOffsets, tables.nameSlots];
  const wordBytes = words.reduce((sum, array) => sum + array.byteLength, 0);
  const checksumAt = align4(arraysStart + wordBytes + tables.nameBytes.length);
  const out = new Uint8Array(checksumAt + 4);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(MAGIC.length, headerBytes.length, true);
  out.set(headerBytes, MAGIC.length + 4);
  let at = arraysStart;
  for (const array of words) {
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  out.set(tables.nameBytes, at);
  new DataView(out.buffer).setUint32(checksumAt, checksum(out, checksumAt), true);
  return out;
}

/**
 * Tables from a sidecar, as views over `bytes` (which must stay unmodified). Throws
 * `RepodataIndexUnsupportedError` when the sidecar is not one, is corrupted, or was written for a
 * document of another length or fingerprint than `expected` (then the caller scans the JSON again).
 */
export function decodeIndexSidecar(bytes: Uint8Array, expected: { byteLength: number; fingerprint: number }, where: string): RepodataIndexTables {
  const reject = (detail: string): never => {
    throw new RepodataIndexUnsupportedError(where, `the index sidecar ${detail}`);
  };
  requireLittleEndian('read');
  if (bytes.length < MAGIC.length + 8 || MAGIC.some((byte, i) => bytes[i] !== byte)) reject('is not an index sidecar (or an unknown format)');
  if (bytes.byteOffset % 4 !== 0) reject('is not 4-byte aligned in memory');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const checksumAt = bytes.length - 4;
  if (checksum(bytes, checksumAt) !== view.getUint32(checksumAt, true)) reject('is corrupted (checksum mismatch)');
  const headerLength = view.getUint32(MAGIC.length, true);
  let header: SidecarHeader;
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerLength))) as SidecarHeader;
  } catch {
    return reject('has an unreadable header');
  }
  if (header.format !== FORMAT) reject(`has format ${header.format}, expected ${FORMAT}`);
  if (header.byteLength !== expected.byteLength || header.fingerprint !== expected.fingerprint) {
    reject('belongs to a different repodata.json (length or fingerprint differ)');
  }
  let at = align4(MAGIC.length + 4 + headerLength);
  const u32 = (length: number): Uint32Array => {
    const array = new Uint32Array(bytes.buffer, bytes.byteOffset + at, length);
    at += length * 4;
    return array;
  };
  const needed = at + (4 * header.rows + 2 * 4 * (header.names + 1) + 4 * header.slots) + header.nameByteTotal;
  if (needed > checksumAt) reject('is truncated');
  const tables: RepodataIndexTables = {
    byteLength: header.byteLength,
    fingerprint: header.fingerprint,
    info: header.info,
    fnStart: u32(header.rows),
    fnEnd: u32(header.rows),
    recStart: u32(header.rows),
    recEnd: u32(header.rows),
    nameOffsets: u32(header.names + 1),
    nameByteOffsets: u32(header.names + 1),
    nameSlots: (() => {
      const array = new Int32Array(bytes.buffer, bytes.byteOffset + at, header.slots);
      at += header.slots * 4;
      return array;
    })(),
    nameBytes: bytes.subarray(at, at + header.nameByteTotal),
  };
  return tables;
}

/** Does `bytes` look like the document `tables` were built for? (Length and fingerprint.) */
export function tablesMatchBytes(tables: RepodataIndexTables, bytes: Uint8Array): boolean {
  return tables.byteLength === bytes.length && tables.fingerprint === fingerprintBytes(bytes);
}

function requireLittleEndian(what: string): void {
  if (!littleEndian) throw new RepodataIndexUnsupportedError('this machine', `cannot ${what} index sidecars on a big-endian platform`);
}
