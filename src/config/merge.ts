/**
 * conda's merge of configuration sources (conda/common/configuration.py): sources are ordered from
 * lowest to highest precedence (files in search-path order, then `CONDA_<KEY>` variables, then
 * flags), merged by the rules on `mergeLayers`. Every merged value keeps the sources it came from
 * (for `conda-resolve config`).
 */
import { SETTINGS, type SettingKey, type SettingValues } from './settings.js';

export interface ConfigLayer {
  /** A file path, `CONDA_<KEY>`, or a flag: shown as where a value came from. */
  readonly source: string;
  readonly values: Partial<SettingValues>;
  /** Keys this source marks `#!final`. */
  readonly final?: ReadonlySet<SettingKey>;
}

export interface MergedConfig {
  readonly values: Partial<SettingValues>;
  /** For each set key, the sources that gave its value, highest precedence first. */
  readonly sources: Partial<Record<SettingKey, readonly string[]>>;
}

/**
 * The layers merged, as conda merges them:
 * - A sequence (`channels`, ...) is the concatenation of every source's list, the highest source's
 *   items first, duplicates dropped: `~/.condarc` listing `conda-forge` and `$CONDARC` listing
 *   `bioconda` gives `[bioconda, conda-forge]`.
 * - A map (`custom_channels`, `proxy_servers`, ...) is merged key by key, the highest source
 *   winning each key.
 * - A key marked `#!final` in a source is not changed by any source above it.
 */
export function mergeLayers(layers: readonly ConfigLayer[]): MergedConfig {
  const values: Partial<Record<SettingKey, unknown>> = {};
  const sources: Partial<Record<SettingKey, string[]>> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    // The sources that count: up to and including the first one marking the key final.
    const relevant: ConfigLayer[] = [];
    for (const layer of layers) {
      if (layer.values[key] !== undefined) relevant.push(layer);
      if (layer.final?.has(key) && layer.values[key] !== undefined) break;
    }
    if (relevant.length === 0) continue;
    const highestFirst = [...relevant].reverse();
    const kind = SETTINGS[key];
    if (kind === 'sequence') {
      const merged: string[] = [];
      const from: string[] = [];
      for (const layer of highestFirst) {
        const list = layer.values[key] as string[];
        if (list.length > 0) from.push(layer.source);
        for (const item of list) if (!merged.includes(item)) merged.push(item);
      }
      values[key] = merged;
      sources[key] = from.length > 0 ? from : [highestFirst[0]!.source];
    } else if (kind === 'map' || kind === 'map-of-sequences') {
      const merged: Record<string, unknown> = {};
      const from: string[] = [];
      // Lowest first, so a higher source overwrites each key it sets.
      for (const layer of relevant) {
        const map = layer.values[key] as Record<string, unknown>;
        if (Object.keys(map).length > 0) from.unshift(layer.source);
        Object.assign(merged, map);
      }
      values[key] = merged;
      sources[key] = from.length > 0 ? from : [highestFirst[0]!.source];
    } else {
      values[key] = highestFirst[0]!.values[key];
      sources[key] = [highestFirst[0]!.source];
    }
  }
  return { values: values as Partial<SettingValues>, sources };
}
