/**
 * Records a lazy index has already read and normalised, kept beside its sidecar
 * (`<sidecar>.records`) so that the next process gets a name's records with one `JSON.parse`
 * instead of reading, parsing and normalising them again from the repodata.json. For `python=3.9`
 * on conda-forge-py39 that is 12-19 ms instead of 46-58 ms in a fresh process (bench/RESULTS.md).
 *
 * The file: a header line (JSON: format, version, key, body length, and each name's byte span in
 * the body), then the body (each name's records as a JSON array, concatenated). It is only ever
 * replaced whole (a temporary file renamed into place), so a reader sees an old or a new file,
 * never a mix. It is trusted only when its key matches: the repodata's length and fingerprint (as
 * the sidecar's), everything that goes into a record besides the JSON (channel, subdir, package
 * base), and `RECORD_CACHE_VERSION`, which must change whenever `PackageRecord` or normalising
 * does. Anything else (missing, another key, short, not JSON) is an empty cache, replaced at the
 * next save. A cache directory that cannot be written only means no cache.
 */
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { PackageRecord } from '../../vocabulary/record.js';

/** Bump when `PackageRecord`'s fields or `normaliseRecord` change: older files are then ignored. */
export const RECORD_CACHE_VERSION = 1;
const FORMAT = 'conda-resolve/records';
/** A file is not grown past this (a server that touches many names keeps the first ones). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface Header {
  readonly format: string;
  readonly version: number;
  readonly key: string;
  readonly bodyBytes: number;
  readonly names: Record<string, [number, number]>;
}

const encoder = new TextEncoder();

export class RecordCacheFile {
  readonly path: string;
  readonly #key: string;
  #loaded = false;
  #header: Header | null = null;
  #body: Buffer | null = null;
  readonly #fresh = new Map<string, readonly PackageRecord[]>();

  /** `key` names the repodata and the record context the records were made from. */
  constructor(path: string, key: string) {
    this.path = path;
    this.#key = key;
  }

  /** The records kept for `name`, or undefined. */
  get(name: string): PackageRecord[] | undefined {
    this.#load();
    const span = this.#header !== null && Object.hasOwn(this.#header.names, name) ? this.#header.names[name] : undefined;
    if (span === undefined || this.#body === null) return undefined;
    try {
      // Records are mostly ASCII: then a one-byte string is made without decoding UTF-8.
      const bytes = this.#body.subarray(span[0], span[1]);
      const records = JSON.parse(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')) as unknown;
      return Array.isArray(records) ? (records as PackageRecord[]) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Keep `records` of `name` for the next save. */
  remember(name: string, records: readonly PackageRecord[]): void {
    this.#fresh.set(name, records);
  }

  /** Whether `remember` added names since the last save. */
  get dirty(): boolean {
    return this.#fresh.size > 0;
  }

  /** Write the file with the names it had and the ones remembered since; errors are ignored. */
  save(): void {
    if (this.#fresh.size === 0) return;
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
    if (this.#header !== null && this.#body !== null) {
      for (const [name, [start, end]] of Object.entries(this.#header.names)) {
        if (!this.#fresh.has(name)) add(name, this.#body.subarray(start, end));
      }
    }
    for (const [name, records] of this.#fresh) add(name, encoder.encode(JSON.stringify(records)));
    this.#fresh.clear();
    const header: Header = { format: FORMAT, version: RECORD_CACHE_VERSION, key: this.#key, bodyBytes: at, names };
    const temp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      writeFileSync(temp, Buffer.concat([encoder.encode(`${JSON.stringify(header)}\n`), ...pieces]));
      renameSync(temp, this.path);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        // never written
      }
      return;
    }
    this.#header = header;
    this.#body = Buffer.concat(pieces);
  }

  #load(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    let file: Buffer;
    try {
      file = readFileSync(this.path);
    } catch {
      return;
    }
    const newline = file.indexOf(0x0a);
    if (newline < 0) return;
    let header: Header;
    try {
      header = JSON.parse(file.toString('utf8', 0, newline)) as Header;
    } catch {
      return;
    }
    const body = file.subarray(newline + 1);
    if (
      header === null ||
      typeof header !== 'object' ||
      header.format !== FORMAT ||
      header.version !== RECORD_CACHE_VERSION ||
      header.key !== this.#key ||
      header.bodyBytes !== body.length ||
      typeof header.names !== 'object' ||
      header.names === null
    ) {
      return;
    }
    for (const span of Object.values(header.names)) {
      if (!Array.isArray(span) || !(span[0] >= 0 && span[0] <= span[1] && span[1] <= body.length)) return;
    }
    this.#header = header;
    this.#body = body;
  }
}
