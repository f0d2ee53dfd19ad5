/**
 * An OSV database on disk: the `all.zip` OSV publishes (osv-vulnerabilities.storage.googleapis.com,
 * one `<ID>.json` per record, for all ecosystems or one), or a folder of OSV JSON files (nested, as
 * github/advisory-database keeps them). Every record is read and checked; the ones an audit can use
 * (the ecosystems it maps packages to) are kept, indexed by ecosystem and name.
 *
 * Bounded: the zip's size is checked before it is read, an entry's declared size before it is
 * inflated, and inflating stops at the limit of one record whatever the header says, so a zip bomb
 * is refused instead of filling memory.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { Unzip, type AsyncFlateStreamHandler, type FlateError, type UnzipDecoderConstructor } from 'fflate';
import { AuditError } from './errors.js';
import { asOsvRecord, type OsvRecord } from './osv.js';

export interface OsvDatabaseLimits {
  /** The zip file (or one JSON file of a folder) on disk; default 2 GiB. */
  readonly maxFileBytes?: number;
  /** One record, inflated; default 16 MiB (real records are a few KiB). */
  readonly maxRecordBytes?: number;
  /** All records, inflated; default 4 GiB. */
  readonly maxTotalBytes?: number;
}

const DEFAULTS = { maxFileBytes: 2 * 1024 ** 3, maxRecordBytes: 16 * 1024 ** 2, maxTotalBytes: 4 * 1024 ** 3 };

/** The ecosystems an audit checks; records of others are counted, not kept. */
export const CHECKED_ECOSYSTEMS: readonly string[] = ['PyPI'];

export interface OsvDatabase {
  /** Where it came from, for reports. */
  readonly source: string;
  /** Records read, withdrawn ones included. */
  readonly records: number;
  readonly withdrawn: number;
  /** The records that affect `name` (PEP 503 normalised for PyPI) in `ecosystem`, withdrawn ones left out. */
  advisories(ecosystem: string, name: string): readonly OsvRecord[];
}

/** PEP 503: OSV's PyPI names are as the project spells them (`Jinja2`). */
export function ecosystemName(ecosystem: string, name: string): string {
  return ecosystem === 'PyPI' ? normalizePypiName(name) : name;
}

/** A database of records in memory (the API client and tests build one). */
export function osvDatabaseOf(records: Iterable<OsvRecord>, source: string): OsvDatabase {
  const index = new Map<string, OsvRecord[]>();
  let count = 0;
  let withdrawn = 0;
  for (const record of records) {
    count++;
    if (record.withdrawn !== undefined) {
      withdrawn++;
      continue;
    }
    const keys = new Set<string>();
    for (const affected of record.affected ?? []) {
      const pkg = affected.package;
      if (!pkg || !CHECKED_ECOSYSTEMS.includes(pkg.ecosystem)) continue;
      keys.add(`${pkg.ecosystem}\0${ecosystemName(pkg.ecosystem, pkg.name)}`);
    }
    for (const key of keys) {
      let list = index.get(key);
      if (!list) index.set(key, (list = []));
      list.push(record);
    }
  }
  return {
    source,
    records: count,
    withdrawn,
    advisories: (ecosystem, name) => index.get(`${ecosystem}\0${ecosystemName(ecosystem, name)}`) ?? [],
  };
}

/** Reads a zip or a folder; `AuditError` for anything that is not an OSV database. */
export async function loadOsvDatabase(path: string, limits: OsvDatabaseLimits = {}): Promise<OsvDatabase> {
  const bounds = { ...DEFAULTS, ...limits };
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_DB_UNREADABLE', `Cannot read OSV database "${path}": ${describeFsError(error)}`, { cause: error });
  }
  const records = info.isDirectory() ? await readFolder(path, bounds) : await readZip(path, info.size, bounds);
  if (records.length === 0) {
    throw new AuditError('CR_ERR_AUDIT_DB_UNREADABLE', `Cannot read OSV database "${path}": it holds no OSV records (*.json)`);
  }
  return osvDatabaseOf(records, path);
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file or folder' : code === 'EACCES' ? 'permission denied' : (code ?? String(error));
}

async function readZip(path: string, size: number, bounds: Required<OsvDatabaseLimits>): Promise<OsvRecord[]> {
  if (size > bounds.maxFileBytes) {
    throw new AuditError(
      'CR_ERR_AUDIT_DB_TOO_LARGE',
      `Cannot read OSV database "${path}": ${size} bytes is more than the limit of ${bounds.maxFileBytes}`,
    );
  }
  let data: Uint8Array;
  try {
    data = await readFile(path);
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_DB_UNREADABLE', `Cannot read OSV database "${path}": ${describeFsError(error)}`, { cause: error });
  }
  // A zip starts with a local file header (or, empty, the end of central directory record).
  if (data.length < 22 || data[0] !== 0x50 || data[1] !== 0x4b) {
    throw new AuditError(
      'CR_ERR_AUDIT_DB_CORRUPT',
      `Cannot read OSV database "${path}": not a zip archive (give OSV's all.zip or a folder of OSV JSON files)`,
    );
  }
  let total = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const records: OsvRecord[] = [];
  const corrupt = (why: string, cause?: unknown) =>
    new AuditError(
      'CR_ERR_AUDIT_DB_CORRUPT',
      `Cannot read OSV database "${path}": a damaged zip archive (${why})`,
      cause === undefined ? undefined : { cause },
    );
  let failure: unknown;
  const open = new Set<string>();
  // fflate reads the archive's structure; Node's zlib inflates (native, about three times faster
  // than inflating in JavaScript), each entry into at most the limit of one record.
  const unzip = new Unzip((file) => {
    if (failure !== undefined || !file.name.endsWith('.json')) return;
    const declared = file.originalSize;
    if (declared !== undefined && declared > bounds.maxRecordBytes) {
      failure = new AuditError(
        'CR_ERR_AUDIT_DB_TOO_LARGE',
        `Cannot read OSV database "${path}": entry "${file.name}" inflates to ${declared} bytes, more than the limit of ${bounds.maxRecordBytes} for one record`,
      );
      return;
    }
    open.add(file.name);
    file.ondata = (error, data, final) => {
      if (failure !== undefined) return;
      if (error) {
        failure = (error as unknown) instanceof AuditError ? error : corrupt(error.message, error);
        return;
      }
      if (!final) return;
      open.delete(file.name);
      total += data.length;
      if (total > bounds.maxTotalBytes) {
        failure = new AuditError(
          'CR_ERR_AUDIT_DB_TOO_LARGE',
          `Cannot read OSV database "${path}": its records inflate to more than the limit of ${bounds.maxTotalBytes} bytes`,
        );
        return;
      }
      try {
        records.push(parseRecord(() => decoder.decode(data), `"${file.name}" in "${path}"`));
      } catch (parseError) {
        failure = parseError;
      }
    };
    try {
      file.start();
    } catch (error) {
      failure = corrupt((error as Error).message, error);
    }
  });
  unzip.register(nativeInflate(bounds.maxRecordBytes, path));
  try {
    // In pieces: fflate's streaming reader recurses once per entry within one push.
    const PIECE = 64 * 1024;
    for (let at = 0; at < data.length && failure === undefined; at += PIECE)
      unzip.push(data.subarray(at, at + PIECE), at + PIECE >= data.length);
  } catch (error) {
    if (failure === undefined) failure = error instanceof AuditError ? error : corrupt((error as Error).message, error);
  }
  if (failure === undefined && open.size > 0) failure = corrupt(`entry "${[...open][0]}" is cut off`);
  if (failure !== undefined) throw failure;
  return records;
}

/** fflate's decoder interface over zlib's raw inflate, bounded by `limit` bytes of output. */
function nativeInflate(limit: number, path: string): UnzipDecoderConstructor {
  return class NativeInflate {
    static readonly compression = 8;
    ondata: AsyncFlateStreamHandler = () => {};
    #chunks: Uint8Array[] = [];
    constructor(private readonly name: string) {}
    push(chunk: Uint8Array, final: boolean): void {
      this.#chunks.push(chunk);
      if (!final) return;
      const input = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
      this.#chunks = [];
      try {
        this.ondata(null, inflateRawSync(input, { maxOutputLength: limit }), true);
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        this.ondata(
          (tooLarge
            ? new AuditError(
                'CR_ERR_AUDIT_DB_TOO_LARGE',
                `Cannot read OSV database "${path}": entry "${this.name}" inflates to more than the limit of ${limit} bytes for one record`,
              )
            : (error as Error)) as unknown as FlateError,
          new Uint8Array(0),
          true,
        );
      }
    }
  } as unknown as UnzipDecoderConstructor;
}

function parseRecord(text: () => string, where: string): OsvRecord {
  let value: unknown;
  try {
    value = JSON.parse(text());
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_RECORD_INVALID', `Cannot read OSV record ${where}: not JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  return asOsvRecord(value, where);
}

async function readFolder(root: string, bounds: Required<OsvDatabaseLimits>): Promise<OsvRecord[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
    }
  };
  try {
    await walk(root);
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_DB_UNREADABLE', `Cannot read OSV database "${root}": ${describeFsError(error)}`, { cause: error });
  }
  files.sort();
  const records: OsvRecord[] = [];
  let total = 0;
  for (const file of files) {
    const name = relative(root, file);
    const size = (await stat(file)).size;
    if (size > bounds.maxRecordBytes) {
      throw new AuditError(
        'CR_ERR_AUDIT_DB_TOO_LARGE',
        `Cannot read OSV database "${root}": "${name}" is ${size} bytes, more than the limit of ${bounds.maxRecordBytes} for one record`,
      );
    }
    total += size;
    if (total > bounds.maxTotalBytes) {
      throw new AuditError(
        'CR_ERR_AUDIT_DB_TOO_LARGE',
        `Cannot read OSV database "${root}": its records are more than the limit of ${bounds.maxTotalBytes} bytes`,
      );
    }
    const text = await readFile(file, 'utf8');
    records.push(parseRecord(() => text, `"${name}" in "${root}"`));
  }
  return records;
}
