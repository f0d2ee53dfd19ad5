/**
 * An OSV database on disk: the `all.zip` OSV publishes (osv-vulnerabilities.storage.googleapis.com,
 * one `<ID>.json` per record, for all ecosystems or one), or a folder of OSV JSON files (nested, as
 * github/advisory-database keeps them). Every record is read and checked; the ones an audit can use
 * (the ecosystems it maps packages to) are kept, indexed by ecosystem and name.
 *
 * Bounded: the zip's size, each entry's declared size and the declared total are checked before
 * anything is inflated, and fflate inflates an entry into a buffer of its declared size, so a zip
 * bomb is refused instead of filling memory.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { unzipSync, type UnzipFileInfo } from 'fflate';
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
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
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
    throw new AuditError('CR_ERR_AUDIT_DB_TOO_LARGE', `Cannot read OSV database "${path}": ${size} bytes is more than the limit of ${bounds.maxFileBytes}`);
  }
  let data: Uint8Array;
  try {
    data = await readFile(path);
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_DB_UNREADABLE', `Cannot read OSV database "${path}": ${describeFsError(error)}`, { cause: error });
  }
  // A zip starts with a local file header (or, empty, the end of central directory record).
  if (data.length < 22 || data[0] !== 0x50 || data[1] !== 0x4b) {
    throw new AuditError('CR_ERR_AUDIT_DB_CORRUPT', `Cannot read OSV database "${path}": not a zip archive (give OSV's all.zip or a folder of OSV JSON files)`);
  }
  let total = 0;
  const filter = (file: UnzipFileInfo): boolean => {
    if (!file.name.endsWith('.json')) return false;
    if (file.originalSize > bounds.maxRecordBytes) {
      throw new AuditError('CR_ERR_AUDIT_DB_TOO_LARGE', `Cannot read OSV database "${path}": entry "${file.name}" inflates to ${file.originalSize} bytes, more than the limit of ${bounds.maxRecordBytes} for one record`);
    }
    total += file.originalSize;
    if (total > bounds.maxTotalBytes) {
      throw new AuditError('CR_ERR_AUDIT_DB_TOO_LARGE', `Cannot read OSV database "${path}": its records inflate to more than the limit of ${bounds.maxTotalBytes} bytes`);
    }
    return true;
  };
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, { filter });
  } catch (error) {
    if (error instanceof AuditError) throw error;
    throw new AuditError('CR_ERR_AUDIT_DB_CORRUPT', `Cannot read OSV database "${path}": a damaged zip archive (${(error as Error).message})`, { cause: error });
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  return Object.entries(files).map(([name, bytes]) => parseRecord(() => decoder.decode(bytes), `"${name}" in "${path}"`));
}

function parseRecord(text: () => string, where: string): OsvRecord {
  let value: unknown;
  try {
    value = JSON.parse(text());
  } catch (error) {
    throw new AuditError('CR_ERR_AUDIT_RECORD_INVALID', `Cannot read OSV record ${where}: not JSON (${(error as Error).message})`, { cause: error });
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
      throw new AuditError('CR_ERR_AUDIT_DB_TOO_LARGE', `Cannot read OSV database "${root}": "${name}" is ${size} bytes, more than the limit of ${bounds.maxRecordBytes} for one record`);
    }
    total += size;
    if (total > bounds.maxTotalBytes) {
      throw new AuditError('CR_ERR_AUDIT_DB_TOO_LARGE', `Cannot read OSV database "${root}": its records are more than the limit of ${bounds.maxTotalBytes} bytes`);
    }
    const text = await readFile(file, 'utf8');
    records.push(parseRecord(() => text, `"${name}" in "${root}"`));
  }
  return records;
}
