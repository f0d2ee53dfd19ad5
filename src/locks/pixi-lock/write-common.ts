/** What pixi.lock's two writers (v6 and v7) share: environments grouped by name, and their PyPI indexes. */
import { sortByKeys } from '../../exporters/python-sort.js';
import type { ExportEnvironment } from '../../exporters/types.js';
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
  return group.find((e) => (e.pypiIndexes ?? []).length > 0)?.pypiIndexes ?? (group.some((e) => (e.pypi ?? []).length > 0) ? [DEFAULT_PYPI_INDEX] : []);
}
