/**
 * pixi manifests: `pixi.toml`, or `pyproject.toml` with `[tool.pixi.*]`, read as pixi reads them into
 * environments, each with its channels, platforms, specs and virtual packages. What a resolve uses is
 * listed on `parsePixiManifest`; docs/lock-files.md says what we chose where pixi's manifest leaves room.
 */
import { parse, TomlError } from 'smol-toml';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
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
  /** The manifest's name of each platform (subdir) that a table in `workspace.platforms` named otherwise. */
  readonly platformNames: ReadonlyMap<string, string>;
  /** PyPI requirements on a platform no `[target.*]` table concerns. */
  readonly pypi?: readonly PypiInputRequirement[];
  /** The whole PyPI list of each platform where targets change it. */
  readonly platformPypi?: ReadonlyMap<string, readonly PypiInputRequirement[]>;
  readonly pypiOptions?: PypiIndexOptions;
}

/** The most a manifest may define; each is checked where it is read, and the error names it. */
export const MANIFEST_LIMITS = {
  /** Characters of the whole file, checked before it is parsed (scipy's pixi.toml has 21,000). */
  bytes: 256 * 1024,
  environments: 256,
  features: 256,
  /** `[target.<selector>]` tables of one feature. */
  targets: 64,
  /** Entries of `workspace.platforms`. */
  platforms: 64,
} as const;

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

let lastParsed: { filename: string; content: string; manifest: PixiManifest } | undefined;

/**
 * The manifest of `content`, parsed once: the last one read is kept (a workspace reads it per
 * environment). What a resolve uses:
 *
 * - `[workspace]` (or the older `[project]`): `channels`, `platforms`, `channel-priority`,
 *   `exclude-newer`;
 * - the default feature (`[dependencies]`, `[target.<platform>.dependencies]`,
 *   `[system-requirements]`, `[pypi-dependencies]`) and named features (`[feature.<name>.*]`,
 *   which may add channels, restrict platforms and add system requirements);
 * - `[environments]`: `name = ["feat", ...]` or `{ features = [...], no-default-feature = true,
 *   platforms = [...] }`; `default` is the default feature alone unless the table redefines it;
 * - `workspace.platforms` entries as subdir strings or as tables naming a platform with its own
 *   virtual packages (`{ name = "gpu", platform = "linux-64", cuda = "12.0" }`; pixi's
 *   docs/workspace/multi_platform_configuration.md): each solves for its subdir with its virtual
 *   packages, which win over `system-requirements`; features and targets name it by its name.
 *
 * An environment's channels are its features' in the order listed, then the default feature's,
 * each kept at its first place, then ordered by `priority` where a channel gives one (pixi's
 * rule); its platforms are the workspace's, narrowed by any feature that lists its own; its
 * specs are all its features' specs (several for one name must all hold). `system-requirements`
 * become virtual packages on the platforms they concern (`linux`, `libc` on linux-*, `macos` on
 * osx-*, `cuda` on linux-* and win-*). The PyPI tables (`pypi-dependencies`, `pypi-options`, a
 * pyproject's `[project]` lists and `[dependency-groups]`) are read by pixi-pypi.ts. A pyproject's
 * `requires-python` becomes a `python` spec when no feature names python, as pixi does.
 */
export function parsePixiManifest(filename: string, content: string): PixiManifest {
  if (lastParsed && lastParsed.filename === filename && lastParsed.content === content) return lastParsed.manifest;
  const manifest = readManifest(filename, content);
  lastParsed = { filename, content, manifest };
  return manifest;
}

function readManifest(filename: string, content: string): PixiManifest {
  const fail = (message: string) =>
    new InputFileError('CR_ERR_INPUT_MANIFEST', filename, `Cannot read pixi manifest "${filename}": ${message}`);
  if (content.length > MANIFEST_LIMITS.bytes) {
    throw fail(`it has ${content.length} characters, more than the ${MANIFEST_LIMITS.bytes} a manifest may have (the limit on bytes)`);
  }
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
  const bound = (count: number, limit: keyof typeof MANIFEST_LIMITS, where: string): void => {
    if (count > MANIFEST_LIMITS[limit])
      throw fail(`${where} has ${count} entries, more than the ${MANIFEST_LIMITS[limit]} a manifest may have (the limit on ${limit})`);
  };

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
    const channels = (table.channels === undefined ? [] : Array.isArray(table.channels) ? table.channels : [null]).map(
      (c: unknown, i: number) => {
        if (typeof c === 'string') return { channel: c, priority: 0 };
        if (isTable(c) && typeof c.channel === 'string')
          return { channel: c.channel, priority: typeof c.priority === 'number' ? c.priority : 0 };
        throw fail(`${where}channels[${i}] must be a channel name or { channel, priority }`);
      },
    );
    const specs = dependencySpecs(table.dependencies, `${where}dependencies`, fail);
    const targetSpecs = new Map<string, InputSpec[]>();
    const targetPypi = new Map<string, PypiInputRequirement[]>();
    const pypiIndexes: string[] = [];
    if (table.target !== undefined) {
      if (!isTable(table.target)) throw fail(`${where}target must be a table`);
      bound(Object.keys(table.target).length, 'targets', `${where}target`);
      for (const [platform, target] of Object.entries(table.target)) {
        if (!isTable(target)) throw fail(`${where}target.${platform} must be a table`);
        if (
          !FAMILIES.includes(platform) &&
          (!isKnownSubdir(platform) || platform === 'noarch') &&
          !named.has(platform) &&
          !platform.includes('*')
        ) {
          throw fail(
            `${where}target.${platform}: "${platform}" is neither a platform nor one of ${FAMILIES.join(', ')} (nor a name in workspace.platforms)`,
          );
        }
        const list = dependencySpecs(target.dependencies, `${where}target.${platform}.dependencies`, fail);
        if (list.length > 0) targetSpecs.set(platform, list);
        const pypiList = pypiDependencies(
          target['pypi-dependencies'],
          `${where}target.${platform}.pypi-dependencies`,
          filename,
          fail,
          warnings,
          pypiIndexes,
        );
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
      pypiOptions:
        pypiIndexes.length > 0
          ? { findLinks: [], ...options, extraIndexUrls: [...pypiIndexes, ...(options?.extraIndexUrls ?? [])] }
          : options,
    };
  };

  const workspacePlatforms = workspacePlatformList(workspace.platforms, `${prefix}workspace.platforms`, fail);
  bound(workspacePlatforms.length, 'platforms', `${prefix}workspace.platforms`);
  const named = new Set(workspacePlatforms.map((p) => p.name));
  /** The workspace platforms a `platforms` list names: by name, else (a bare subdir) every one of that subdir. */
  const selectPlatforms = (names: readonly string[]): Set<WorkspacePlatform> => {
    const chosen = new Set<WorkspacePlatform>();
    for (const name of names) {
      const byName = workspacePlatforms.filter((p) => p.name === name);
      for (const p of byName.length > 0 ? byName : workspacePlatforms.filter((w) => w.subdir === name)) chosen.add(p);
    }
    return chosen;
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
    bound(Object.keys(root.feature).length, 'features', `${prefix}feature`);
    for (const [name, table] of Object.entries(root.feature)) {
      if (!isTable(table)) throw fail(`${prefix}feature.${name} must be a table`);
      features.set(name, feature(name, table, `${prefix}feature.${name}.`));
    }
  }

  if (isPyproject) addPyprojectFeatures(doc, defaultFeature, features, filename, fail);
  const workspacePypiOptions = pypiOptions(workspace['pypi-options'], `${prefix}workspace.pypi-options`, fail, warnings, filename);
  const definitions = new Map<string, { features: string[]; noDefault: boolean; platforms?: string[] }>([
    ['default', { features: [], noDefault: false }],
  ]);
  if (root.environments !== undefined) {
    if (!isTable(root.environments)) throw fail(`${prefix}environments must be a table`);
    bound(Object.keys(root.environments).length, 'environments', `${prefix}environments`);
    for (const [name, value] of Object.entries(root.environments)) {
      const where = `${prefix}environments.${name}`;
      if (Array.isArray(value)) definitions.set(name, { features: stringList(value, where), noDefault: false });
      else if (isTable(value)) {
        definitions.set(name, {
          features: stringList(value.features, `${where}.features`),
          noDefault: value['no-default-feature'] === true,
          ...(value.platforms !== undefined ? { platforms: stringList(value.platforms, `${where}.platforms`) } : {}),
        });
      } else throw fail(`${where} must be a list of features or { features = [...] }`);
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
    let selected = workspacePlatforms;
    const narrow = (names: readonly string[]) => {
      const allowed = selectPlatforms(names);
      selected = selected.filter((p) => allowed.has(p));
    };
    for (const f of chosen) if (f.platforms) narrow(f.platforms);
    if (definition.platforms) narrow(definition.platforms);
    // One solve per subdir: two named platforms of one subdir in one environment cannot both be answered.
    const bySubdir = new Map<string, WorkspacePlatform>();
    for (const p of selected) {
      const other = bySubdir.get(p.subdir);
      if (other)
        throw fail(
          `environment "${name}" has two platforms for ${p.subdir} ("${other.name}" and "${p.name}"); conda-resolve solves one platform per subdir in an environment: narrow it with the environment's or a feature's platforms`,
        );
      bySubdir.set(p.subdir, p);
    }
    const platforms = selected.map((p) => p.subdir);
    // Default feature first: the order a reader of the manifest expects.
    const ordered = definition.noDefault ? chosen : [defaultFeature, ...chosen.slice(0, -1)];
    const base = ordered.flatMap((f) => f.specs);
    const platformSpecs = new Map<string, InputSpec[]>();
    const virtualPackages = new Map<string, string[]>();
    // A named feature's requirement overrides the default feature's.
    const system = Object.assign({}, ...ordered.map((f) => f.system)) as Table;
    for (const entry of selected) {
      const platform = entry.subdir;
      if (ordered.some((f) => [...f.targetSpecs.keys()].some((selector) => selectorRank(selector, entry) !== undefined))) {
        platformSpecs.set(
          platform,
          ordered.flatMap((f) => featureSpecsOn(f, entry)),
        );
      }
      // The platform's own virtual packages win over system-requirements of the same name.
      const own = new Set(entry.virtualPackages.map((v) => v.split('=')[0]));
      const entries = [...systemRequirements(system, platform, fail).filter((v) => !own.has(v.split('=')[0])), ...entry.virtualPackages];
      if (entries.length > 0) virtualPackages.set(platform, entries);
    }
    const pypi = environmentPypi(ordered, selected);
    environments.set(name, {
      name,
      ...(pypi.pypi.length > 0 ? { pypi: pypi.pypi } : {}),
      ...(pypi.platformPypi.size > 0 ? { platformPypi: pypi.platformPypi } : {}),
      ...optionsField(
        mergePypiOptions(
          workspacePypiOptions,
          ordered.map((f) => f.pypiOptions),
          fail,
          name,
        ),
      ),
      channels,
      platforms,
      specs: base,
      platformSpecs,
      virtualPackages,
      channelPriority:
        chosen.find((f) => f.channelPriority !== undefined)?.channelPriority ??
        text(workspace['channel-priority'], `${prefix}workspace.channel-priority`),
      excludeNewer: text(workspace['exclude-newer'], `${prefix}workspace.exclude-newer`),
      platformNames: new Map(selected.filter((p) => p.name !== p.subdir).map((p) => [p.subdir, p.name])),
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
function addPyprojectFeatures(
  doc: Table,
  defaultFeature: Feature,
  features: Map<string, Feature>,
  filename: string,
  fail: (m: string) => Error,
): void {
  const condaNames = new Set(defaultFeature.specs.map((s) => normalizePypiName(specName(s.spec))));
  for (const [name, list] of pyprojectFeatures(doc, condaNames, filename, fail)) {
    if (name === 'default') {
      defaultFeature.pypi.push(...list);
      continue;
    }
    const held = features.get(name);
    if (held) held.pypi.push(...list);
    else
      features.set(name, {
        name,
        channels: [],
        platforms: undefined,
        specs: [],
        targetSpecs: new Map(),
        system: {},
        pypi: [...list],
        targetPypi: new Map(),
        pypiOptions: undefined,
      });
  }
}

/** An environment's PyPI requirements, and the whole list of each platform where a target changes it. */
function environmentPypi(
  ordered: readonly Feature[],
  platforms: readonly WorkspacePlatform[],
): { pypi: PypiInputRequirement[]; platformPypi: Map<string, PypiInputRequirement[]> } {
  const pypi = ordered.flatMap((f) => f.pypi);
  const platformPypi = new Map<string, PypiInputRequirement[]>();
  for (const platform of platforms) {
    if (!ordered.some((f) => [...f.targetPypi.keys()].some((selector) => selectorRank(selector, platform) !== undefined))) continue;
    platformPypi.set(
      platform.subdir,
      ordered.flatMap((f) => featurePypiOn(f, platform)),
    );
  }
  return { pypi, platformPypi };
}

/** A feature's PyPI requirements on a platform: a target's requirement for a name replaces less specific ones. */
function featurePypiOn(feature: Feature, platform: WorkspacePlatform): PypiInputRequirement[] {
  const byName = new Map<string, { item: PypiInputRequirement; rank: number }>();
  const put = (item: PypiInputRequirement, rank: number) => {
    const name = normalizePypiName(/^\s*([A-Za-z0-9._-]+)/.exec(item.requirement)?.[1] ?? item.requirement);
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

/** One entry of `workspace.platforms`: its name, its subdir, and the virtual packages it declares. */
interface WorkspacePlatform {
  readonly name: string;
  readonly subdir: string;
  /** `__name=version[=build]` entries. */
  readonly virtualPackages: readonly string[];
}

/**
 * pixi's friendly keys of a platform table, in the order its synthesised names list them, with the
 * virtual package each stands for (pixi: crates/pixi_manifest/src/toml/platform.rs).
 */
const FRIENDLY_KEYS: readonly (readonly [key: string, virtual: string, alias?: string])[] = [
  ['cuda', '__cuda'],
  ['archspec', '__archspec'],
  ['glibc', '__glibc'],
  ['linux', '__linux'],
  ['macos', '__osx', 'osx'],
  ['windows', '__win'],
];

/**
 * Virtual packages pixi assumes for a subdir; a table declaring one of these values leaves it out
 * of the synthesised name (pixi's `subdir_default_virtual_packages`).
 */
function subdirDefault(subdir: string, key: string): string | undefined {
  const os = subdir.split('-')[0];
  if (key === 'glibc' && os === 'linux') return '2.28';
  if (key === 'linux' && os === 'linux') return '4.18';
  if (key === 'macos' && os === 'osx') return subdir === 'osx-arm64' ? '11.0' : '10.15';
  return undefined;
}

/** `workspace.platforms`: subdir strings, or tables `{ name?, platform?, <virtual package keys> }`. */
function workspacePlatformList(value: unknown, where: string, fail: (m: string) => Error): WorkspacePlatform[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail(`${where} must be a list of platforms (subdir strings or { platform = "...", ... } tables)`);
  const list = value.map((entry: unknown, i: number): WorkspacePlatform => {
    const at = `${where}[${i}]`;
    if (typeof entry === 'string') return { name: entry, subdir: entry, virtualPackages: [] };
    if (!isTable(entry)) throw fail(`${at} must be a subdir string or a { platform = "...", ... } table`);
    const name = entry.name;
    const platform = entry.platform;
    if (name !== undefined && (typeof name !== 'string' || !/^[A-Za-z0-9-]+$/.test(name)))
      throw fail(`${at}.name must be a name of letters, digits and "-"`);
    if (platform !== undefined && typeof platform !== 'string') throw fail(`${at}.platform must be a subdir string`);
    const subdir = platform ?? name;
    if (subdir === undefined) throw fail(`${at} must set "platform" (its subdir) or a "name" that is a subdir`);
    if (!isKnownSubdir(subdir) || subdir === 'noarch')
      throw fail(`${at}: "${subdir}" is not a conda subdir${platform === undefined ? '; set "platform" when the name is not one' : ''}`);
    const versionOf = (key: string, v: unknown): string => {
      if (typeof v === 'string' && v.trim() !== '' && !/[\s=]/.test(v.trim())) return v.trim();
      throw fail(`${at}.${key} must be a version string`);
    };
    const virtualPackages: string[] = [];
    const nameParts: string[] = [subdir];
    for (const [key, virtual, alias] of FRIENDLY_KEYS) {
      if (alias !== undefined && entry[alias] !== undefined && entry[key] !== undefined)
        throw fail(`${at}: "${alias}" is another name for "${key}"; set only one`);
      const raw = entry[key] ?? (alias !== undefined ? entry[alias] : undefined);
      if (raw === undefined) continue;
      let shown: string;
      if (key === 'cuda' && isTable(raw)) {
        if (raw.driver === undefined) throw fail(`${at}.cuda.arch needs cuda.driver (the CUDA driver version)`);
        shown = versionOf('cuda.driver', raw.driver);
        virtualPackages.push(`__cuda=${shown}`);
        if (raw.arch !== undefined) virtualPackages.push(`__cuda_arch=${versionOf('cuda.arch', raw.arch)}`);
      } else if (key === 'archspec') {
        shown = versionOf(key, raw);
        virtualPackages.push(`__archspec=1=${shown}`);
      } else {
        shown = versionOf(key, raw);
        virtualPackages.push(`${virtual}=${shown}`);
      }
      if (subdirDefault(subdir, key) !== shown) nameParts.push(`${key}-${nameSegment(shown)}`);
    }
    const known = new Set(['name', 'platform', ...FRIENDLY_KEYS.flatMap(([key, , alias]) => (alias ? [key, alias] : [key]))]);
    for (const key of Object.keys(entry).sort()) {
      if (known.has(key)) continue;
      if (!key.startsWith('__'))
        throw fail(
          `${at}.${key} is not a platform field (name, platform, ${FRIENDLY_KEYS.map(([k]) => k).join(', ')}, or a "__name" virtual package)`,
        );
      const raw = entry[key];
      // `version[=build]`, as pixi reads a raw virtual package.
      if (typeof raw !== 'string' || !/^[^\s=]+(=[^\s=]+)?$/.test(raw.trim()))
        throw fail(`${at}.${key} must be "version" or "version=build"`);
      const text = raw.trim();
      virtualPackages.push(`${key}=${text}`);
      nameParts.push(`${nameSegment(key.replace(/^_+/, ''))}-${nameSegment(text)}`);
    }
    return { name: name ?? nameParts.join('-'), subdir, virtualPackages };
  });
  const seen = new Set<string>();
  for (const p of list) {
    if (seen.has(p.name)) throw fail(`${where} names the platform "${p.name}" twice`);
    seen.add(p.name);
  }
  return list;
}

/** A value as a part of a synthesised platform name: runs of other characters become one "-". */
function nameSegment(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

const FAMILIES = ['unix', 'linux', 'osx', 'win', 'emscripten', 'wasi'];

/**
 * How closely a `[target.<selector>]` fits a platform (pixi: the platform's name or subdir, a `*`
 * pattern over its name, then its family, then `unix`), or undefined when it does not apply.
 */
function selectorRank(selector: string, platform: WorkspacePlatform): number | undefined {
  if (selector === platform.name || selector === platform.subdir) return 3;
  if (selector.includes('*') && wildcard(selector).test(platform.name)) return 2.5;
  const family = platform.subdir.split('-')[0]!;
  if (selector === family) return 2;
  if (selector === 'unix' && (family === 'linux' || family === 'osx')) return 1;
  return undefined;
}

/** A feature's specs on a platform: a target's spec for a name replaces less specific ones. */
function featureSpecsOn(feature: Feature, platform: WorkspacePlatform): InputSpec[] {
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

/** A `*` pattern matched in full, case-sensitive (`*` is its only metacharacter). */
function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
      .join('.*')}$`,
  );
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
