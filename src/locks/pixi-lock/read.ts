/**
 * `pixi.lock` (rattler-lock) read back, versions 1 to 7 (rattler_lock's `parse/` is the reference;
 * what each version holds is on `parsePixiLock`). Binary conda packages become exact records and PyPI
 * entries `PypiRecord`s; conda source packages and path-based packages (`conda: .`) are kept as
 * references, which no URL installs.
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import type { PypiRecord } from '../../../vocabulary/pypi-record.js';
import { byName } from '../../native-result.js';
import { entryKey, type LockedReference, type LockPackageKind, type LockPlatform } from '../facts.js';
import type { YamlValue } from '../../exporters/yaml/index.js';
import { isMapping, loadLockYaml } from '../lock-yaml.js';
import { lockedRecord, lockError, type LockEntryFields } from '../lock-record.js';
import type { LockDocument, LockedEnvironment } from '../types.js';
import { parseLegacyLock } from '../conda-lock/read.js';
import { derivedFields, isUrlLocation, LATEST_PIXI_LOCK_VERSION } from './facts.js';
import { isKnownSubdir } from '../../../vocabulary/platform.js';

/** One package entry once read: a record, a PyPI distribution or a reference. */
type ReadEntry =
  | { readonly kind: 'record'; readonly record: PackageRecord }
  | { readonly kind: 'pypi'; readonly record: PypiRecord }
  | { readonly kind: 'reference'; readonly reference: LockedReference };

/**
 * A pixi.lock, by version:
 *
 * - v7: a top-level `platforms` list (a lock platform has a name, such as `p1`, and a conda
 *   `subdir`, plus its virtual packages), environments with `channels`, `indexes`, `find-links`,
 *   `options` and, per platform name, selectors (`conda:`, `conda_source:`, `pypi:`), and one
 *   `packages` list. A binary conda package's name, version, build and subdir come from its file
 *   name when the entry leaves them out.
 * - v6: the same without `platforms` (environments are keyed by subdir) and without
 *   `conda_source`; v4 and v5 write `kind: conda` / `kind: pypi` with `url:`.
 * - v1 to v3: the older conda-lock-like layout (`metadata`, `package` with `manager`), read by
 *   `conda-lock/read.ts` as rattler reads it.
 */
export function parsePixiLock(filename: string, content: string): LockDocument {
  const doc = loadLockYaml(filename, content);
  const version = doc.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw lockError(
      filename,
      `"version" is ${version === undefined ? 'missing' : JSON.stringify(version)}; a pixi.lock has a whole version number (1 to ${LATEST_PIXI_LOCK_VERSION})`,
    );
  }
  if (version > LATEST_PIXI_LOCK_VERSION) {
    throw lockError(
      filename,
      `pixi.lock version ${version} is newer than this conda-resolve reads (versions 1 to ${LATEST_PIXI_LOCK_VERSION}); upgrade conda-resolve, or write the lock in version ${LATEST_PIXI_LOCK_VERSION} with the pixi release that reads it`,
    );
  }
  if (version <= 3) return parseLegacyLock(filename, doc, version);
  if (!isMapping(doc.environments)) throw lockError(filename, '"environments" is missing or not a mapping');
  if (!Array.isArray(doc.packages)) throw lockError(filename, '"packages" is missing or not a list');
  const lockPlatforms = version >= 7 ? readPlatforms(filename, doc.platforms) : undefined;

  // Which environment uses each selector, so an error about an entry can name it.
  const usedBy = new Map<string, string>();
  for (const [name, value] of Object.entries(doc.environments)) {
    if (!isMapping(value) || !isMapping(value.packages)) continue;
    for (const [platform, refs] of Object.entries(value.packages)) {
      if (!Array.isArray(refs)) continue;
      for (const ref of refs) {
        const selector = isMapping(ref) ? selectorOf(ref) : undefined;
        if (selector && !usedBy.has(selectorKey(selector)))
          usedBy.set(selectorKey(selector), `environment "${name}", platform ${platform}`);
      }
    }
  }

  const entries = new Map<string, ReadEntry>();
  const rawEntries = new Map<string, YamlValue>();
  doc.packages.forEach((entry: unknown, index: number) => {
    if (!isMapping(entry)) throw lockError(filename, `packages[${index}] is not a mapping`);
    const selector = entrySelector(filename, `packages[${index}]`, entry, version);
    const key = selectorKey(selector);
    const where = `packages[${index}] (${selector.kind}: ${selector.id}${usedBy.has(key) ? `, in ${usedBy.get(key)}` : ''})`;
    const read = readEntry(filename, where, entry, selector, version);
    // A path-based v6 entry is told apart by its name (several may share the location `.`).
    const named =
      selector.kind !== 'pypi' && !isUrlLocation(selector.id) && typeof entry.name === 'string' ? `${key}#${entry.name}` : undefined;
    if (named !== undefined && !entries.has(named)) entries.set(named, read);
    if (!entries.has(key)) entries.set(key, read);
    if (version >= 7 && !rawEntries.has(key)) rawEntries.set(key, entry as YamlValue);
  });

  const environments = new Map<string, LockedEnvironment>();
  const emptyEnvironments = new Map<string, YamlValue>();
  for (const [name, value] of Object.entries(doc.environments)) {
    const where = `environments.${name}`;
    if (!isMapping(value)) throw lockError(filename, `${where} is not a mapping`);
    const channelEntries = value.channels === undefined ? [] : value.channels;
    if (!Array.isArray(channelEntries)) throw lockError(filename, `${where}.channels is not a list`);
    const channels = channelEntries.map((c: unknown, i: number) => {
      const url = typeof c === 'string' ? c : isMapping(c) && typeof c.url === 'string' ? c.url : undefined;
      if (url === undefined) throw lockError(filename, `${where}.channels[${i}] has no url`);
      return url;
    });
    const indexes = value.indexes === undefined ? [] : value.indexes;
    if (!Array.isArray(indexes) || !indexes.every((i) => typeof i === 'string'))
      throw lockError(filename, `${where}.indexes is not a list of URLs`);
    const packages = value.packages ?? {};
    if (!isMapping(packages)) throw lockError(filename, `${where}.packages is not a mapping`);

    const platforms = new Map<string, PackageRecord[]>();
    const pypi = new Map<string, PypiRecord[]>();
    const references = new Map<string, LockedReference[]>();
    const platformNames = new Map<string, string>();
    for (const [platformName, refs] of Object.entries(packages)) {
      const at = `${where}.packages.${platformName}`;
      if (!Array.isArray(refs)) throw lockError(filename, `${at} is not a list`);
      let key = platformName;
      if (lockPlatforms) {
        const platform = lockPlatforms.find((p) => p.name === platformName);
        if (!platform) throw lockError(filename, `${at}: platform "${platformName}" is not in the lock's "platforms" list`);
        // Keyed by the conda subdir a solve and a check understand when no other platform of the
        // environment has it; two that share one (`linux-64` and `p2`, a CUDA machine) keep the
        // lock's names, whose subdir `lockPlatformSubdir` gives where conda needs one.
        if (platform.subdir !== platformName && !platforms.has(platform.subdir) && !Object.hasOwn(packages, platform.subdir)) {
          key = platform.subdir;
          platformNames.set(key, platformName);
        }
      }
      const records: PackageRecord[] = [];
      const distributions: PypiRecord[] = [];
      const kept: LockedReference[] = [];
      refs.forEach((ref: unknown, i: number) => {
        const selector = isMapping(ref) ? selectorOf(ref) : undefined;
        if (!selector) throw lockError(filename, `${at}[${i}] is not a package selector (conda:, conda_source: or pypi:)`);
        const named = isMapping(ref) && typeof ref.name === 'string' ? entries.get(`${selectorKey(selector)}#${ref.name}`) : undefined;
        const found = named ?? entries.get(selectorKey(selector));
        if (!found) throw lockError(filename, `${at}[${i}] names ${selector.kind}: ${selector.id}, which "packages" does not list`);
        if (found.kind === 'record') records.push(found.record);
        else if (found.kind === 'pypi') distributions.push(found.record);
        else kept.push(found.reference);
      });
      platforms.set(key, records.sort(byName));
      pypi.set(key, distributions.sort(byName));
      if (kept.length > 0) references.set(key, kept);
    }
    const referenceCount = [...references.values()].reduce((n, list) => n + list.length, 0);
    const warnings =
      referenceCount > 0
        ? [
            `${filename}: environment "${name}" keeps ${referenceCount} source or path-based package${referenceCount === 1 ? '' : 's'} (${[...new Set([...references.values()].flat().map((r) => r.name))].join(', ')}) as references: written back into a pixi.lock, left out of other formats (only a build makes them installable)`,
          ]
        : [];
    if (platforms.size === 0) emptyEnvironments.set(name, value as YamlValue);
    environments.set(name, {
      name,
      channels,
      platforms,
      pypi,
      pypiIndexes: indexes as string[],
      warnings,
      details: {
        version,
        channels: channelEntries as YamlValue[],
        ...(Array.isArray(value['find-links']) ? { findLinks: value['find-links'] as YamlValue[] } : {}),
        ...(value.options !== undefined ? { options: value.options as YamlValue } : {}),
        ...(platformNames.size > 0 ? { platformNames } : {}),
        ...(lockPlatforms ? { lockPlatforms } : {}),
        ...(references.size > 0 ? { references } : {}),
        ...(version >= 7 ? { entries: rawEntries, emptyEnvironments } : {}),
      },
    });
  }
  return { format: version >= 7 ? 'rattler-lock-v7' : 'rattler-lock-v6', filename, version, environments };
}

/** v7's top-level `platforms`: each with a name, its subdir (the name when left out) and virtual packages. */
function readPlatforms(filename: string, value: unknown): LockPlatform[] {
  if (!Array.isArray(value)) throw lockError(filename, '"platforms" is missing or not a list (pixi.lock version 7 lists its platforms)');
  const seen = new Set<string>();
  return value.map((entry: unknown, i: number) => {
    const where = `platforms[${i}]`;
    if (!isMapping(entry) || typeof entry.name !== 'string' || entry.name === '') throw lockError(filename, `${where} has no name`);
    if (seen.has(entry.name)) throw lockError(filename, `${where}: platform "${entry.name}" is listed twice`);
    seen.add(entry.name);
    const subdir = entry.subdir ?? entry.name;
    if (typeof subdir !== 'string') throw lockError(filename, `${where}.subdir is not text`);
    if (!isKnownSubdir(subdir) || subdir === 'noarch') {
      throw lockError(
        filename,
        `${where}: platform "${entry.name}" has no conda subdir ("${subdir}" is not one; a named platform gives its "subdir")`,
      );
    }
    const virtual = entry['virtual-packages'] ?? [];
    if (!Array.isArray(virtual) || !virtual.every((v) => typeof v === 'string'))
      throw lockError(filename, `${where}.virtual-packages is not a list of text`);
    return { name: entry.name, subdir, virtualPackages: virtual as string[] };
  });
}

interface Selector {
  readonly kind: LockPackageKind;
  readonly id: string;
}

function selectorKey(selector: Selector): string {
  return entryKey(selector.kind, selector.id);
}

/** An environment's reference to a package (`conda: URL`, `conda_source: ID`, `pypi: URL`). */
function selectorOf(ref: Record<string, unknown>): Selector | undefined {
  const kinds = (['conda', 'conda_source', 'pypi'] as const).filter((k) => typeof ref[k] === 'string');
  if (kinds.length !== 1) return undefined;
  return { kind: kinds[0]!, id: ref[kinds[0]!] as string };
}

/** A `packages` entry's own selector: v6/v7 name the kind by the key, v4/v5 by `kind:` with `url:`. */
function entrySelector(filename: string, where: string, entry: Record<string, unknown>, version: number): Selector {
  const own = selectorOf(entry);
  if (own) {
    if (own.kind === 'conda_source' && version < 7)
      throw lockError(filename, `${where}: "conda_source" entries first appear in pixi.lock version 7, this lock is version ${version}`);
    return own;
  }
  if (version <= 5 && (entry.kind === 'conda' || entry.kind === 'pypi') && typeof entry.url === 'string')
    return { kind: entry.kind, id: entry.url };
  // rattler_lock v4/v5 locate a PyPI package by `url:` or, for a local one, `path:` (its `UrlOrPath`).
  if (version <= 5 && entry.kind === 'pypi' && typeof entry.path === 'string') return { kind: 'pypi', id: entry.path };
  throw lockError(filename, `${where} has none of "conda", "conda_source" or "pypi"${version <= 5 ? ' (nor "kind" with "url")' : ''}`);
}

function readEntry(filename: string, where: string, entry: Record<string, unknown>, selector: Selector, version: number): ReadEntry {
  if (selector.kind === 'pypi') return { kind: 'pypi', record: pypiRecord(filename, where, entry, selector.id) };
  const fields = fieldsOf(filename, where, entry);
  if (selector.kind === 'conda_source') {
    // `name[hash] @ location`: the name is the identifier's head.
    const name = /^([^[\s@]+)/.exec(selector.id)?.[1] ?? selector.id;
    return { kind: 'reference', reference: { kind: 'conda_source', id: selector.id, name, version: fields.version ?? null } };
  }
  if (!isUrlLocation(selector.id)) {
    const derived = derivedFields(selector.id);
    const name = fields.name ?? derived.name;
    if (name === undefined) throw lockError(filename, `${where}: a path-based package needs a "name"`);
    return { kind: 'reference', reference: { kind: 'conda', id: selector.id, name, version: fields.version ?? derived.version ?? null } };
  }
  if (version >= 7 && derivedFields(selector.id).fileName === undefined) {
    throw lockError(filename, `${where}: "${selector.id}" is not a conda package (its file name does not end in .conda or .tar.bz2)`);
  }
  return { kind: 'record', record: lockedRecord(filename, where, selector.id, fields) };
}

function pypiRecord(filename: string, where: string, entry: Record<string, unknown>, url: string): PypiRecord {
  const text = textField(filename, where, entry);
  const name = text('name');
  if (name === undefined) throw lockError(filename, `${where} has no "name"`);
  const pinned = text('version');
  // A local source tree is locked by path without a version (v7); a distribution always has one.
  if (pinned === undefined && isUrlLocation(url)) {
    throw lockError(filename, `${where}: the PyPI package "${name}" has no "version" (a locked distribution is pinned)`);
  }
  const hash = isMapping(entry.hash) ? entry.hash : entry;
  const requires = entry.requires_dist ?? [];
  if (!Array.isArray(requires) || !requires.every((r) => typeof r === 'string'))
    throw lockError(filename, `${where}.requires_dist is not a list of text`);
  return {
    manager: 'pip',
    name,
    version: pinned ?? null,
    url,
    sha256: typeof hash.sha256 === 'string' ? hash.sha256 : null,
    md5: typeof hash.md5 === 'string' ? hash.md5 : null,
    requires_dist: requires as string[],
    requires_python: text('requires_python') ?? null,
    index: text('index') ?? null,
    ...(entry.editable === true ? { editable: true } : {}),
  };
}

function textField(filename: string, where: string, entry: Record<string, unknown>): (key: string) => string | undefined {
  return (key) => {
    const value = entry[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw lockError(filename, `${where}.${key} is not text`);
  };
}

function fieldsOf(filename: string, where: string, entry: Record<string, unknown>): LockEntryFields {
  const text = textField(filename, where, entry);
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
