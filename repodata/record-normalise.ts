/**
 * One raw repodata.json entry -> one `PackageRecord`, shared by every reader so they all produce the same
 * records. Conda's semantics (conda `models/records.py`, rattler `repo_data/mod.rs`, CEP 15 for
 * `info.base_url`), each rule written beside the code that applies it. The size bounds are ours: a
 * record over one is left out of its subdir, as a `removed` one is, so one hostile record cannot stall
 * a solve that reaches it (docs/hostile-inputs.md).
 */
import type { PackageRecord } from '../vocabulary/record.js';
import { MAX_SPEC_LENGTH } from '../vocabulary/version-spec.js';
import { RepodataParseError, describeSource } from './parse-errors.js';
import type { ChannelRef } from './types.js';

/** Most entries one record's `depends` may list; the same for `constrains`. */
export const MAX_RECORD_SPECS = 4096;
/** Most characters a record's `depends` and `constrains` entries may hold together. */
export const MAX_RECORD_SPEC_CHARS = 256 * 1024;
/** Most characters of a record's `name`, `version` and `build`. */
export const MAX_RECORD_FIELD_LENGTH = 256;

/**
 * A record over one of the bounds above. `normaliseRecord` throws it; the parsers and indexes of
 * this layer leave such a record out instead (`normaliseRecordOrSkip`).
 */
export class OversizedRecordError extends RepodataParseError {
  /** The record's file name (its key in `packages`/`packages.conda`). */
  readonly fn: string;
  constructor(source: string, fn: string, detail: string) {
    super(source, `record "${fn}" ${detail}`, { code: 'CR_ERR_REPODATA_RECORD_TOO_LARGE' });
    this.fn = fn;
  }
}

/** What every record of one document shares: where it came from and how to build its URL. */
export interface RecordContext {
  readonly channel: ChannelRef;
  /** Used when a record has no `subdir` of its own: `info.subdir`, else the requested subdir. */
  readonly fallbackSubdir: string | null;
  /** Resolved `info.base_url` with a trailing slash, or null to use `<channel>/<subdir>/`. */
  readonly packageBase: string | null;
  /** `channel/subdir`, for error messages. */
  readonly source: string;
}

/** The document-level fields of a repodata.json that records depend on. */
export interface RepodataInfo {
  /** `info.subdir` (or `metadata.subdir`), null when absent. */
  readonly subdir: string | null;
  /** `info.base_url` as written (CEP 15), null when absent. */
  readonly baseUrl: string | null;
  /** Top-level `repodata_version` (or `metadata.repodata_version`), null when absent. */
  readonly repodataVersion: number | null;
  /** File names listed under `removed`: dropped from the records. */
  readonly removed: readonly string[];
}

/** Where the document came from: its channel, and the subdir it was fetched for when known. */
export interface RepodataSource {
  readonly channel: ChannelRef;
  readonly subdir?: string;
}

const MAX_SECONDS_TIMESTAMP = 253402300799;
const TRUTHY = new Set(['true', 'yes', 'on', 'y']);
const FALSY = new Set(['false', 'off', 'no', 'n', 'none', 'null', '']);

/**
 * Build the shared context of one document. Throws `RepodataParseError` when `info.base_url` is not
 * a usable URL.
 */
export function recordContext(source: RepodataSource, info: RepodataInfo): RecordContext {
  const fallbackSubdir = info.subdir ?? source.subdir ?? null;
  const where = describeSource(source.channel.name, source.subdir ?? info.subdir);
  let packageBase: string | null = null;
  if (info.baseUrl !== null && info.baseUrl !== '') {
    // CEP 15: relative to the URL of the subdir the repodata.json was fetched from.
    const subdirUrl = `${source.channel.baseUrl}/${fallbackSubdir ?? ''}/`;
    try {
      packageBase = new URL(info.baseUrl, subdirUrl).href;
    } catch (cause) {
      throw new RepodataParseError(where, `"info.base_url" ${JSON.stringify(info.baseUrl)} is not a valid URL`, { cause });
    }
    if (!packageBase.endsWith('/')) packageBase += '/';
  }
  return { channel: source.channel, fallbackSubdir, packageBase, source: where };
}

/**
 * Read `info`/`metadata`, `repodata_version` and `removed` from a parsed document's top level.
 * `metadata` is a non-standard block some snapshots use instead of `info`; only its `subdir` and
 * `repodata_version` are read (its `base_url` names the channel root, not a package directory).
 */
export function readRepodataInfo(
  top: { info?: unknown; metadata?: unknown; repodata_version?: unknown; removed?: unknown },
  source: string,
): RepodataInfo {
  const info = optionalObject(top.info, '"info"', source);
  const metadata = optionalObject(top.metadata, '"metadata"', source);
  const subdir = optionalString(info?.subdir, '"info.subdir"', source) ?? optionalString(metadata?.subdir, '"metadata.subdir"', source);
  const baseUrl = optionalString(info?.base_url, '"info.base_url"', source);
  const version = top.repodata_version ?? metadata?.repodata_version ?? null;
  if (version !== null && (typeof version !== 'number' || !Number.isInteger(version) || version < 0)) {
    throw new RepodataParseError(source, `"repodata_version" must be a non-negative integer, got ${JSON.stringify(version)}`);
  }
  let removed: string[] = [];
  if (top.removed !== undefined && top.removed !== null) {
    if (!Array.isArray(top.removed) || !top.removed.every((entry) => typeof entry === 'string')) {
      throw new RepodataParseError(source, '"removed" must be a list of file names');
    }
    removed = top.removed as string[];
  }
  return { subdir, baseUrl, repodataVersion: version, removed };
}

/**
 * Turn one raw entry of `packages`/`packages.conda` into a `PackageRecord`. `fn` is the entry's key.
 * Throws `RepodataParseError` naming the file and field when the entry is malformed, and its
 * subclass `OversizedRecordError` when the entry is over a bound (see the top of this file).
 */
export function normaliseRecord(raw: unknown, fn: string, context: RecordContext): PackageRecord {
  const record = normaliseBounded(raw, fn, context);
  if (typeof record === 'string') throw new OversizedRecordError(context.source, fn, record);
  return record;
}

/**
 * @internal `normaliseRecord`, but null for a record over a bound: the record is left out, as a
 * `removed` one is, and the rest of the subdir stays usable. Malformed entries still throw.
 */
export function normaliseRecordOrSkip(raw: unknown, fn: string, context: RecordContext): PackageRecord | null {
  const record = normaliseBounded(raw, fn, context);
  return typeof record === 'string' ? null : record;
}

/**
 * The record, or why it is over a bound. What this makes is kept between runs by the record cache:
 * a change to it (or to `PackageRecord`) must bump `RECORD_CACHE_VERSION` (lazy/record-cache.ts).
 */
function normaliseBounded(raw: unknown, fn: string, context: RecordContext): PackageRecord | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw fieldError(context, fn, null, 'must be an object');
  }
  const entry = raw as Record<string, unknown>;
  const name = requiredString(entry, 'name', fn, context);
  const version = requiredString(entry, 'version', fn, context);
  const build = requiredString(entry, 'build', fn, context);
  const over = overBounds(entry, name, version, build);
  if (over !== null) return over;
  const subdir = nullableString(entry, 'subdir', fn, context) ?? context.fallbackSubdir;
  if (subdir === null || subdir === '') {
    throw fieldError(context, fn, 'subdir', 'is missing and the document names no subdir');
  }
  // The URL is `<package base>/<fn>`; a record's own `url` key is ignored, as conda overwrites it.
  const base = context.packageBase ?? `${context.channel.baseUrl}/${subdir}/`;
  const record: PackageRecord = {
    name,
    version,
    build,
    build_number: buildNumber(entry.build_number, fn, context),
    channel: context.channel.name,
    subdir,
    fn,
    url: base + fn,
    md5: digest(entry.md5, 32, 'md5', fn, context),
    sha256: digest(entry.sha256, 64, 'sha256', fn, context),
    size: size(entry.size, fn, context),
    depends: specList(entry.depends, 'depends', fn, context),
    constrains: specList(entry.constrains, 'constrains', fn, context),
    track_features: featureList(entry.track_features, 'track_features', fn, context),
    features: features(entry.features, fn, context),
    license: nullableString(entry, 'license', fn, context),
    license_family: nullableString(entry, 'license_family', fn, context),
    noarch: noarch(entry.noarch, fn, context),
    timestamp: timestamp(entry.timestamp, fn, context),
    python_site_packages_path: nullableString(entry, 'python_site_packages_path', fn, context),
  };
  return record;
}

/** Why a record with these fields is over a bound, or null. Cheap: lengths only, before any copy. */
function overBounds(entry: Record<string, unknown>, name: string, version: string, build: string): string | null {
  for (const [key, value] of [
    ['name', name],
    ['version', version],
    ['build', build],
  ] as const) {
    if (value.length > MAX_RECORD_FIELD_LENGTH)
      return `has a ${key} of ${value.length} characters, more than the limit of ${MAX_RECORD_FIELD_LENGTH}`;
  }
  let chars = 0;
  for (const key of ['depends', 'constrains'] as const) {
    const list = entry[key];
    if (!Array.isArray(list)) continue; // null, absent, or malformed (reported by specList)
    if (list.length > MAX_RECORD_SPECS) return `has ${list.length} ${key} entries, more than the limit of ${MAX_RECORD_SPECS}`;
    for (const item of list) {
      if (typeof item !== 'string') continue;
      if (item.length > MAX_SPEC_LENGTH)
        return `has a ${key} entry of ${item.length} characters, more than the limit of ${MAX_SPEC_LENGTH}`;
      chars += item.length;
    }
  }
  if (chars > MAX_RECORD_SPEC_CHARS)
    return `has ${chars} characters of depends and constrains, more than the limit of ${MAX_RECORD_SPEC_CHARS}`;
  return null;
}

function fieldError(context: RecordContext, fn: string, field: string | null, detail: string): RepodataParseError {
  const what = field === null ? `record "${fn}"` : `record "${fn}" field "${field}"`;
  return new RepodataParseError(context.source, `${what} ${detail}`);
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function requiredString(entry: Record<string, unknown>, key: string, fn: string, context: RecordContext): string {
  const value = entry[key];
  if (typeof value === 'string' && value !== '') return value;
  if (value === undefined || value === null) throw fieldError(context, fn, key, 'is missing');
  throw fieldError(context, fn, key, `must be a non-empty string, got ${describeValue(value)}`);
}

function nullableString(entry: Record<string, unknown>, key: string, fn: string, context: RecordContext): string | null {
  const value = entry[key];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  throw fieldError(context, fn, key, `must be a string, got ${describeValue(value)}`);
}

function optionalObject(value: unknown, what: string, source: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new RepodataParseError(source, `${what} must be an object`);
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, what: string, source: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new RepodataParseError(source, `${what} must be a string, got ${describeValue(value)}`);
  return value;
}

function buildNumber(value: unknown, fn: string, context: RecordContext): number {
  // conda and rattler require it; a record that omits it sorts as build 0 rather than failing the subdir.
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw fieldError(context, fn, 'build_number', `must be a non-negative integer, got ${describeValue(value)}`);
}

function digest(value: unknown, length: number, key: string, fn: string, context: RecordContext): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string' && value.length === length) {
    // A loop, not a regex: this runs for every record, twice.
    let upper = false;
    let i = 0;
    for (; i < length; i++) {
      const c = value.charCodeAt(i);
      if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) continue;
      if (c >= 0x41 && c <= 0x46) upper = true;
      else break;
    }
    if (i === length) return upper ? value.toLowerCase() : value;
  }
  throw fieldError(context, fn, key, `must be a hex digest, got ${describeValue(value)}`);
}

function size(value: unknown, fn: string, context: RecordContext): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw fieldError(context, fn, 'size', `must be a non-negative integer, got ${describeValue(value)}`);
}

const EMPTY: readonly string[] = Object.freeze([]);

function specList(value: unknown, key: string, fn: string, context: RecordContext): readonly string[] {
  if (value === undefined || value === null) return EMPTY;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item !== 'string') throw fieldError(context, fn, key, `must be a list of strings, got an item ${describeValue(item)}`);
    }
    return value as string[];
  }
  throw fieldError(context, fn, key, `must be a list of strings, got ${describeValue(value)}`);
}

/** conda's `_FeaturesField`: a string splits on commas and spaces; empty parts are dropped. */
function featureList(value: unknown, key: string, fn: string, context: RecordContext): readonly string[] {
  if (value === undefined || value === null || value === '') return EMPTY;
  let parts: readonly unknown[];
  if (typeof value === 'string') parts = value.replace(/ /g, ',').split(',');
  else if (Array.isArray(value)) parts = value;
  else throw fieldError(context, fn, key, `must be a string or a list of strings, got ${describeValue(value)}`);
  const out: string[] = [];
  for (const part of parts) {
    if (typeof part !== 'string')
      throw fieldError(context, fn, key, `must be a string or a list of strings, got an item ${describeValue(part)}`);
    const trimmed = part.trim();
    if (trimmed !== '') out.push(trimmed);
  }
  return out.length === 0 ? EMPTY : out;
}

/** The legacy `features` field, kept as conda dumps it: space-separated, or null when empty. */
function features(value: unknown, fn: string, context: RecordContext): string | null {
  const list = featureList(value, 'features', fn, context);
  return list.length === 0 ? null : list.join(' ');
}

/** `noarch: true` is `generic`; strings are read as conda's `NoarchType.coerce` reads them. */
function noarch(value: unknown, fn: string, context: RecordContext): string | null {
  if (value === undefined || value === null || value === false) return null;
  if (value === true) return 'generic';
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'python' || lower === 'generic') return lower;
    if (TRUTHY.has(lower)) return 'generic';
    if (FALSY.has(lower)) return null;
    const numeric = Number(lower);
    if (lower.trim() !== '' && Number.isFinite(numeric)) return numeric !== 0 ? 'generic' : null;
  }
  throw fieldError(context, fn, 'noarch', `must be "python", "generic" or a boolean, got ${describeValue(value)}`);
}

/** Seconds up to 9999-12-31 become milliseconds; larger values already are (conda's `TimestampField`). */
function timestamp(value: unknown, fn: string, context: RecordContext): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw fieldError(context, fn, 'timestamp', `must be a non-negative number, got ${describeValue(value)}`);
  }
  return Math.trunc(value <= MAX_SECONDS_TIMESTAMP ? value * 1000 : value);
}
