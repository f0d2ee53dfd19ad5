/**
 * Exporter plugins: installed npm packages that add output formats with no change to conda-resolve,
 * the npm counterpart of conda's `conda_environment_exporters` hook. How a plugin declares itself and
 * where plugins are found is in src/exporters/README.md. Never the working directory's `node_modules`
 * on their own: a command run in someone else's checkout would run whatever it ships
 * (docs/hostile-clients-and-channels.md). A plugin that cannot be loaded is skipped with a warning
 * that names it; warnings are returned, never printed. Two exporters with one name or alias are
 * `DuplicateExporterError`, as in conda.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { registerBuiltinExporters } from './builtin.js';
import { ExporterRegistry, InvalidExporterError, type ExporterDefinition } from './registry.js';
import { EXPORTER_API_VERSION } from './types.js';

/**
 * In the CLI's bundle (a script run by code-cache.ts) `import()` is compiled to `require()`, which
 * cannot load a `file:` URL or an ES module: the launcher passes its own `import` as `__crImport`.
 */
declare const __crImport: ((specifier: string) => Promise<unknown>) | undefined;
function importModule(url: string): Promise<unknown> {
  return typeof __crImport === 'function' ? __crImport(url) : import(url);
}

/** The package.json key a plugin declares itself with. */
export const PLUGIN_MANIFEST_KEY = 'conda-resolve';

export interface LoadRegistryOptions {
  /** Environment variables (`CONDA_RESOLVE_PLUGINS`); default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where relative paths and package names in `CONDA_RESOLVE_PLUGINS` are resolved from; default `process.cwd()`. */
  readonly cwd?: string;
  /** Where conda-resolve is installed (its `node_modules` and those above); default: this package. */
  readonly searchFrom?: string;
}

export interface LoadedPlugin {
  readonly name: string;
  readonly version: string | null;
  /** The package folder, or the module file for a module named in `CONDA_RESOLVE_PLUGINS`. */
  readonly location: string;
  /** The primary names of the exporters it added. */
  readonly exporters: readonly string[];
}

export interface LoadedRegistry {
  readonly registry: ExporterRegistry;
  /** One line per plugin skipped, naming it and saying why. */
  readonly warnings: readonly string[];
  readonly plugins: readonly LoadedPlugin[];
}

/** A plugin found on disk, before its code is loaded. */
export interface PluginCandidate {
  readonly name: string;
  readonly version: string | null;
  /** The package folder (package plugins) or the module file (direct modules). */
  readonly location: string;
  /** The module to import. */
  readonly modulePath: string;
  /** The declared API range; null for a module named directly (checked after import if it exports one). */
  readonly api: string | null;
  readonly direct: boolean;
}

type Manifest = { name?: unknown; version?: unknown; [PLUGIN_MANIFEST_KEY]?: unknown };

/** The built-in exporters plus every compatible plugin's. Throws `DuplicateExporterError` on a name clash. */
export async function loadRegistry(options: LoadRegistryOptions = {}): Promise<LoadedRegistry> {
  const registry = registerBuiltinExporters(new ExporterRegistry());
  const { candidates, warnings } = await discoverPlugins(options);
  const plugins: LoadedPlugin[] = [];
  for (const candidate of candidates) {
    const loaded = await loadPlugin(candidate, warnings);
    if (!loaded) continue;
    const names: string[] = [];
    for (const definition of loaded) {
      names.push(registry.register(definition, candidate.name).name);
    }
    plugins.push({ name: candidate.name, version: candidate.version, location: candidate.location, exporters: names });
  }
  return { registry, warnings, plugins };
}

/** The line a command logs for a plugin it loaded: code that runs in it, so never silently. */
export function pluginLoadedLine(plugin: LoadedPlugin): string {
  return `loaded exporter plugin ${plugin.version ? `${plugin.name} ${plugin.version}` : plugin.name} from ${plugin.location} (formats: ${plugin.exporters.join(', ')})`;
}

/** Finds plugin packages (and modules named in `CONDA_RESOLVE_PLUGINS`) without loading them. */
export async function discoverPlugins(options: LoadRegistryOptions = {}): Promise<{ candidates: PluginCandidate[]; warnings: string[] }> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const searchFrom = options.searchFrom ?? ownPackageRoot();
  const warnings: string[] = [];
  const folders = nodeModulesFolders([searchFrom]);

  const candidates: PluginCandidate[] = [];
  const seenNames = new Set<string>();
  const seenLocations = new Set<string>();
  const add = async (candidate: PluginCandidate) => {
    const real = realpathOrNull(candidate.location) ?? candidate.location;
    if (seenNames.has(candidate.name) || seenLocations.has(real)) return;
    seenNames.add(candidate.name);
    seenLocations.add(real);
    candidates.push(candidate);
  };

  // Plugins named explicitly come first, so they win over an installed copy of the same package.
  for (const entry of (env.CONDA_RESOLVE_PLUGINS ?? '').split(',')) {
    const spec = entry.trim();
    if (spec === '') continue;
    const candidate = await candidateFromSpecifier(spec, cwd, folders, warnings);
    if (candidate) await add(candidate);
  }
  for (const folder of folders) {
    for (const packageDir of packageFolders(folder)) {
      // Only a manifest that mentions the key is worth parsing.
      const manifest = readManifest(packageDir, `"${PLUGIN_MANIFEST_KEY}"`);
      if (!manifest || manifest[PLUGIN_MANIFEST_KEY] === undefined) continue;
      const candidate = candidateFromManifest(packageDir, manifest, warnings);
      if (candidate) await add(candidate);
    }
  }
  return { candidates, warnings };
}

async function loadPlugin(candidate: PluginCandidate, warnings: string[]): Promise<ExporterDefinition[] | null> {
  const label = pluginLabel(candidate);
  if (candidate.api !== null && !apiCompatible(candidate.api, label, warnings)) return null;
  let module: Record<string, unknown>;
  try {
    module = (await importModule(pathToFileURL(candidate.modulePath).href)) as Record<string, unknown>;
  } catch (error) {
    warnings.push(`Skipped exporter plugin ${label}: cannot load ${candidate.modulePath}: ${errorMessage(error)}`);
    return null;
  }
  if (candidate.direct && typeof module.api === 'string' && !apiCompatible(module.api, label, warnings)) return null;
  let list: unknown = module.exporters ?? module.default;
  try {
    if (typeof list === 'function') list = await (list as () => unknown)();
  } catch (error) {
    warnings.push(`Skipped exporter plugin ${label}: its exporters function failed: ${errorMessage(error)}`);
    return null;
  }
  if (!Array.isArray(list)) {
    warnings.push(`Skipped exporter plugin ${label}: it must export "exporters", a list of exporters, not ${describe(list)}`);
    return null;
  }
  // Validate every definition before registering any, so a bad plugin adds nothing.
  const probe = new ExporterRegistry();
  try {
    for (const definition of list) probe.register(definition as ExporterDefinition, candidate.name);
  } catch (error) {
    if (error instanceof InvalidExporterError) {
      warnings.push(`Skipped exporter plugin ${label}: ${error.message}`);
      return null;
    }
    // Two exporters of the same plugin clash: as much a start-up error as a clash between plugins.
    throw error;
  }
  return list as ExporterDefinition[];
}

function apiCompatible(range: string, label: string, warnings: string[]): boolean {
  if (semver.validRange(range) === null) {
    warnings.push(`Skipped exporter plugin ${label}: its exporter API range "${range}" is not a valid semver range`);
    return false;
  }
  if (!semver.satisfies(EXPORTER_API_VERSION, range)) {
    warnings.push(
      `Skipped exporter plugin ${label}: it needs exporter API ${range}, and this conda-resolve provides ${EXPORTER_API_VERSION}`,
    );
    return false;
  }
  return true;
}

function candidateFromManifest(packageDir: string, manifest: Manifest, warnings: string[]): PluginCandidate | null {
  const name = typeof manifest.name === 'string' ? manifest.name : packageDir;
  const version = typeof manifest.version === 'string' ? manifest.version : null;
  const label = version ? `${name} ${version}` : name;
  const declaration = manifest[PLUGIN_MANIFEST_KEY];
  if (typeof declaration !== 'object' || declaration === null) {
    warnings.push(`Skipped exporter plugin ${label}: its package.json "${PLUGIN_MANIFEST_KEY}" field must be an object`);
    return null;
  }
  const { exporters, api } = declaration as { exporters?: unknown; api?: unknown };
  if (typeof exporters !== 'string' || exporters === '') {
    warnings.push(`Skipped exporter plugin ${label}: its package.json "${PLUGIN_MANIFEST_KEY}" field must name its "exporters" module`);
    return null;
  }
  if (typeof api !== 'string') {
    warnings.push(
      `Skipped exporter plugin ${label}: its package.json "${PLUGIN_MANIFEST_KEY}" field must state the "api" range it supports`,
    );
    return null;
  }
  return { name, version, location: packageDir, modulePath: resolve(packageDir, exporters), api, direct: false };
}

async function candidateFromSpecifier(
  spec: string,
  cwd: string,
  folders: readonly string[],
  warnings: string[],
): Promise<PluginCandidate | null> {
  const isPath = spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('file:');
  if (isPath) {
    const path = spec.startsWith('file:') ? fileURLToPath(spec) : resolve(cwd, spec);
    const info = statOrNull(path);
    if (!info) {
      warnings.push(`Skipped exporter plugin ${spec} (CONDA_RESOLVE_PLUGINS): no such file or folder`);
      return null;
    }
    if (info.isDirectory()) return packageCandidate(path, spec, warnings);
    return { name: spec, version: null, location: path, modulePath: path, api: null, direct: true };
  }
  // A package name: look for it where installed plugins are looked for.
  const packageName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  if (packageName === spec) {
    for (const folder of folders) {
      const dir = join(folder, ...spec.split('/'));
      if (readManifest(dir)) return packageCandidate(dir, spec, warnings);
    }
  }
  // A module specifier (a package's subpath, or a package installed elsewhere): let Node resolve it.
  try {
    const path = createRequire(join(cwd, 'noop.js')).resolve(spec);
    return { name: spec, version: null, location: path, modulePath: path, api: null, direct: true };
  } catch {
    warnings.push(`Skipped exporter plugin ${spec} (CONDA_RESOLVE_PLUGINS): cannot find it from ${cwd}`);
    return null;
  }
}

function packageCandidate(dir: string, spec: string, warnings: string[]): PluginCandidate | null {
  const manifest = readManifest(dir);
  if (!manifest) {
    warnings.push(`Skipped exporter plugin ${spec} (CONDA_RESOLVE_PLUGINS): ${dir} has no readable package.json`);
    return null;
  }
  if (manifest[PLUGIN_MANIFEST_KEY] === undefined) {
    const name = typeof manifest.name === 'string' ? manifest.name : spec;
    warnings.push(`Skipped exporter plugin ${name} (CONDA_RESOLVE_PLUGINS): its package.json has no "${PLUGIN_MANIFEST_KEY}" field`);
    return null;
  }
  return candidateFromManifest(dir, manifest, warnings);
}

/**
 * A folder's package.json, or null; with `mustContain`, null too when the text lacks it (not parsed).
 * Synchronous on purpose: discovery reads hundreds of these, faster so than through the thread pool.
 */
function readManifest(dir: string, mustContain?: string): Manifest | null {
  try {
    const text = readFileSync(join(dir, 'package.json'), 'utf8');
    if (mustContain !== undefined && !text.includes(mustContain)) return null;
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Manifest) : null;
  } catch {
    return null;
  }
}

/** `node_modules` folders of each start directory and its ancestors, nearest first, without repeats. */
function nodeModulesFolders(starts: readonly string[]): string[] {
  const result: string[] = [];
  const seen = new Set<string>();
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      const candidate = join(dir, 'node_modules');
      const real = realpathOrNull(candidate);
      if (real && !seen.has(real)) {
        seen.add(real);
        result.push(candidate);
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  return result;
}

/** The package folders directly in a `node_modules` folder, including scoped ones (`@scope/name`). */
function packageFolders(folder: string): string[] {
  const result: string[] = [];
  for (const entry of readdirOrEmpty(folder)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      for (const scoped of readdirOrEmpty(join(folder, entry))) {
        if (!scoped.startsWith('.')) result.push(join(folder, entry, scoped));
      }
    } else {
      result.push(join(folder, entry));
    }
  }
  return result.sort();
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string): ReturnType<typeof statSync> | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** conda-resolve's package root: the nearest folder above this module with its package.json. */
function ownPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = readManifest(dir);
    if (manifest?.name === 'conda-resolve') return dir;
    const parent = dirname(dir);
    if (parent === dir) return dirname(fileURLToPath(import.meta.url));
    dir = parent;
  }
}

function pluginLabel(candidate: PluginCandidate): string {
  return candidate.version ? `${candidate.name} ${candidate.version}` : candidate.name;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  return `a value of type ${typeof value}`;
}
