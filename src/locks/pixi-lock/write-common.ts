/** What pixi.lock's two writers (v6 and v7) share: environments grouped by name, their PyPI indexes, PyPI entries. */
import { sortByKeys } from '../../exporters/python-sort.js';
import type { ExportEnvironment } from '../../exporters/types.js';
import type { YamlValue } from '../../exporters/yaml/index.js';
import type { PypiRecord } from '../../../vocabulary/pypi-record.js';
import { DEFAULT_PYPI_INDEX } from './facts.js';

/**
 * Environments by name (`name` set: a pixi workspace's or a lock's environments; unset:
 * `default`), in name order as rattler-lock writes them, each with its platforms.
 */
export function environmentsByName(environments: readonly ExportEnvironment[]): [string, ExportEnvironment[]][] {
  const groups = new Map<string, ExportEnvironment[]>();
  for (const environment of environments) {
    const name = environment.name ?? 'default';
    groups.set(name, [...(groups.get(name) ?? []), environment]);
  }
  return sortByKeys([...groups.keys()], (n) => [n]).map((name) => [name, groups.get(name)!]);
}

/** An environment's `indexes`: its own, else pypi.org's when it has PyPI packages, else none. */
export function pypiIndexesOf(group: readonly ExportEnvironment[]): readonly string[] {
  return (
    group.find((e) => (e.pypiIndexes ?? []).length > 0)?.pypiIndexes ??
    (group.some((e) => (e.pypi ?? []).length > 0) ? [DEFAULT_PYPI_INDEX] : [])
  );
}

/**
 * rattler's `PypiPackageDataModel`: `pypi`, `name`, `version`, the hashes (md5 first), then v7's
 * `index` (left out for pypi.org), `requires_dist`, `requires_python`, and v6's `editable`.
 */
export function pypiEntry(record: PypiRecord, version: 6 | 7): YamlValue {
  const entry: Record<string, YamlValue> = { pypi: record.url, name: record.name };
  if (record.version !== null) entry.version = record.version;
  if (record.md5) entry.md5 = record.md5;
  if (record.sha256) entry.sha256 = record.sha256;
  if (version === 7 && record.index !== null && record.index.replace(/\/+$/, '') !== DEFAULT_PYPI_INDEX) entry.index = record.index;
  if (record.requires_dist.length > 0) entry.requires_dist = [...record.requires_dist];
  if (record.requires_python !== null) entry.requires_python = record.requires_python;
  if (version === 6 && record.editable) entry.editable = true;
  return entry;
}
