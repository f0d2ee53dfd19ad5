/**
 * The plain, shareable tables of a lazy repodata index: for every package name, the byte spans of
 * its records in the repodata.json (the file-name key and the record object), plus a hash table
 * from name bytes to name id. Everything is typed arrays, so the tables can live in
 * SharedArrayBuffers, cross to worker threads without copying, and be written to a sidecar file.
 *
 * Records are stored grouped by name (CSR layout): the records of name `i` are the rows
 * `nameOffsets[i] .. nameOffsets[i + 1]`, `packages` rows before `packages.conda` rows, each in
 * document order, which is the order the eager parser lists them in.
 */
import type { RepodataInfo } from '../record-normalise.js';

export interface RepodataIndexTables {
  /** Length in bytes of the repodata.json these tables describe. */
  readonly byteLength: number;
  /** `fingerprintBytes` of that document: a cheap check that tables and bytes belong together. */
  readonly fingerprint: number;
  readonly info: RepodataInfo;
  /** Per record row: the file-name key's content (between the quotes) and the record object. */
  readonly fnStart: Uint32Array;
  readonly fnEnd: Uint32Array;
  readonly recStart: Uint32Array;
  readonly recEnd: Uint32Array;
  /** Per name id, `nameCount + 1` entries: the name's rows. */
  readonly nameOffsets: Uint32Array;
  /** The names' UTF-8 bytes, concatenated; name `i` is `nameBytes[nameByteOffsets[i] .. [i + 1]]`. */
  readonly nameBytes: Uint8Array;
  readonly nameByteOffsets: Uint32Array;
  /** Open addressing over `fnv1a(name bytes)`, power-of-two length, -1 for an empty slot. */
  readonly nameSlots: Int32Array;
}

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over `bytes[start, end)`. */
export function fnv1a(bytes: Uint8Array, start: number, end: number, seed: number = FNV_OFFSET): number {
  let hash = seed;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], FNV_PRIME);
  return hash >>> 0;
}

/**
 * A cheap fingerprint of a document: its length, its first and last 4 KiB, and 64 evenly spaced
 * 256-byte samples. It catches a sidecar paired with a different download of the same size class;
 * the cache's validator (ETag/Last-Modified) remains the real key.
 */
export function fingerprintBytes(bytes: Uint8Array): number {
  return fingerprintWith(bytes.length, (start, end) => bytes.subarray(start, end));
}

/** `fingerprintBytes` over a reader, so a file's fingerprint costs 66 small reads, not the file. */
export function fingerprintWith(length: number, read: (start: number, end: number) => Uint8Array): number {
  const mix = (hash: number, start: number, end: number): number => {
    const chunk = read(start, end);
    return fnv1a(chunk, 0, chunk.length, hash);
  };
  let hash = fnv1a(new Uint8Array(new Float64Array([length]).buffer), 0, 8);
  hash = mix(hash, 0, Math.min(length, 4096));
  hash = mix(hash, Math.max(0, length - 4096), length);
  const samples = 64;
  for (let i = 0; i < samples; i++) {
    const at = Math.floor((length * i) / samples);
    hash = mix(hash, at, Math.min(length, at + 256));
  }
  return hash;
}

const encoder = new TextEncoder();

/** The part of the tables that maps names to ids (all a lazy sidecar holds in memory). */
export type NameTable = Pick<RepodataIndexTables, 'nameBytes' | 'nameByteOffsets' | 'nameSlots'>;

/** The name id of `name`, or -1. */
export function lookupName(tables: NameTable, name: string): number {
  const query = encoder.encode(name);
  const slots = tables.nameSlots;
  const mask = slots.length - 1;
  const names = tables.nameByteOffsets.length - 1;
  let slot = fnv1a(query, 0, query.length) & mask;
  // Bounded, and ids checked, so a damaged table (a sidecar's) can neither hang nor read past the names.
  for (let probes = 0; probes < slots.length; probes++) {
    const id = slots[slot];
    if (id === -1 || id < 0 || id >= names) return -1;
    if (nameBytesEqual(tables, id, query)) return id;
    slot = (slot + 1) & mask;
  }
  return -1;
}

function nameBytesEqual(tables: NameTable, id: number, query: Uint8Array): boolean {
  const start = tables.nameByteOffsets[id];
  const end = tables.nameByteOffsets[id + 1];
  if (end - start !== query.length) return false;
  const bytes = tables.nameBytes;
  for (let i = 0; i < query.length; i++) if (bytes[start + i] !== query[i]) return false;
  return true;
}
