/**
 * `conda-lock.yml` (version 1, as CEP 37 specifies it): one environment, `default`, with
 * `metadata` (content_hash, channels, platforms, sources, and the optional time, git, inputs and
 * custom metadata) and one `package` entry per platform and package (name, version, manager,
 * platform, dependencies, url, hash, and the optional source, build, category and optional).
 * conda entries become exact records (`dependencies` back into `depends` as "name spec"); pip
 * entries become `PypiRecord`s (`dependencies` back into `requires_dist` as "name" + specifier).
 *
 * pixi.lock versions 1 to 3 share this layout (rattler_lock `parse/v3.rs`): `dependencies` is a
 * list there and PyPI entries say `manager: pypi`; `parseLegacyLock` reads them.
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import type { PypiRecord } from '../../../vocabulary/pypi-record.js';
import type { YamlValue } from '../../exporters/yaml/index.js';
import { byName } from '../../native-result.js';
import type { LockDocument } from '../types.js';
import { lockedRecord, lockError } from '../lock-record.js';
import { isMapping, loadLockYaml } from '../lock-yaml.js';
import { condaLockEntryKey, CONDA_LOCK_METADATA_KEYS } from './facts.js';
import { isUrlLocation } from '../pixi-lock/facts.js';

export function parseCondaLock(filename: string, content: string): LockDocument {
  const doc = loadLockYaml(filename, content);
  // CEP 37: `version` is optional and defaults to 1, the only version there is.
  const version = doc.version ?? 1;
  if (version !== 1) {
    throw lockError(
      filename,
      typeof version === 'number' && version > 1
        ? `conda-lock version ${version} is newer than this conda-resolve reads (version 1, CEP 37)`
        : `conda-lock version ${JSON.stringify(version)} is not supported (version 1 is)`,
    );
  }
  return readPackageList(filename, doc, 'conda-lock');
}

/** pixi.lock versions 1 to 3 (2023): the conda-lock-like layout, read into one environment `default`. */
export function parseLegacyLock(filename: string, doc: Record<string, unknown>, version: number): LockDocument {
  const read = readPackageList(filename, doc, 'pixi');
  return { ...read, format: 'rattler-lock-v6', version };
}

function readPackageList(filename: string, doc: Record<string, unknown>, flavour: 'conda-lock' | 'pixi'): LockDocument {
  const metadata = doc.metadata;
  if (!isMapping(metadata)) throw lockError(filename, '"metadata" is missing or not a mapping');
  if (!Array.isArray(doc.package)) throw lockError(filename, '"package" is missing or not a list');
  const channels = (Array.isArray(metadata.channels) ? metadata.channels : []).map((c: unknown, i: number) => {
    const url = typeof c === 'string' ? c : isMapping(c) && typeof c.url === 'string' ? c.url : undefined;
    if (url === undefined) throw lockError(filename, `metadata.channels[${i}] has no url`);
    return url;
  });
  const platforms = new Map<string, PackageRecord[]>();
  const pypi = new Map<string, PypiRecord[]>();
  for (const platform of Array.isArray(metadata.platforms) ? metadata.platforms : []) {
    if (typeof platform !== 'string') throw lockError(filename, 'metadata.platforms holds something other than platform names');
    platforms.set(platform, []);
    pypi.set(platform, []);
  }
  const extras = new Map<string, YamlValue>();
  doc.package.forEach((entry: unknown, index: number) => {
    if (!isMapping(entry)) throw lockError(filename, `package[${index}] is not a mapping`);
    const label =
      typeof entry.name === 'string' ? ` (${entry.name}${typeof entry.platform === 'string' ? ` on ${entry.platform}` : ''})` : '';
    const where = `package[${index}]${label}`;
    if (typeof entry.url !== 'string') throw lockError(filename, `${where} has no url`);
    if (typeof entry.platform !== 'string') throw lockError(filename, `${where} has no platform`);
    if (typeof entry.name !== 'string' || entry.name === '') throw lockError(filename, `${where} has no name`);
    const version = typeof entry.version === 'string' || typeof entry.version === 'number' ? String(entry.version) : undefined;
    const hash = isMapping(entry.hash) ? entry.hash : {};
    const manager = entry.manager;
    if (!platforms.has(entry.platform)) {
      platforms.set(entry.platform, []);
      pypi.set(entry.platform, []);
    }
    // What CEP 37 defines beyond what a record holds, kept for writing the lock back.
    const kept: Record<string, YamlValue> = {};
    for (const key of ['source', 'build', 'category', 'optional'] as const)
      if (entry[key] !== undefined) kept[key] = entry[key] as YamlValue;
    extras.set(condaLockEntryKey(entry.platform, manager === 'conda' ? 'conda' : 'pip', entry.url), kept);
    if (manager === 'pip' || (flavour === 'pixi' && manager === 'pypi')) {
      // A local source tree (a path, not a URL) has no version; a distribution is pinned.
      const local = !isUrlLocation(entry.url);
      if ((version === undefined || version === '') && !local)
        throw lockError(filename, `${where}: the pip package "${entry.name}" has no "version" (a locked distribution is pinned)`);
      pypi.get(entry.platform)!.push({
        manager: 'pip',
        name: entry.name,
        version: version === undefined || version === '' ? null : version,
        url: entry.url,
        sha256: typeof hash.sha256 === 'string' ? hash.sha256 : null,
        md5: typeof hash.md5 === 'string' ? hash.md5 : null,
        requires_dist: dependencyList(filename, where, flavour === 'pixi' ? entry.requires_dist : entry.dependencies, ''),
        requires_python: typeof entry.requires_python === 'string' ? entry.requires_python : null,
        index: null,
      });
      return;
    }
    if (manager !== 'conda') throw lockError(filename, `${where}.manager is ${JSON.stringify(manager)}, not conda or pip`);
    const record = lockedRecord(filename, where, entry.url, {
      name: entry.name,
      version,
      ...(typeof entry.build === 'string' ? { build: entry.build } : {}),
      ...(typeof entry.subdir === 'string' ? { subdir: entry.subdir } : {}),
      ...(typeof entry.build_number === 'number' ? { build_number: entry.build_number } : {}),
      md5: typeof hash.md5 === 'string' ? hash.md5 : null,
      sha256: typeof hash.sha256 === 'string' ? hash.sha256 : null,
      depends: dependencyList(filename, where, entry.dependencies, ' '),
      ...(Array.isArray(entry.constrains) ? { constrains: entry.constrains.filter((c): c is string => typeof c === 'string') } : {}),
      ...(typeof entry.license === 'string' ? { license: entry.license } : {}),
      ...(typeof entry.size === 'number' ? { size: entry.size } : {}),
      ...(typeof entry.timestamp === 'number' ? { timestamp: entry.timestamp } : {}),
    });
    platforms.get(entry.platform)!.push(record);
  });
  for (const records of platforms.values()) records.sort(byName);
  for (const records of pypi.values()) records.sort(byName);
  const keptMetadata: Record<string, YamlValue> = {};
  for (const key of CONDA_LOCK_METADATA_KEYS) if (metadata[key] !== undefined) keptMetadata[key] = metadata[key] as YamlValue;
  return {
    format: 'conda-lock-v1',
    filename,
    version: 1,
    environments: new Map([
      [
        'default',
        {
          name: 'default',
          channels,
          platforms,
          pypi,
          pypiIndexes: [],
          warnings: [],
          details: {
            channels: (Array.isArray(metadata.channels) ? metadata.channels : []) as YamlValue[],
            condaLock: { metadata: keptMetadata, entries: extras },
          },
        },
      ],
    ]),
  };
}

/**
 * `dependencies` as requirement strings: a mapping name -> constraint (CEP 37; joined with `joint`:
 * a space for conda's match specs, nothing for PEP 508), or a list of strings (pixi.lock v1-v3).
 */
function dependencyList(filename: string, where: string, value: unknown, joint: string): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) throw lockError(filename, `${where}.dependencies is not a list of text`);
    return value as string[];
  }
  if (!isMapping(value)) throw lockError(filename, `${where}.dependencies is not a mapping`);
  return Object.entries(value).map(([name, spec]) => {
    const text = typeof spec === 'string' || typeof spec === 'number' ? String(spec).trim() : '';
    return text === '' ? name : `${name}${joint}${text}`;
  });
}
