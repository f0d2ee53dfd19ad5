/**
 * Records a lazy index has already read and normalised, kept beside its sidecar
 * (`<sidecar>.records`) so that the next process gets a name's records with one `JSON.parse`
 * instead of reading, parsing and normalising them again from the repodata.json. For `python=3.9`
 * on conda-forge-py39 that is 12-19 ms instead of 46-58 ms in a fresh process (bench/RESULTS.md).
 *
 * The file: a header line (JSON: format, version, key, body length, and each name's byte span in
 * the body), then the body (each name's records as a JSON array, concatenated); a run reads the
 * header, then only the spans of the names it asks for. It is only ever
 * replaced whole (a temporary file renamed into place), so a reader sees an old or a new file,
 * never a mix. It is trusted only when its key matches: the repodata's length and fingerprint (as
 * the sidecar's), everything that goes into a record besides the JSON (channel, subdir, package
 * base), and `RECORD_CACHE_VERSION`, which must change whenever `PackageRecord` or normalising
 * does. Anything else (missing, another key, short, not JSON) is an empty cache, replaced at the
 * next save. A cache directory that cannot be written only means no cache.
 */
import { isAscii } from 'node:buffer';
import type { PackageRecord } from '../../vocabulary/record.js';
import { RepodataFile, writeFileAtomic } from './repodata-file.js';

/** Bump when `PackageRecord`'s fields or `normaliseRecord` change: older files are then ignored. */
export const RECORD_CACHE_VERSION = 1;
const FORMAT = 'conda-resolve/records';
/** A file is not grown past this (a server that touches many names keeps the first ones). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** The header is read in pieces of this size until its newline. */
const HEADER_READ = 64 * 1024;

interface Header {
  readonly format: string;
  readonly version: number;
  readonly key: string;
  readonly bodyBytes: number;
  readonly names: Record<string, [number, number]>;
}

const encoder = new TextEncoder();
/** Where `get` reads a name's records (see `#text`); grown as needed. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

export class RecordCacheFile {
  readonly path: string;
  readonly #key: string;
  #loaded = false;
  #header: Header | null = null;
  /** The file the header was read from (kept open: another process may rename a new one into place), and where its body starts. */
  #file: RepodataFile | null = null;
  #bodyAt = 0;
  readonly #fresh = new Map<string, readonly PackageRecord[]>();

  /** `key` names the repodata and the record context the records were made from. */
  constructor(path: string, key: string) {
    this.path = path;
    this.#key = key;
  }

  /** The records kept for `name`, or undefined. */
  get(name: string): PackageRecord[] | undefined {
    this.#load();
    const header = this.#header;
    const span = header !== null && Object.hasOwn(header.names, name) ? header.names[name] : undefined;
    if (span === undefined) return undefined;
    try {
      const records = JSON.parse(this.#text(span[0], span[1])) as unknown;
      return Array.isArray(records) ? (records as PackageRecord[]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keep `records` of `name` for the next save. */
  remember(name: string, records: readonly PackageRecord[]): void {
    this.#fresh.set(name, records);
  }

  /** Write the file with the names it has now and the ones remembered since; errors are ignored. */
  save(): void {
    if (this.#fresh.size === 0) return;
    // The file as it is now (another process may have added names since this one read it).
    this.#forget();
    this.#load();
    const pieces: Uint8Array[] = [];
    const names: Record<string, [number, number]> = {};
    let at = 0;
    const add = (name: string, bytes: Uint8Array): void => {
      if (at + bytes.length > MAX_BODY_BYTES) return;
      names[name] = [at, at + bytes.length];
      pieces.push(bytes);
      at += bytes.length;
    };
    const current = this.#header as Header | null; // set by #load
    if (current !== null) {
      try {
        const body = this.#read(0, current.bodyBytes);
        for (const [name, [start, end]] of Object.entries(current.names)) {
          if (!this.#fresh.has(name)) add(name, body.subarray(start, end));
        }
      } catch {
        // unreadable now: the names remembered here are written alone
      }
    }
    for (const [name, records] of this.#fresh) add(name, encoder.encode(JSON.stringify(records)));
    this.#fresh.clear();
    const header: Header = { format: FORMAT, version: RECORD_CACHE_VERSION, key: this.#key, bodyBytes: at, names };
    try {
      writeFileAtomic(this.path, Buffer.concat([encoder.encode(`${JSON.stringify(header)}\n`), ...pieces]));
    } catch {
      return;
    }
    // Later reads go to the new file.
    this.#forget();
  }

  /** Let go of the file (the index is closed). */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }

  /** Close the file and read it afresh next time. */
  #forget(): void {
    this.close();
    this.#loaded = false;
    this.#header = null;
  }

  /** Bytes `[start, end)` of the body; throws when they cannot be read whole. */
  #read(start: number, end: number): Buffer {
    const bytes = this.#file!.read(this.#bodyAt + start, this.#bodyAt + end);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  /**
   * The text of body bytes `[start, end)`, read through a buffer the next call reuses: a run reads a
   * few dozen names' records one after another, and memory touched for the first time is what costs
   * at start. Records are mostly ASCII: then a one-byte string is made without decoding UTF-8.
   */
  #text(start: number, end: number): string {
    if (scratch.length < end - start) scratch = Buffer.allocUnsafeSlow(Math.max(end - start, 2 * scratch.length));
    const bytes = scratch.subarray(0, end - start);
    this.#file!.readInto(bytes, this.#bodyAt + start);
    return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  }

  /** Open the file and read and check its header (the body's length is checked against the file's). */
  #load(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    let file: RepodataFile;
    try {
      file = RepodataFile.open(this.path);
    } catch {
      return;
    }
    const header = readHeader(file, this.#key);
    if (header === null) {
      file.close();
      return;
    }
    this.#file = file;
    this.#header = header.header;
    this.#bodyAt = header.bodyAt;
  }
}

/** The header of `file` when it is one of ours, made for `key`, and whole. */
function readHeader(file: RepodataFile, key: string): { header: Header; bodyAt: number } | null {
  const pieces: Uint8Array[] = [];
  let newline = -1;
  try {
    for (let at = 0; newline < 0; at += HEADER_READ) {
      if (at >= file.length) return null;
      const chunk = file.read(at, Math.min(file.length, at + HEADER_READ));
      const index = chunk.indexOf(0x0a);
      pieces.push(index < 0 ? chunk : chunk.subarray(0, index));
      if (index >= 0) newline = at + index;
    }
  } catch {
    return null;
  }
  let header: Header;
  try {
    header = JSON.parse(Buffer.concat(pieces).toString('utf8')) as Header;
  } catch {
    return null;
  }
  const bodyBytes = file.length - newline - 1;
  if (
    header === null ||
    typeof header !== 'object' ||
    header.format !== FORMAT ||
    header.version !== RECORD_CACHE_VERSION ||
    header.key !== key ||
    header.bodyBytes !== bodyBytes ||
    typeof header.names !== 'object' ||
    header.names === null
  ) {
    return null;
  }
  for (const span of Object.values(header.names)) {
    if (!Array.isArray(span) || !(span[0] >= 0 && span[0] <= span[1] && span[1] <= bodyBytes)) return null;
  }
  return { header, bodyAt: newline + 1 };
}
