/**
 * Reading configuration: every `.condarc` of the search path that exists, then the `CONDA_<KEY>`
 * variables, merged (merge.ts) into the effective settings with the source of each. A file that is
 * not YAML, or a key with a value of the wrong shape, is an error naming the file and the key;
 * keys we do not use are skipped, as conda skips keys it does not know.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { ConfigFileError } from './errors.js';
import { pixiConfigPaths, readPixiMirrors } from './pixi.js';
import { mergeLayers, type ConfigLayer, type MergedConfig } from './merge.js';
import { condarcSearchPath, homeOf, type Env } from './search-path.js';
import { checkSetting, SETTING_DEFAULTS, SETTINGS, type SettingKey, type SettingValues } from './settings.js';

export { ConfigFileError };

/** The largest configuration file read (real ones are a few hundred bytes). */
const MAX_CONFIG_BYTES = 1024 * 1024;

export class EffectiveConfig {
  readonly values: Partial<SettingValues>;
  readonly sources: Partial<Record<SettingKey, readonly string[]>>;
  /** The files read, lowest precedence first. */
  readonly files: readonly string[];

  constructor(merged: MergedConfig, files: readonly string[]) {
    this.values = merged.values;
    this.sources = merged.sources;
    this.files = files;
  }

  /** The value of a key: set somewhere, else conda's default, else undefined. */
  get<K extends SettingKey>(key: K): SettingValues[K] | undefined {
    return (this.values[key] ?? SETTING_DEFAULTS[key]) as SettingValues[K] | undefined;
  }

  /** Where a key's value came from: its sources, or "default". */
  sourceOf(key: SettingKey): readonly string[] {
    return this.sources[key] ?? (SETTING_DEFAULTS[key] !== undefined ? ['default'] : []);
  }
}

/** One YAML document's settings. `text` is the file's content; `source` names it in errors. */
export function parseConfigText(text: string, source: string): ConfigLayer {
  let doc: unknown;
  try {
    doc = yaml.load(text, { filename: source, schema: yaml.CORE_SCHEMA });
  } catch (cause) {
    const mark = (cause as { mark?: { line?: number; column?: number } }).mark;
    const at = mark?.line !== undefined ? `, line ${mark.line + 1}` : '';
    throw new ConfigFileError(source, `Cannot read configuration file "${source}"${at}: not valid YAML`, { cause });
  }
  if (doc === null || doc === undefined) return { source, values: {} };
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigFileError(source, `Cannot read configuration file "${source}": expected a mapping of settings`);
  const values: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, raw] of Object.entries(doc as Record<string, unknown>)) {
    // conda's alias for the one key users most often write in the singular.
    const name = (key === 'channel' ? 'channels' : key) as SettingKey;
    if (!(name in SETTINGS) || raw === null) continue;
    // A list written as text in a file (`channels: conda-forge`) is a mistake conda refuses too.
    const checked =
      SETTINGS[name] === 'sequence' && typeof raw === 'string'
        ? { ok: false as const, reason: 'expected a list of strings' }
        : checkSetting(name, raw);
    if (!checked.ok) throw new ConfigFileError(source, `Cannot use "${key}" in "${source}": ${checked.reason}`);
    values[name] = checked.value;
  }
  // `key: value  #!final` (js-yaml drops comments, so the marker is read from the text).
  const final = new Set<SettingKey>();
  for (const match of text.matchAll(/^([A-Za-z_]+)\s*:[^\n]*#!final\s*$/gm)) {
    if (match[1]! in SETTINGS) final.add(match[1] as SettingKey);
  }
  return { source, values: values as Partial<SettingValues>, final };
}

function readConfigFile(path: string): ConfigLayer | null {
  let text: string;
  try {
    const info = statSync(path);
    if (!info.isFile()) return null;
    if (info.size > MAX_CONFIG_BYTES) throw new ConfigFileError(path, `Cannot read configuration file "${path}": larger than 1 MiB`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new ConfigFileError(
      path,
      `Cannot read configuration file "${path}": ${code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable')}`,
    );
  }
  return parseConfigText(text, path);
}

function readFolder(path: string): ConfigLayer[] {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.yml') || n.endsWith('.yaml'))
    .sort()
    .map((n) => readConfigFile(join(path, n)))
    .filter((l): l is ConfigLayer => l !== null);
}

/** The `CONDA_<KEY>` variables (lists comma-separated, as conda reads them; maps are not read from variables). */
export function environmentLayers(env: Env): ConfigLayer[] {
  const layers: ConfigLayer[] = [];
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const kind = SETTINGS[key];
    if (kind === 'map' || kind === 'map-of-sequences') continue;
    const name = `CONDA_${key.toUpperCase()}`;
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const checked = checkSetting(key, raw);
    if (!checked.ok) throw new ConfigFileError(name, `Cannot use ${name}="${raw}": ${checked.reason}`);
    layers.push({ source: name, values: { [key]: checked.value } });
  }
  return layers;
}

export interface LoadConfigOptions {
  readonly env: Env;
  /** Read only these files (the server's `--condarc`) instead of the search path. */
  readonly files?: readonly string[];
  /** Highest-precedence layers (flags). */
  readonly flags?: readonly ConfigLayer[];
  /** Skip the `CONDA_<KEY>` variables (the server reads its own). */
  readonly ignoreEnvironment?: boolean;
}

/** Read and merge the configuration. Throws `ConfigFileError` for a file or variable that cannot be used. */
export function loadConfig(options: LoadConfigOptions): EffectiveConfig {
  const layers: ConfigLayer[] = [];
  if (options.files !== undefined) {
    for (const file of options.files) {
      const layer = readConfigFile(file);
      if (layer === null) throw new ConfigFileError(file, `Cannot read configuration file "${file}": no such file`);
      layers.push(layer);
    }
  } else {
    // pixi's mirrors first: our own files override them key by key.
    for (const path of pixiConfigPaths(options.env, homeOf(options.env))) {
      const layer = readPixiMirrors(path);
      if (layer !== null) layers.push(layer);
    }
    for (const entry of condarcSearchPath(options.env, homeOf(options.env))) {
      if (entry.folder) layers.push(...readFolder(entry.path));
      else {
        const layer = readConfigFile(entry.path);
        if (layer !== null) layers.push(layer);
      }
    }
  }
  const files = layers.map((l) => l.source);
  if (!options.ignoreEnvironment) layers.push(...environmentLayers(options.env));
  layers.push(...(options.flags ?? []));
  return new EffectiveConfig(mergeLayers(layers), files);
}
