/**
 * Eager parsing of one repodata.json document: `JSON.parse` of the whole text, then every entry of
 * `packages` (.tar.bz2) and `packages.conda` (.conda) through the shared normaliser.
 *
 * Used for small files and as the reference the lazy index is tested against. When the same package
 * exists as both `.tar.bz2` and `.conda`, both records are kept (they are different files with
 * different hashes and URLs); the solver prefers `.conda`, as conda does (`solver/conda/candidates.ts`). Entries listed
 * under `removed` are dropped.
 */
import type { PackageRecord } from '../vocabulary/record.js';
import { locateJsonError } from './json-error.js';
import { RepodataParseError, RepodataVersionError, describeSource } from './parse-errors.js';
import { normaliseRecordOrSkip, readRepodataInfo, recordContext, type RepodataInfo, type RepodataSource } from './record-normalise.js';

export type { RepodataInfo, RepodataSource } from './record-normalise.js';

export interface ParsedRepodata {
  readonly info: RepodataInfo;
  /** `packages` entries first, then `packages.conda`, each in document order. */
  readonly records: PackageRecord[];
}

/** The two package sections of a repodata.json, in the order records are listed. */
export const PACKAGE_SECTIONS = ['packages', 'packages.conda'] as const;

/** conda reads repodata_version 1 and 2 and refuses newer ones (`MAX_REPODATA_VERSION`). */
export const MAX_REPODATA_VERSION = 2;

const decoder = new TextDecoder();
const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).length;

export function parseRepodata(input: Uint8Array | string, source: RepodataSource): ParsedRepodata {
  const where = describeSource(source.channel.name, source.subdir);
  const text = typeof input === 'string' ? input : decoder.decode(input);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    throw jsonSyntaxError(where, text, cause);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new RepodataParseError(where, 'the document is not a JSON object');
  }
  const top = document as Record<string, unknown>;
  const info = readRepodataInfo(top, where);
  checkRepodataVersion(info, where);
  const context = recordContext(source, info);
  const removed = info.removed.length > 0 ? new Set(info.removed) : null;
  const records: PackageRecord[] = [];
  for (const section of PACKAGE_SECTIONS) {
    const entries = top[section];
    if (entries === undefined || entries === null) continue;
    if (typeof entries !== 'object' || Array.isArray(entries)) {
      throw new RepodataParseError(context.source, `"${section}" must be an object of file name to record`);
    }
    for (const fn in entries) {
      if (removed?.has(fn)) continue;
      const record = normaliseRecordOrSkip((entries as Record<string, unknown>)[fn], fn, context);
      if (record !== null) records.push(record); // null: over a bound, left out
    }
  }
  return { info, records };
}

export function checkRepodataVersion(info: RepodataInfo, where: string): void {
  if (info.repodataVersion !== null && info.repodataVersion > MAX_REPODATA_VERSION) {
    throw new RepodataVersionError(where, info.repodataVersion);
  }
}

/**
 * Turn a failed `JSON.parse` into a typed error with a byte offset, line and column (found by
 * `locateJsonError`, since Node's SyntaxError does not always carry a position).
 */
export function jsonSyntaxError(where: string, text: string, cause: unknown): RepodataParseError {
  const location = locateJsonError(text);
  if (location === null) return new RepodataParseError(where, 'the document is not valid JSON', { cause });
  const { offset, expected } = location;
  const byteOffset = byteLength(text.slice(0, offset));
  if (offset >= text.length) {
    return new RepodataParseError(where, `the JSON ends unexpectedly (truncated file?): expected ${expected}`, { cause, byteOffset });
  }
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const found = JSON.stringify(text.slice(offset, offset + 1));
  return new RepodataParseError(
    where,
    `invalid JSON at byte ${byteOffset} (line ${line}, column ${column}): expected ${expected}, found ${found}`,
    {
      cause,
      byteOffset,
    },
  );
}

/** The same for a fragment (one record) that starts at `fileOffset` bytes into the document. */
export function fragmentSyntaxError(where: string, what: string, text: string, fileOffset: number, cause: unknown): RepodataParseError {
  const location = locateJsonError(text);
  const byteOffset = fileOffset + (location ? byteLength(text.slice(0, location.offset)) : 0);
  const expected = location ? `: expected ${location.expected}` : '';
  return new RepodataParseError(where, `invalid JSON in ${what} at byte ${byteOffset}${expected}`, { cause, byteOffset });
}
