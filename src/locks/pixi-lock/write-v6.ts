/**
 * `rattler-lock-v6` (aliases `pixi`, `pixi-lock-v6`): pixi's `pixi.lock` version 6, one document for
 * all platforms, byte for byte as conda-lockfiles 0.2.x writes it (the layout is on
 * `rattlerLockV6Document`).
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import { requireEnvironments, validateUrls, withSubdirPlatforms } from '../write-common.js';
import { sortByKeys } from '../../exporters/python-sort.js';
import { environmentsByName, pypiEntry, pypiIndexesOf } from './write-common.js';
import type { ExportEnvironment, Exporter } from '../../exporters/types.js';
import { emitYaml, type YamlValue } from '../../exporters/yaml/index.js';

const FORMAT = 'rattler-lock-v6';

export function exportRattlerLockV6(environments: readonly ExportEnvironment[]): string {
  return emitYaml(rattlerLockV6Document(environments));
}

/**
 * The pixi.lock data, before it is written as YAML.
 *
 * - One environment, `default` (or, for a pixi workspace, one per environment `name`, in name
 *   order), with its channels as `url:` entries and, per platform (sorted), `conda: <url>`
 *   references ordered by package name.
 * - `packages`: every package once (deduplicated by URL, so a noarch package shared by platforms
 *   appears once), in (name, platform) order, with only the fields that have a value, in the order
 *   `conda, sha256, md5, license, license_family, size, depends, constrains, features,
 *   track_features, python_site_packages_path`. conda-lockfiles leaves `timestamp` out on purpose.
 * - PyPI packages kept from a lock (conda-lockfiles writes none): `pypi:` references after the
 *   conda ones, the environment's `indexes` after its channels, and `pypi` entries after the conda
 *   ones (by name, then URL) as pixi writes them in version 6.
 */
export function rattlerLockV6Document(given: readonly ExportEnvironment[]): YamlValue {
  requireEnvironments(given, FORMAT);
  validateUrls(given, FORMAT);
  // v6 keys platforms by subdir: a v7 named platform is written as its subdir.
  const environments = withSubdirPlatforms(given, FORMAT);
  // Each environment lists its platforms sorted and its packages by URL.
  const written = new Map<string, YamlValue>();
  for (const [name, group] of environmentsByName(environments)) {
    const platforms = new Map<string, YamlValue[]>();
    for (const platform of sortByKeys(
      group.map((environment) => environment.platform),
      (p) => [p],
    )) {
      platforms.set(platform, []);
    }
    const entries = sortByKeys(
      group.flatMap((environment) => environment.records.map((record) => ({ record, platform: environment.platform }))),
      ({ record, platform }) => [record.name, platform],
    );
    for (const { record, platform } of entries) platforms.get(platform)!.push({ conda: record.url });
    // PyPI packages (pixi's `pypi:` references) follow the conda ones, with the environment's indexes.
    for (const environment of group)
      for (const record of environment.pypi ?? []) platforms.get(environment.platform)!.push({ pypi: record.url });
    const indexes = pypiIndexesOf(group);
    written.set(name, {
      channels: group[0]!.channels.map((url) => ({ url })),
      ...(indexes.length > 0 ? { indexes: [...indexes] } : {}),
      packages: platforms,
    });
  }
  const all = sortByKeys(
    environments.flatMap((environment) => environment.records.map((record) => ({ record, platform: environment.platform }))),
    ({ record, platform }) => [record.name, platform],
  );
  const packages: YamlValue[] = [];
  const seen = new Set<string>();
  for (const { record } of all) {
    if (seen.has(record.url)) continue;
    seen.add(record.url);
    packages.push(packageData(record));
  }
  const pypi = sortByKeys(
    environments.flatMap((environment) => environment.pypi ?? []),
    (record) => [record.name, record.url],
  );
  for (const record of pypi) {
    if (seen.has(`pypi:${record.url}`)) continue;
    seen.add(`pypi:${record.url}`);
    packages.push(pypiEntry(record, 6));
  }
  return { version: 6, environments: written, packages };
}

/** The record's metadata, truthy fields only (conda-lockfiles: `if data := record.get(field)`). */
function packageData(record: PackageRecord): YamlValue {
  const data: Record<string, YamlValue> = { conda: record.url };
  if (record.sha256) data.sha256 = record.sha256;
  if (record.md5) data.md5 = record.md5;
  if (record.license) data.license = record.license;
  if (record.license_family) data.license_family = record.license_family;
  if (record.size) data.size = record.size;
  if (record.depends.length > 0) data.depends = [...record.depends];
  if (record.constrains.length > 0) data.constrains = [...record.constrains];
  if (record.features) data.features = record.features;
  if (record.track_features.length > 0) data.track_features = [...record.track_features];
  if (record.python_site_packages_path) data.python_site_packages_path = record.python_site_packages_path;
  return data;
}

export const rattlerLockV6Exporter: Exporter = {
  name: FORMAT,
  aliases: ['pixi', 'pixi-lock-v6'],
  description: 'Rattler-based lockfile format from pixi',
  category: 'lockfile',
  mediaType: 'application/yaml',
  defaultFilenames: ['pixi.lock'],
  exportMultiplatform: exportRattlerLockV6,
};
