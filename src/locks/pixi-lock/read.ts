/**
 * `pixi.lock` (rattler-lock, version 6; versions 4 and 5 read too): every environment with its
 * channels and, per platform, references to the package list by URL. Conda packages become exact
 * records; pypi packages are named in a warning (a resolve does not install them).
 */
import yaml from 'js-yaml';
import type { PackageRecord } from '../../../vocabulary/record.js';
import { byName } from '../../native-result.js';
import type { LockDocument, LockedEnvironment } from '../types.js';
import { lockedRecord, lockError, type LockEntryFields } from '../lock-record.js';

/** Locks of real workspaces reach tens of MB; more than this is not a lock worth parsing here. */
export const MAX_LOCK_BYTES = 64 * 1024 * 1024;

export function loadLockYaml(filename: string, content: string): Record<string, unknown> {
  if (content.length > MAX_LOCK_BYTES) throw lockError(filename, `it is larger than ${MAX_LOCK_BYTES / 1024 / 1024} MiB (the limit)`);
  let doc: unknown;
  try {
    doc = yaml.load(content, { filename });
  } catch (error) {
    if (error instanceof yaml.YAMLException) {
      const where = error.mark ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}` : '';
      throw lockError(filename, `${error.reason}${where}`);
    }
    throw error;
  }
  if (!isMapping(doc)) throw lockError(filename, 'the document is not a mapping');
  return doc;
}

export function parsePixiLock(filename: string, content: string): LockDocument {
  const doc = loadLockYaml(filename, content);
  const version = doc.version;
  if (typeof version !== 'number' || version < 4 || version > 6) {
    throw lockError(filename, `pixi.lock version ${JSON.stringify(version)} is not supported (versions 4 to 6 are)`);
  }
  if (!isMapping(doc.environments)) throw lockError(filename, '"environments" is missing or not a mapping');
  if (!Array.isArray(doc.packages)) throw lockError(filename, '"packages" is missing or not a list');

  const byUrl = new Map<string, PackageRecord>();
  let pypi = 0;
  doc.packages.forEach((entry: unknown, index: number) => {
    const where = `packages[${index}]`;
    if (!isMapping(entry)) throw lockError(filename, `${where} is not a mapping`);
    // v6: `conda: URL`; v4/v5: `kind: conda` with `url: URL`.
    const url = typeof entry.conda === 'string' ? entry.conda : entry.kind === 'conda' && typeof entry.url === 'string' ? entry.url : undefined;
    if (url === undefined) {
      if (typeof entry.pypi === 'string' || entry.kind === 'pypi') {
        pypi++;
        return;
      }
      throw lockError(filename, `${where} has neither "conda" nor "pypi"`);
    }
    byUrl.set(url, lockedRecord(filename, where, url, fieldsOf(filename, where, entry)));
  });

  const environments = new Map<string, LockedEnvironment>();
  for (const [name, value] of Object.entries(doc.environments)) {
    const where = `environments.${name}`;
    if (!isMapping(value)) throw lockError(filename, `${where} is not a mapping`);
    const channels = (Array.isArray(value.channels) ? value.channels : []).map((c: unknown, i: number) => {
      const url = typeof c === 'string' ? c : isMapping(c) && typeof c.url === 'string' ? c.url : undefined;
      if (url === undefined) throw lockError(filename, `${where}.channels[${i}] has no url`);
      return url;
    });
    const platforms = new Map<string, PackageRecord[]>();
    const packages = value.packages ?? {};
    if (!isMapping(packages)) throw lockError(filename, `${where}.packages is not a mapping`);
    for (const [platform, refs] of Object.entries(packages)) {
      if (!Array.isArray(refs)) throw lockError(filename, `${where}.packages.${platform} is not a list`);
      const records: PackageRecord[] = [];
      refs.forEach((ref: unknown, i: number) => {
        if (!isMapping(ref)) throw lockError(filename, `${where}.packages.${platform}[${i}] is not a mapping`);
        if (typeof ref.conda !== 'string') return; // a pypi reference
        const record = byUrl.get(ref.conda);
        if (!record) throw lockError(filename, `${where}.packages.${platform}[${i}] names ${ref.conda}, which "packages" does not list`);
        records.push(record);
      });
      platforms.set(platform, records.sort(byName));
    }
    environments.set(name, { name, channels, platforms });
  }
  const warnings = pypi > 0 ? [`${filename}: ${pypi} pypi package${pypi === 1 ? '' : 's'} in the lock left out (a resolve handles conda packages only)`] : [];
  return { format: 'rattler-lock-v6', filename, environments, warnings };
}

function fieldsOf(filename: string, where: string, entry: Record<string, unknown>): LockEntryFields {
  const text = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw lockError(filename, `${where}.${key} is not text`);
  };
  const count = (key: string): number | undefined => {
    const value = entry[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw lockError(filename, `${where}.${key} is not a number`);
  };
  const list = (key: string): string[] | undefined => {
    const value = entry[key];
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    throw lockError(filename, `${where}.${key} is not a list of text`);
  };
  const trackFeatures = entry.track_features;
  return {
    name: text('name'),
    version: text('version'),
    build: text('build'),
    build_number: count('build_number'),
    subdir: text('subdir'),
    md5: text('md5'),
    sha256: text('sha256'),
    size: count('size'),
    depends: list('depends'),
    constrains: list('constrains'),
    track_features: typeof trackFeatures === 'string' ? trackFeatures.split(/[\s,]+/).filter(Boolean) : list('track_features'),
    features: text('features'),
    license: text('license'),
    license_family: text('license_family'),
    noarch: typeof entry.noarch === 'boolean' ? (entry.noarch ? 'generic' : undefined) : text('noarch'),
    timestamp: count('timestamp'),
    python_site_packages_path: text('python_site_packages_path'),
  };
}

export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
