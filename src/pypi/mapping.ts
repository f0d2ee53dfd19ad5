/**
 * Which conda packages provide which PyPI distributions, as the mixed solve asks it. The request's
 * own map (`--pypi-mapping`, pixi's `conda-pypi-map`) wins; for a package it does not name (and a
 * channel with no mapping), the name rule: a conda package that is `noarch: python` or depends on
 * `python` provides the PyPI distribution of its own (normalised) name.
 */
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { CondaPypiMapOverrides } from './request.js';
import { pypiMapping, type PypiMapping } from '../pypi-mapping/index.js';

export interface CondaPypiMapping {
  /** The PyPI names (normalised) a conda record provides. */
  providedBy(record: PackageRecord): readonly string[];
  /** The conda names that may provide a PyPI name. */
  providers(pypiName: string): readonly string[];
}

const NONE: readonly string[] = [];

let shipped: PypiMapping | undefined;

export function condaPypiMapping(overrides: CondaPypiMapOverrides): CondaPypiMapping {
  shipped ??= pypiMapping();
  const fallback = shipped;
  /** conda name -> PyPI name or null, per channel (`*` for all). */
  const byChannel = new Map<string, Map<string, string | null>>();
  const reverse = new Map<string, Set<string>>();
  for (const [channel, map] of Object.entries(overrides)) {
    const entries = new Map<string, string | null>();
    for (const [condaName, pypiName] of Object.entries(map)) {
      const normal = pypiName === null ? null : normalizePypiName(pypiName);
      entries.set(condaName, normal);
      if (normal !== null) {
        const set = reverse.get(normal) ?? new Set<string>();
        set.add(condaName);
        reverse.set(normal, set);
      }
    }
    byChannel.set(channel, entries);
  }
  const explicit = (record: PackageRecord): string | null | undefined => {
    for (const key of [record.channel, '*']) {
      const map = byChannel.get(key);
      if (map?.has(record.name)) return map.get(record.name);
    }
    return undefined;
  };
  const cache = new WeakMap<PackageRecord, readonly string[]>();
  return {
    providedBy(record) {
      let known = cache.get(record);
      if (known === undefined) {
        const named = explicit(record);
        if (named !== undefined) known = named === null ? NONE : [named];
        else {
          const answer = fallback.lookup(record.channel, record.name);
          if (answer.kind === 'pypi') known = answer.names;
          else if (answer.kind === 'none') known = NONE;
          else
            known =
              record.noarch === 'python' || record.depends.some((d) => /^python(\s|$)/.test(d)) ? [normalizePypiName(record.name)] : NONE;
        }
        cache.set(record, known);
      }
      return known;
    },
    providers(pypiName) {
      const named = reverse.get(pypiName);
      // The name rule: the conda package of the same name (and those the map says).
      return named ? [...new Set([pypiName, ...named])] : [pypiName];
    },
  };
}
