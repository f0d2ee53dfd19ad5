/**
 * One locked package as a `PackageRecord`: name, version, build and subdir come from the package
 * URL, build number and noarch from the build string (as rattler derives them when a lock leaves
 * them out, `pixi-lock/facts.ts`), the rest from the lock's entry.
 */
import { parseChannel } from '../../vocabulary/channel.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { InputFileError } from '../errors.js';
import { parseExplicitUrl } from '../inputs/explicit-file.js';
import { derivedBuildNumber, derivedNoarch } from './pixi-lock/facts.js';

export interface LockEntryFields {
  readonly name?: string;
  readonly version?: string;
  readonly build?: string;
  readonly build_number?: number;
  readonly subdir?: string;
  readonly md5?: string | null;
  readonly sha256?: string | null;
  readonly size?: number | null;
  readonly depends?: readonly string[];
  readonly constrains?: readonly string[];
  readonly track_features?: readonly string[];
  readonly features?: string | null;
  readonly license?: string | null;
  readonly license_family?: string | null;
  readonly noarch?: string | null;
  readonly timestamp?: number | null;
  readonly python_site_packages_path?: string | null;
}

export function lockedRecord(filename: string, where: string, url: string, fields: LockEntryFields): PackageRecord {
  const parsed = parseExplicitUrl(url);
  if (!parsed) {
    throw new InputFileError(
      'CR_ERR_INPUT_LOCK',
      filename,
      `Cannot read lock file "${filename}": ${where}: "${url}" is not a conda package URL`,
    );
  }
  const fn = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  let channel = parsed.channelUrl;
  try {
    channel = parseChannel(parsed.channelUrl).name;
  } catch {
    // A URL parseChannel refuses still names its package; keep it as the channel.
  }
  const build = fields.build ?? parsed.build;
  const record: PackageRecord = {
    name: fields.name ?? parsed.name,
    version: fields.version ?? parsed.version,
    build,
    build_number: fields.build_number ?? derivedBuildNumber(build) ?? 0,
    channel,
    subdir: fields.subdir ?? parsed.subdir,
    fn,
    url,
    md5: fields.md5 ?? null,
    sha256: fields.sha256 ?? null,
    size: fields.size ?? null,
    depends: [...(fields.depends ?? [])],
    constrains: [...(fields.constrains ?? [])],
    track_features: [...(fields.track_features ?? [])],
    features: fields.features ?? null,
    license: fields.license ?? null,
    license_family: fields.license_family ?? null,
    noarch: fields.noarch ?? derivedNoarch(fields.subdir ?? parsed.subdir, build),
    timestamp: fields.timestamp ?? null,
  };
  return fields.python_site_packages_path ? { ...record, python_site_packages_path: fields.python_site_packages_path } : record;
}

export function lockError(filename: string, message: string): InputFileError {
  return new InputFileError('CR_ERR_INPUT_LOCK', filename, `Cannot read lock file "${filename}": ${message}`);
}
