/**
 * The native JSON result (docs/command-line.md): one `SolveResult` per requested platform, fields in
 * the documented order, packages sorted by name.
 */
import type { PackageRecord } from '../vocabulary/record.js';
import type { PypiRecord } from '../vocabulary/pypi-record.js';
import type { NativeExplanation } from './explanation-data.js';

export interface NativePackage {
  name: string;
  version: string;
  build: string;
  build_number: number;
  channel: string;
  subdir: string;
  url: string;
  sha256: string | null;
  md5: string | null;
  size: number | null;
  depends: string[];
  constrains: string[];
  manager: 'conda';
}

/** A PyPI distribution kept from a lock (`manager: pip`), after the conda packages. */
export interface NativePypiPackage {
  name: string;
  version: string | null;
  url: string;
  sha256: string | null;
  md5: string | null;
  requires_dist: string[];
  requires_python: string | null;
  index: string | null;
  /** The fields below: a solved distribution (from the index); a lock's kept entries do not have them. */
  filename?: string;
  hashes?: Record<string, string>;
  size?: number | null;
  upload_time?: string | null;
  yanked?: boolean;
  extras?: string[];
  depends?: string[];
  manager: 'pip';
}

export interface SolveResult {
  platform: string;
  packages: (NativePackage | NativePypiPackage)[];
  error: string | null;
  /** Only on a platform that failed: why no solution exists, as data (null for other failures). */
  explanation?: NativeExplanation | null;
}

export function nativePackage(record: PackageRecord): NativePackage {
  // Built field by field so the key order is the documented one, whatever the record's.
  return {
    name: record.name,
    version: record.version,
    build: record.build,
    build_number: record.build_number,
    channel: record.channel,
    subdir: record.subdir,
    url: record.url,
    sha256: record.sha256,
    md5: record.md5,
    size: record.size,
    depends: [...record.depends],
    constrains: [...record.constrains],
    manager: 'conda',
  };
}

export function nativePypiPackage(record: PypiRecord): NativePypiPackage {
  return {
    name: record.name,
    version: record.version,
    url: record.url,
    sha256: record.sha256,
    md5: record.md5,
    requires_dist: [...record.requires_dist],
    requires_python: record.requires_python,
    index: record.index,
    ...(record.filename !== undefined ? { filename: record.filename } : {}),
    ...(record.hashes !== undefined ? { hashes: { ...record.hashes } } : {}),
    ...(record.size !== undefined ? { size: record.size } : {}),
    ...(record.upload_time !== undefined ? { upload_time: record.upload_time } : {}),
    ...(record.yanked !== undefined ? { yanked: record.yanked } : {}),
    ...(record.extras !== undefined ? { extras: [...record.extras] } : {}),
    ...(record.depends !== undefined ? { depends: [...record.depends] } : {}),
    manager: 'pip',
  };
}

export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
