/**
 * How a lazy index reaches its tables: by name id, one name's rows at a time. Two sources: the
 * whole tables in memory (after a scan, or handed to a worker thread), and a format 3 sidecar on
 * disk (`sidecar.ts`), which keeps only the name table in memory and reads a name's rows when the
 * solve first asks for it.
 */
import { RepodataIndexUnsupportedError } from '../parse-errors.js';
import type { RepodataInfo } from '../record-normalise.js';
import { lookupName, type RepodataIndexTables } from './span-tables.js';

/** A sidecar that is damaged, truncated or stale: callers rebuild the tables from the JSON. */
export class IndexSidecarDamagedError extends RepodataIndexUnsupportedError {}

/** One name's rows (all four arrays the same length), in the order of `RepodataIndexTables`. */
export interface NameRows {
  readonly fnStart: Uint32Array;
  readonly fnEnd: Uint32Array;
  readonly recStart: Uint32Array;
  readonly recEnd: Uint32Array;
}

export interface IndexRows {
  /** Length and `fingerprintBytes` of the repodata.json the rows describe. */
  readonly byteLength: number;
  readonly fingerprint: number;
  readonly info: RepodataInfo;
  readonly recordCount: number;
  /** Name ids are `0 .. nameCount - 1`. */
  readonly nameCount: number;
  /** The id of `name`, or -1. */
  lookup(name: string): number;
  nameAt(id: number): string;
  rowCount(id: number): number;
  /**
   * The rows of name `id`. A sidecar checks them as it reads them and throws
   * `IndexSidecarDamagedError` when they are damaged (the index then rebuilds its tables).
   */
  rows(id: number): NameRows;
  /** All the tables, in shared memory where the source can (a sidecar reads and checks every row). */
  tables(): RepodataIndexTables;
  /** Release what the source holds open. */
  close?(): void;
}

/** Positional access to the bytes of a file (`RepodataFile` satisfies it; tests count reads through it). */
export interface ByteReader {
  readonly length: number;
  read(start: number, end: number): Uint8Array;
  /** Fill `out` from `position` (a large read straight into shared memory, no copy). */
  readInto?(out: Uint8Array, position: number): void;
  close?(): void;
}

const decoder = new TextDecoder();

/** The name of id `id` in a name table. */
export function nameOf(tables: Pick<RepodataIndexTables, 'nameBytes' | 'nameByteOffsets'>, id: number): string {
  return decoder.decode(tables.nameBytes.subarray(tables.nameByteOffsets[id], tables.nameByteOffsets[id + 1]));
}

/** `IndexRows` over whole tables in memory: rows are views, nothing is read or checked. */
export function rowsInMemory(tables: RepodataIndexTables): IndexRows {
  const { nameOffsets } = tables;
  return {
    byteLength: tables.byteLength,
    fingerprint: tables.fingerprint,
    info: tables.info,
    recordCount: tables.recStart.length,
    nameCount: nameOffsets.length - 1,
    lookup: (name) => lookupName(tables, name),
    nameAt: (id) => nameOf(tables, id),
    rowCount: (id) => nameOffsets[id + 1] - nameOffsets[id],
    rows: (id) => {
      const first = nameOffsets[id];
      const last = nameOffsets[id + 1];
      return {
        fnStart: tables.fnStart.subarray(first, last),
        fnEnd: tables.fnEnd.subarray(first, last),
        recStart: tables.recStart.subarray(first, last),
        recEnd: tables.recEnd.subarray(first, last),
      };
    },
    tables: () => tables,
  };
}

/** Whole tables or a row source? (The index's constructor takes either.) */
export function isIndexRows(value: RepodataIndexTables | IndexRows): value is IndexRows {
  return typeof (value as IndexRows).rows === 'function';
}
