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
import { closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
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
  /** The file the header was read from, and where its body starts. */
  #fd: number | null = null;
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
    const span = this.#span(name);
    if (span === undefined) return undefined;
    const bytes = this.#read(this.#bodyAt + span[0], this.#bodyAt + span[1]);
    if (bytes === null) return undefined;
    try {
      // Records are mostly ASCII: then a one-byte string is made without decoding UTF-8.
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

  /** Write the file with the names it had and the ones remembered since; errors are ignored. */
  save(): void {
    if (this.#fresh.size === 0) return;
    // The file as it is now (another process may have added names since this one read it).
    this.close();
    this.#loaded = false;
    this.#header = null;
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
      const body = this.#read(this.#bodyAt, this.#bodyAt + current.bodyBytes);
      if (body !== null) {
        for (const [name, [start, end]] of Object.entries(current.names)) {
          if (!this.#fresh.has(name)) add(name, body.subarray(start, end));
        }
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
    // Later reads go to the new file.
    this.close();
    this.#loaded = false;
    this.#header = null;
  }

  /** Let go of the file (the index is closed). */
  close(): void {
    if (this.#fd === null) return;
    finalizer.unregister(this);
    try {
      closeSync(this.#fd);
    } catch {
      // already gone
    }
    this.#fd = null;
  }

  #span(name: string): [number, number] | undefined {
    const header = this.#header;
    return header !== null && Object.hasOwn(header.names, name) ? header.names[name] : undefined;
  }

  /**
   * Bytes `[start, end)` of the file the header was read from (kept open: another process may
   * rename a new file into place meanwhile), or null when they cannot be read whole.
   */
  #read(start: number, end: number): Buffer | null {
    if (this.#fd === null) return null;
    try {
      const out = Buffer.allocUnsafe(end - start);
      let got = 0;
      while (got < out.length) {
        const n = readSync(this.#fd, out, got, out.length - got, start + got);
        if (n === 0) return null;
        got += n;
      }
      return out;
    } catch {
      return null;
    }
  }

  /** Open the file and read and check its header (the body's length is checked against the file's). */
  #load(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return;
    }
    const header = readHeader(fd, this.#key);
    if (header === null) {
      closeSync(fd);
      return;
    }
    this.#fd = fd;
    finalizer.register(this, fd, this);
    this.#header = header.header;
    this.#bodyAt = header.bodyAt;
  }
}

/** Closes the file of a cache dropped without `close()`. */
const finalizer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** The header of the open file `fd` when it is one of ours, made for `key`, and whole. */
function readHeader(fd: number, key: string): { header: Header; bodyAt: number } | null {
  const pieces: Buffer[] = [];
  let fileBytes: number;
  let newline = -1;
  try {
    fileBytes = fstatSync(fd).size;
    let at = 0;
    while (newline < 0) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (n === 0) return null;
      const index = chunk.subarray(0, n).indexOf(0x0a);
      pieces.push(chunk.subarray(0, index < 0 ? n : index));
      if (index >= 0) newline = at + index;
      at += n;
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
  const bodyBytes = fileBytes - newline - 1;
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
