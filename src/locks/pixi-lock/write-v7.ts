/**
 * `rattler-lock-v7` (aliases `pixi-lock-v7`, `pixi-v7`): pixi.lock version 7 as pixi writes it
 * (rattler_lock `parse/serialize.rs`, through serde_yaml: `../serde-yaml.ts`). An environment read
 * from a lock carries the lock's own entries and they are written as they were, so a v7 lock read and
 * written again is the same file. The layout is on `rattlerLockV7Document`.
 */
import { parseChannel } from '../../../vocabulary/channel.js';
import type { PackageRecord } from '../../../vocabulary/record.js';
import { sortByKeys } from '../../exporters/python-sort.js';
import type { ExportEnvironment, Exporter } from '../../exporters/types.js';
import type { YamlValue } from '../../exporters/yaml/index.js';
import { entryKey, LOCK_PACKAGE_KINDS, type LockPackageKind, type LockPlatform } from '../facts.js';
import { emitSerdeYaml } from '../serde-yaml.js';
import { requireEnvironments, validateUrls } from '../write-common.js';
import { derivedBuildNumber, derivedFields, derivedNoarch } from './facts.js';
import { environmentsByName, pypiEntry, pypiIndexesOf } from './write-common.js';

const FORMAT = 'rattler-lock-v7';

export function exportRattlerLockV7(environments: readonly ExportEnvironment[]): string {
  return emitSerdeYaml(rattlerLockV7Document(environments));
}

interface Selected {
  readonly kind: LockPackageKind;
  readonly id: string;
  readonly entry: () => YamlValue;
}

/**
 * The pixi.lock v7 data, before it is written as YAML.
 *
 * - `version: 7`, then `platforms`: every platform used, sorted by name, each `name` with its
 *   `subdir` when the name is not the subdir (pixi's named platforms) and its `virtual-packages`;
 * - `environments` sorted by name: `channels` (`url:` with a trailing slash, as pixi writes a
 *   channel), `indexes` (and `find-links`) when the environment has PyPI packages or a lock named
 *   them, `options` when a lock had them, and `packages` per platform name, each list sorted by
 *   kind (`conda`, `conda_source`, `pypi`) then by its id;
 * - `packages`: each package once, sorted the same way. A conda entry leaves out what its URL
 *   says (name, version, build, build number, subdir, noarch) and writes the rest in rattler's
 *   field order; a PyPI entry writes `pypi`, `name`, `version`, hashes, `index` (not for
 *   pypi.org), `requires_dist`, `requires_python`.
 */
export function rattlerLockV7Document(environments: readonly ExportEnvironment[]): YamlValue {
  requireEnvironments(environments, FORMAT);
  validateUrls(environments, FORMAT);
  const platforms = new Map<string, LockPlatform>();
  const packages = new Map<string, Selected>();
  const written = new Map<string, YamlValue>();
  const allEntries = new Map<string, YamlValue>();
  for (const environment of environments)
    for (const [key, entry] of environment.lock?.entries ?? []) if (!allEntries.has(key)) allEntries.set(key, entry);
  for (const [name, group] of environmentsByName(environments)) {
    const lock = group.find((e) => e.lock)?.lock;
    const perPlatform = new Map<string, Selected[]>();
    for (const environment of group) {
      const platformName = environment.lock?.platformNames?.get(environment.platform) ?? environment.platform;
      const known = environment.lock?.lockPlatforms?.find((p) => p.name === platformName);
      if (!platforms.has(platformName))
        platforms.set(platformName, known ?? { name: platformName, subdir: environment.platform, virtualPackages: [] });
      const entries = environment.lock?.entries;
      const raw = (kind: LockPackageKind, id: string) => entries?.get(entryKey(kind, id));
      const selected: Selected[] = [
        ...environment.records.map((record) => ({
          kind: 'conda' as const,
          id: record.url,
          entry: () => raw('conda', record.url) ?? condaEntry(record),
        })),
        ...(environment.lock?.references?.get(environment.platform) ?? []).map((reference) => ({
          kind: reference.kind,
          id: reference.id,
          entry: () => raw(reference.kind, reference.id) ?? { [reference.kind]: reference.id, name: reference.name },
        })),
        ...(environment.pypi ?? []).map((record) => ({
          kind: 'pypi' as const,
          id: record.url,
          entry: () => raw('pypi', record.url) ?? pypiEntry(record, 7),
        })),
      ];
      const sorted = sortSelected(selected);
      perPlatform.set(platformName, sorted);
      for (const item of sorted) if (!packages.has(entryKey(item.kind, item.id))) packages.set(entryKey(item.kind, item.id), item);
    }
    const data = new Map<string, YamlValue>();
    // Channel entries as written are kept only from a pixi.lock (`version` set): a conda-lock.yml's
    // carry `used_env_vars: []`, which rattler_lock never writes, and URLs without pixi's slash.
    const keptChannels = lock?.version !== undefined ? lock.channels : undefined;
    data.set('channels', keptChannels ?? group[0]!.channels.map((channel) => ({ url: channelUrl(channel) })));
    const indexes = pypiIndexesOf(group);
    if (indexes.length > 0) {
      data.set('indexes', [...indexes]);
      if (lock?.findLinks && lock.findLinks.length > 0) data.set('find-links', lock.findLinks);
    }
    if (lock?.options !== undefined) data.set('options', lock.options);
    const byPlatform = new Map<string, YamlValue>();
    for (const platformName of sortByKeys([...perPlatform.keys()], (p) => [p])) {
      byPlatform.set(
        platformName,
        perPlatform.get(platformName)!.map((item) => ({ [item.kind]: item.id })),
      );
    }
    data.set('packages', byPlatform);
    written.set(name, data);
  }
  // A source package's build and host packages are written too, though no environment names them.
  const pending = [...packages.values()];
  while (pending.length > 0) {
    const item = pending.pop()!;
    const entry = item.entry();
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || entry instanceof Map) continue;
    for (const field of ['build_packages', 'host_packages']) {
      const selectors = (entry as Record<string, YamlValue>)[field];
      if (!Array.isArray(selectors)) continue;
      for (const selector of selectors) {
        const [kind, id] = Object.entries(selector as Record<string, YamlValue>)[0] ?? [];
        if (!LOCK_PACKAGE_KINDS.includes(kind as LockPackageKind) || typeof id !== 'string') continue;
        const key = entryKey(kind as LockPackageKind, id);
        const raw = allEntries.get(key);
        if (raw === undefined || packages.has(key)) continue;
        const added = { kind: kind as LockPackageKind, id, entry: () => raw };
        packages.set(key, added);
        pending.push(added);
      }
    }
  }
  // Environments of the lock that lock no platform are written back as they were.
  for (const environment of environments) {
    for (const [name, entry] of environment.lock?.emptyEnvironments ?? []) if (!written.has(name)) written.set(name, entry);
  }
  const sortedEnvironments = new Map(sortByKeys([...written.keys()], (n) => [n]).map((n) => [n, written.get(n)!] as const));
  return {
    version: 7,
    platforms: sortByKeys([...platforms.values()], (p) => [p.name]).map(platformEntry),
    environments: sortedEnvironments,
    packages: sortSelected([...packages.values()]).map((item) => item.entry()),
  };
}

/** rattler's order: binary conda, then conda source, then pypi; each by its id. */
function sortSelected(items: readonly Selected[]): Selected[] {
  return sortByKeys(items, (item) => [String(LOCK_PACKAGE_KINDS.indexOf(item.kind)), item.id]);
}

function platformEntry(platform: LockPlatform): YamlValue {
  const entry: Record<string, YamlValue> = { name: platform.name };
  if (platform.subdir !== platform.name) entry.subdir = platform.subdir;
  if (platform.virtualPackages.length > 0) entry['virtual-packages'] = [...platform.virtualPackages];
  return entry;
}

/** A channel as pixi writes it: its base URL with a trailing slash. */
function channelUrl(channel: string): string {
  try {
    return `${parseChannel(channel).baseUrl}/`;
  } catch {
    return channel;
  }
}

/** rattler's `CondaPackageDataModel` from a record: what the URL says is left out. */
function condaEntry(record: PackageRecord): YamlValue {
  const derived = derivedFields(record.url);
  const entry: Record<string, YamlValue> = { conda: record.url };
  if (record.name !== derived.name) entry.name = record.name;
  if (record.version !== derived.version) entry.version = record.version;
  if (record.build !== (derived.build ?? '')) entry.build = record.build;
  if (record.build_number !== (derivedBuildNumber(record.build) ?? 0)) entry.build_number = record.build_number;
  if (record.subdir !== derived.subdir) entry.subdir = record.subdir;
  const noarch = derivedNoarch(derived.subdir ?? record.subdir, derived.build ?? record.build);
  if (record.noarch !== null && record.noarch !== noarch) entry.noarch = record.noarch;
  if (record.sha256) entry.sha256 = record.sha256;
  if (record.md5) entry.md5 = record.md5;
  if (record.depends.length > 0) entry.depends = [...record.depends];
  if (record.constrains.length > 0) entry.constrains = [...record.constrains];
  if (record.features) entry.features = record.features;
  if (record.track_features.length > 0) entry.track_features = [...record.track_features];
  if (record.license !== null) entry.license = record.license;
  if (record.license_family !== null) entry.license_family = record.license_family;
  if (record.size !== null) entry.size = record.size;
  if (record.timestamp !== null) entry.timestamp = record.timestamp;
  if (record.python_site_packages_path) entry.python_site_packages_path = record.python_site_packages_path;
  return entry;
}

export const rattlerLockV7Exporter: Exporter = {
  name: FORMAT,
  aliases: ['pixi-lock-v7', 'pixi-v7'],
  description: 'Rattler-based lockfile format from pixi, version 7 (what pixi writes today)',
  category: 'lockfile',
  mediaType: 'application/yaml',
  // `pixi.lock` stays rattler-lock-v6's default name, as conda's exporter has it; `-o pixi.lock`
  // picks v7 by the lock already there or a pixi manifest input (src/lock/lock-version.ts).
  defaultFilenames: [],
  exportMultiplatform: exportRattlerLockV7,
};
