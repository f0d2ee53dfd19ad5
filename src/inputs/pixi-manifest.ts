/**
 * pixi manifests: `pixi.toml`, or `pyproject.toml` with `[tool.pixi.*]`. What a resolve uses:
 *
 * - `[workspace]` (or the older `[project]`): `channels`, `platforms`, `channel-priority`,
 *   `exclude-newer`;
 * - the default feature (`[dependencies]`, `[target.<platform>.dependencies]`,
 *   `[system-requirements]`, `[pypi-dependencies]`) and named features (`[feature.<name>.*]`,
 *   which may add channels, restrict platforms and add system requirements);
 * - `[environments]`: `name = ["feat", ...]` or `{ features = [...], no-default-feature = true }`;
 *   `default` is the default feature alone unless the table redefines it.
 *
 * An environment's channels are its features' in the order listed, then the default feature's,
 * each kept at its first place, then ordered by `priority` where a channel gives one (pixi's
 * rule); its platforms are the workspace's, narrowed by any feature that lists its own; its
 * specs are all its features' specs (several for one name must all hold). `system-requirements`
 * become virtual packages on the platforms they concern (`linux`, `libc` on linux-*, `macos` on
 * osx-*, `cuda` on linux-* and win-*). The PyPI tables (`pypi-dependencies`, `pypi-options`, a
 * pyproject's `[project]` lists and `[dependency-groups]`) are read by pixi-pypi.ts. A pyproject's `requires-python`
 * becomes a `python` spec when no feature names python, as pixi does.
 */
import { parse, TomlError } from 'smol-toml';
import { InputFileError } from '../errors.js';
import { isKnownSubdir } from '../../vocabulary/platform.js';
import type { InputSpec } from './types.js';
import type { CondaPypiMapOverrides, PypiIndexOptions, PypiInputRequirement } from '../pypi/request.js';
import { condaPypiMap, mergePypiOptions, pypiDependencies, pypiOptions, pyprojectFeatures, type FeatureOptions } from './pixi-pypi.js';

export interface ManifestEnvironment {
  readonly name: string;
  readonly channels: readonly string[];
  readonly platforms: readonly string[];
  /** The specs on a platform no `[target.*]` table concerns. */
  readonly specs: readonly InputSpec[];
  /** The whole spec list of each platform where targets change it. */
  readonly platformSpecs: ReadonlyMap<string, readonly InputSpec[]>;
  /** `NAME=VERSION` virtual package entries per platform, from `system-requirements`. */
  readonly virtualPackages: ReadonlyMap<string, readonly string[]>;
  readonly channelPriority?: string;
  readonly excludeNewer?: string;
  /** PyPI requirements on a platform no `[target.*]` table concerns. */
  readonly pypi?: readonly PypiInputRequirement[];
  /** The whole PyPI list of each platform where targets change it. */
  readonly platformPypi?: ReadonlyMap<string, readonly PypiInputRequirement[]>;
  readonly pypiOptions?: PypiIndexOptions;
}

export interface PixiManifest {
  readonly filename: string;
  /** `default` first, then the others in the manifest's order. */
  readonly environments: ReadonlyMap<string, ManifestEnvironment>;
  readonly warnings: readonly string[];
  /** `[workspace] conda-pypi-map`, its inline tables. */
  readonly condaPypiMap?: CondaPypiMapOverrides;
}

type Table = Record<string, unknown>;

interface Feature {
  readonly name: string;
  readonly channels: { readonly channel: string; readonly priority: number }[];
  readonly platforms: readonly string[] | undefined;
  readonly specs: InputSpec[];
  /** `[target.<selector>.dependencies]`, by selector (a platform, `linux`, `osx`, `win`, `unix`). */
  readonly targetSpecs: Map<string, InputSpec[]>;
  readonly system: Table;
  readonly channelPriority?: string;
  readonly pypi: PypiInputRequirement[];
  /** `[target.<selector>.pypi-dependencies]`, by selector. */
  readonly targetPypi: Map<string, PypiInputRequirement[]>;
  readonly pypiOptions: FeatureOptions | undefined;
}

export function isPixiManifest(filename: string, content: string): boolean {
  const base = (filename.split(/[\\/]/).pop() ?? filename).toLowerCase();
  if (base === 'pixi.toml') return true;
  return base.endsWith('.toml') && /^\s*\[tool\.pixi[.\]]/m.test(content);
}

export function parsePixiManifest(filename: string, content: string): PixiManifest {
  const fail = (message: string) => new InputFileError('CR_ERR_INPUT_MANIFEST', filename, `Cannot read pixi manifest "${filename}": ${message}`);
  let doc: Table;
  try {
    doc = parse(content) as Table;
  } catch (error) {
    if (error instanceof TomlError) throw fail(`${error.message.split('\n')[0]} at line ${error.line}, column ${error.column}`);
    throw error;
  }
  const isPyproject = !(filename.split(/[\\/]/).pop() ?? '').toLowerCase().startsWith('pixi');
  const root = isPyproject ? ((doc.tool as Table | undefined)?.pixi as Table | undefined) : doc;
  if (!isTable(root)) throw fail('it has no [tool.pixi] table');
  const prefix = isPyproject ? 'tool.pixi.' : '';
  const workspace = root.workspace ?? root.project;
  if (!isTable(workspace)) throw fail(`it has no [${prefix}workspace] (or [${prefix}project]) table`);
  const warnings: string[] = [];

  const stringList = (value: unknown, where: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw fail(`${where} must be a list of strings`);
    return value as string[];
  };
  const text = (value: unknown, where: string): string | undefined => {
    if (value === undefined) return undefined;
    if (value instanceof Date) return value.toISOString();
    if (typeof value !== 'string') throw fail(`${where} must be a string`);
    return value;
  };

  const feature = (name: string, table: Table, where: string): Feature => {
    const channels = (table.channels === undefined ? [] : Array.isArray(table.channels) ? table.channels : [null]).map((c: unknown, i: number) => {
      if (typeof c === 'string') return { channel: c, priority: 0 };
      if (isTable(c) && typeof c.channel === 'string') return { channel: c.channel, priority: typeof c.priority === 'number' ? c.priority : 0 };
      throw fail(`${where}channels[${i}] must be a channel name or { channel, priority }`);
    });
    const specs = dependencySpecs(table.dependencies, `${where}dependencies`, fail);
    const targetSpecs = new Map<string, InputSpec[]>();
    const targetPypi = new Map<string, PypiInputRequirement[]>();
    const pypiIndexes: string[] = [];
    if (table.target !== undefined) {
      if (!isTable(table.target)) throw fail(`${where}target must be a table`);
      for (const [platform, target] of Object.entries(table.target)) {
        if (!isTable(target)) throw fail(`${where}target.${platform} must be a table`);
        if (!FAMILIES.includes(platform) && (!isKnownSubdir(platform) || platform === 'noarch')) {
          throw fail(`${where}target.${platform}: "${platform}" is neither a platform nor one of ${FAMILIES.join(', ')}`);
        }
        const list = dependencySpecs(target.dependencies, `${where}target.${platform}.dependencies`, fail);
        if (list.length > 0) targetSpecs.set(platform, list);
        const pypiList = pypiDependencies(target['pypi-dependencies'], `${where}target.${platform}.pypi-dependencies`, filename, fail, warnings, pypiIndexes);
        if (pypiList.length > 0) targetPypi.set(platform, pypiList);
      }
    }
    const pypi = pypiDependencies(table['pypi-dependencies'], `${where}pypi-dependencies`, filename, fail, warnings, pypiIndexes);
    const options = pypiOptions(table['pypi-options'], `${where}pypi-options`, fail, warnings, filename);
    const system = table['system-requirements'] ?? {};
    if (!isTable(system)) throw fail(`${where}system-requirements must be a table`);
    return {
      name,
      channels,
      platforms: table.platforms === undefined ? undefined : stringList(table.platforms, `${where}platforms`),
      specs,
      targetSpecs,
      system,
      channelPriority: text(table['channel-priority'], `${where}channel-priority`),
      pypi,
      targetPypi,
      pypiOptions: pypiIndexes.length > 0 ? { findLinks: [], ...options, extraIndexUrls: [...pypiIndexes, ...(options?.extraIndexUrls ?? [])] } : options,
    };
  };

  const defaultFeature = feature('default', { ...root, channels: workspace.channels, platforms: undefined }, prefix);
  if (isPyproject) {
    const project = doc.project;
    if (isTable(project)) {
      const requiresPython = project['requires-python'];
      if (typeof requiresPython === 'string' && !defaultFeature.specs.some((s) => specName(s.spec) === 'python')) {
        defaultFeature.specs.push({ spec: `python ${requiresPython.replace(/\s+/g, '')}` });
      }
    }
  }
  const features = new Map<string, Feature>();
  if (root.feature !== undefined) {
    if (!isTable(root.feature)) throw fail(`${prefix}feature must be a table`);
    for (const [name, table] of Object.entries(root.feature)) {
      if (!isTable(table)) throw fail(`${prefix}feature.${name} must be a table`);
      features.set(name, feature(name, table, `${prefix}feature.${name}.`));
    }
  }

  if (isPyproject) addPyprojectFeatures(doc, defaultFeature, features, filename, fail);
  const workspacePypiOptions = pypiOptions(workspace['pypi-options'], `${prefix}workspace.pypi-options`, fail, warnings, filename);
  const workspacePlatforms = stringList(workspace.platforms, `${prefix}workspace.platforms`);
  const definitions = new Map<string, { features: string[]; noDefault: boolean }>([['default', { features: [], noDefault: false }]]);
  if (root.environments !== undefined) {
    if (!isTable(root.environments)) throw fail(`${prefix}environments must be a table`);
    for (const [name, value] of Object.entries(root.environments)) {
      const where = `${prefix}environments.${name}`;
      if (Array.isArray(value)) definitions.set(name, { features: stringList(value, where), noDefault: false });
      else if (isTable(value)) definitions.set(name, { features: stringList(value.features, `${where}.features`), noDefault: value['no-default-feature'] === true });
      else throw fail(`${where} must be a list of features or { features = [...] }`);
    }
  }

  const environments = new Map<string, ManifestEnvironment>();
  for (const [name, definition] of definitions) {
    const chosen = definition.features.map((f) => {
      const found = features.get(f);
      if (!found) throw fail(`environment "${name}" names feature "${f}", which the manifest does not define`);
      return found;
    });
    if (!definition.noDefault) chosen.push(defaultFeature);
    const seen = new Set<string>();
    const channels = chosen
      .flatMap((f) => f.channels)
      .filter((c) => (seen.has(c.channel) ? false : (seen.add(c.channel), true)))
      .map((c, order) => ({ ...c, order }))
      .sort((a, b) => b.priority - a.priority || a.order - b.order)
      .map((c) => c.channel);
    let platforms = workspacePlatforms;
    for (const f of chosen) if (f.platforms) platforms = platforms.filter((p) => f.platforms!.includes(p));
    // Default feature first: the order a reader of the manifest expects.
    const ordered = definition.noDefault ? chosen : [defaultFeature, ...chosen.slice(0, -1)];
    const base = ordered.flatMap((f) => f.specs);
    const platformSpecs = new Map<string, InputSpec[]>();
    const virtualPackages = new Map<string, string[]>();
    // A named feature's requirement overrides the default feature's.
    const system = Object.assign({}, ...ordered.map((f) => f.system)) as Table;
    for (const platform of platforms) {
      if (ordered.some((f) => [...f.targetSpecs.keys()].some((selector) => selectorRank(selector, platform) !== undefined))) {
        platformSpecs.set(platform, ordered.flatMap((f) => featureSpecsOn(f, platform)));
      }
      const entries = systemRequirements(system, platform, fail);
      if (entries.length > 0) virtualPackages.set(platform, entries);
    }
    const pypi = environmentPypi(ordered, platforms);
    environments.set(name, {
      name,
      ...(pypi.pypi.length > 0 ? { pypi: pypi.pypi } : {}),
      ...(pypi.platformPypi.size > 0 ? { platformPypi: pypi.platformPypi } : {}),
      ...optionsField(mergePypiOptions(workspacePypiOptions, ordered.map((f) => f.pypiOptions), fail, name)),
      channels,
      platforms,
      specs: base,
      platformSpecs,
      virtualPackages,
      channelPriority: chosen.find((f) => f.channelPriority !== undefined)?.channelPriority ?? text(workspace['channel-priority'], `${prefix}workspace.channel-priority`),
      excludeNewer: text(workspace['exclude-newer'], `${prefix}workspace.exclude-newer`),
    });
  }
  const pypiMap = condaPypiMap(workspace['conda-pypi-map'], `${prefix}workspace.conda-pypi-map`, filename, fail, warnings);
  return { filename, environments, warnings, ...(pypiMap ? { condaPypiMap: pypiMap } : {}) };
}

function optionsField(options: PypiIndexOptions | undefined): { pypiOptions?: PypiIndexOptions } {
  return options && Object.keys(options).length > 0 ? { pypiOptions: options } : {};
}

/**
 * A pyproject's `[project]` lists and dependency groups: the default feature's PyPI requirements,
 * and features named after extras and groups (new ones when `[tool.pixi.feature]` has none).
 */
function addPyprojectFeatures(doc: Table, defaultFeature: Feature, features: Map<string, Feature>, filename: string, fail: (m: string) => Error): void {
  const condaNames = new Set(defaultFeature.specs.map((s) => specName(s.spec).toLowerCase().replace(/[-_.]+/g, '-')));
  for (const [name, list] of pyprojectFeatures(doc, condaNames, filename, fail)) {
    if (name === 'default') {
      defaultFeature.pypi.push(...list);
      continue;
    }
    const held = features.get(name);
    if (held) held.pypi.push(...list);
    else features.set(name, { name, channels: [], platforms: undefined, specs: [], targetSpecs: new Map(), system: {}, pypi: [...list], targetPypi: new Map(), pypiOptions: undefined });
  }
}

/** An environment's PyPI requirements, and the whole list of each platform where a target changes it. */
function environmentPypi(ordered: readonly Feature[], platforms: readonly string[]): { pypi: PypiInputRequirement[]; platformPypi: Map<string, PypiInputRequirement[]> } {
  const pypi = ordered.flatMap((f) => f.pypi);
  const platformPypi = new Map<string, PypiInputRequirement[]>();
  for (const platform of platforms) {
    if (!ordered.some((f) => [...f.targetPypi.keys()].some((selector) => selectorRank(selector, platform) !== undefined))) continue;
    platformPypi.set(platform, ordered.flatMap((f) => featurePypiOn(f, platform)));
  }
  return { pypi, platformPypi };
}

/** A feature's PyPI requirements on a platform: a target's requirement for a name replaces less specific ones. */
function featurePypiOn(feature: Feature, platform: string): PypiInputRequirement[] {
  const byName = new Map<string, { item: PypiInputRequirement; rank: number }>();
  const put = (item: PypiInputRequirement, rank: number) => {
    const name = (/^\s*([A-Za-z0-9._-]+)/.exec(item.requirement)?.[1] ?? item.requirement).toLowerCase().replace(/[-_.]+/g, '-');
    const held = byName.get(name);
    if (!held || held.rank <= rank) byName.set(name, { item, rank });
  };
  for (const item of feature.pypi) put(item, 0);
  const targets = [...feature.targetPypi].map(([selector, items]) => ({ rank: selectorRank(selector, platform), items }));
  for (const { rank, items } of targets.filter((t) => t.rank !== undefined).sort((a, b) => a.rank! - b.rank!)) {
    for (const item of items) put(item, rank!);
  }
  return [...byName.values()].map((v) => v.item);
}

const FAMILIES = ['unix', 'linux', 'osx', 'win', 'emscripten', 'wasi'];

/**
 * How closely a `[target.<selector>]` fits a platform (pixi: the platform itself, then its family,
 * then `unix`), or undefined when it does not apply.
 */
function selectorRank(selector: string, platform: string): number | undefined {
  if (selector === platform) return 3;
  const family = platform.split('-')[0]!;
  if (selector === family) return 2;
  if (selector === 'unix' && (family === 'linux' || family === 'osx')) return 1;
  return undefined;
}

/** A feature's specs on a platform: a target's spec for a name replaces less specific ones. */
function featureSpecsOn(feature: Feature, platform: string): InputSpec[] {
  const byName = new Map<string, { spec: InputSpec; rank: number }>();
  const put = (spec: InputSpec, rank: number) => {
    const name = specName(spec.spec);
    const held = byName.get(name);
    if (!held || held.rank <= rank) byName.set(name, { spec, rank });
  };
  for (const spec of feature.specs) put(spec, 0);
  const targets = [...feature.targetSpecs].map(([selector, specs]) => ({ rank: selectorRank(selector, platform), specs }));
  for (const { rank, specs } of targets.filter((t) => t.rank !== undefined).sort((a, b) => a.rank! - b.rank!)) {
    for (const spec of specs) put(spec, rank!);
  }
  return [...byName.values()].map((v) => v.spec);
}

function specName(spec: string): string {
  return spec.replace(/^.*::/, '').split(/[\s=<>!~[]/)[0]!;
}

/** `name = "spec"` or `name = { version, build, channel }` entries as MatchSpec strings. */
function dependencySpecs(value: unknown, where: string, fail: (m: string) => Error): InputSpec[] {
  if (value === undefined) return [];
  if (!isTable(value)) throw fail(`${where} must be a table`);
  return Object.entries(value).map(([name, spec]) => {
    if (typeof spec === 'string') return { spec: spec.trim() === '' || spec.trim() === '*' ? name : `${name} ${spec.trim()}` };
    if (isTable(spec)) {
      const version = typeof spec.version === 'string' && spec.version.trim() !== '*' ? spec.version.trim() : undefined;
      const build = typeof spec.build === 'string' ? spec.build.trim() : undefined;
      const channel = typeof spec.channel === 'string' ? `${spec.channel}::` : '';
      if (spec.path !== undefined || spec.git !== undefined || spec.url !== undefined) {
        throw fail(`${where}.${name} is a source package (path, git or url), which a resolve cannot build`);
      }
      return { spec: `${channel}${name}${version ? ` ${version}` : build ? ' *' : ''}${build ? ` ${build}` : ''}` };
    }
    throw fail(`${where}.${name} must be a version string or a table`);
  });
}

const SYSTEM_KEYS = ['linux', 'libc', 'macos', 'cuda', 'archspec'];

/** pixi's system-requirements as virtual package entries for one platform (every field checked on each). */
function systemRequirements(system: Table, platform: string, fail: (m: string) => Error): string[] {
  const unknown = Object.keys(system).filter((key) => !SYSTEM_KEYS.includes(key));
  if (unknown.length > 0) throw fail(`system-requirements.${unknown[0]} is not one of ${SYSTEM_KEYS.join(', ')}`);
  const version = (key: string, value: unknown): string => {
    if (typeof value === 'string' || typeof value === 'number') return String(value);
    throw fail(`system-requirements.${key} must be a version`);
  };
  const linux = platform.startsWith('linux-');
  const has = (key: string) => system[key] !== undefined;
  const linuxVersion = has('linux') ? version('linux', system.linux) : undefined;
  let libc: string | undefined;
  if (has('libc')) {
    const value = system.libc;
    libc = isTable(value)
      ? `__${typeof value.family === 'string' ? value.family.toLowerCase() : 'glibc'}=${version('libc.version', value.version)}`
      : `__glibc=${version('libc', value)}`;
  }
  const macos = has('macos') ? version('macos', system.macos) : undefined;
  const cuda = has('cuda') ? version('cuda', system.cuda) : undefined;
  const archspec = has('archspec') ? version('archspec', system.archspec) : undefined;
  const entries: string[] = [];
  if (linux && linuxVersion !== undefined) entries.push(`__linux=${linuxVersion}`);
  if (linux && libc !== undefined) entries.push(libc);
  if (platform.startsWith('osx-') && macos !== undefined) entries.push(`__osx=${macos}`);
  if ((linux || platform.startsWith('win-')) && cuda !== undefined) entries.push(`__cuda=${cuda}`);
  if (archspec !== undefined) entries.push(`__archspec=1=${archspec}`);
  return entries;
}

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
