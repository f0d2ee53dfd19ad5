/**
 * The PyPI part of a pixi manifest (pixi's manifest reference, "pypi-dependencies" and "The
 * pypi-options table"; "pyproject.toml in pixi" for the `[project]` tables): `pypi-dependencies`,
 * `pypi-options` merged as pixi merges them, a pyproject's `[project]` lists and PEP 735
 * `[dependency-groups]` as features, and `conda-pypi-map` inline tables. Read from the parsed
 * document beside pixi-manifest.ts, which gives each environment's features.
 */
import { InputFileError } from '../errors.js';
import { resolveLocal } from './pip-section.js';
import { normalizePypiName as normalizeName } from '../../vocabulary/pypi/name.js';
import type { CondaPypiMapOverrides, PypiIndexOptions, PypiInputRequirement } from '../pypi/request.js';

type Table = Record<string, unknown>;
type Fail = (message: string) => Error;

export interface FeatureOptions {
  readonly indexUrl?: string;
  readonly extraIndexUrls: string[];
  readonly findLinks: string[];
  readonly indexStrategy?: string;
  readonly prerelease?: string;
}

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * `name = ...` entries of one `pypi-dependencies` table as PEP 508 lines: a string (`"*"` or PEP 440
 * specifiers), or a table with `version`, `extras`, `index` (an index URL for that name), `url` (a
 * wheel: `name @ url`); `git` and `path` need a build and are refused, except a pyproject's own
 * project (`path = "."`), whose `[project]` dependencies are read instead.
 */
export function pypiDependencies(
  value: unknown,
  where: string,
  filename: string,
  fail: Fail,
  warnings: string[],
  indexes: string[],
): PypiInputRequirement[] {
  if (value === undefined) return [];
  if (!isTable(value)) throw fail(`${where} must be a table`);
  const out: PypiInputRequirement[] = [];
  for (const [name, spec] of Object.entries(value)) {
    const at = `${filename}, ${where}.${name}`;
    const add = (requirement: string) => out.push({ requirement, at, file: filename });
    if (typeof spec === 'string') {
      add(versioned(name, [], spec));
      continue;
    }
    if (!isTable(spec)) throw fail(`${where}.${name} must be a version string or a table`);
    const extras =
      spec.extras === undefined
        ? []
        : Array.isArray(spec.extras) && spec.extras.every((e) => typeof e === 'string')
          ? (spec.extras as string[])
          : null;
    if (extras === null) throw fail(`${where}.${name}.extras must be a list of strings`);
    if (spec.path !== undefined) {
      if (typeof spec.path === 'string' && /^\.\/?$/.test(spec.path.trim())) {
        warnings.push(`${at}: the project itself (path = "${spec.path}") is not resolved; its [project] dependencies are`);
        continue;
      }
      throw buildError(filename, at, `path = ${JSON.stringify(spec.path)}`, 'a local project is built');
    }
    if (spec.git !== undefined) throw buildError(filename, at, `git = ${JSON.stringify(spec.git)}`, 'a git checkout is built');
    if (spec.url !== undefined) {
      if (typeof spec.url !== 'string') throw fail(`${where}.${name}.url must be a string`);
      if (!/\.whl$/i.test(spec.url.split(/[?#]/)[0]!))
        throw buildError(filename, at, `url = "${spec.url}"`, 'a source archive is built (only wheels are installed without a build)');
      add(`${name}${extras.length > 0 ? `[${extras.join(',')}]` : ''} @ ${spec.url}`);
      continue;
    }
    const version = spec.version === undefined ? '*' : spec.version;
    if (typeof version !== 'string') throw fail(`${where}.${name}.version must be a string`);
    if (spec.index !== undefined && typeof spec.index !== 'string') throw fail(`${where}.${name}.index must be a URL string`);
    if (spec.index !== undefined) {
      // pixi's `index` pins one name to one index; the solve has one index list per environment, so
      // the index joins it as an extra index (searched first, as pixi's strict index priority does).
      indexes.push(spec.index);
      warnings.push(`${at}: index ${spec.index} is searched for every PyPI name of the environment, not for ${name} alone`);
    }
    add(versioned(name, extras, version));
  }
  return out;
}

/** `name[extras] specifiers`; pixi's `*` is any version. A bare version (`1.2`) is pixi's `==1.2`. */
function versioned(name: string, extras: readonly string[], version: string): string {
  const v = version.trim();
  const head = `${name}${extras.length > 0 ? `[${extras.join(',')}]` : ''}`;
  if (v === '' || v === '*') return head;
  return /^[0-9]/.test(v) ? `${head}==${v}` : `${head}${v}`;
}

/** One `pypi-options` table. */
export function pypiOptions(value: unknown, where: string, fail: Fail, warnings: string[], filename: string): FeatureOptions | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) throw fail(`${where} must be a table`);
  const str = (key: string): string | undefined => {
    const v = value[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw fail(`${where}.${key} must be a string`);
    return v;
  };
  const extra = value['extra-index-urls'];
  if (extra !== undefined && (!Array.isArray(extra) || !extra.every((u) => typeof u === 'string')))
    throw fail(`${where}.extra-index-urls must be a list of URLs`);
  const links = value['find-links'];
  if (links !== undefined && !Array.isArray(links)) throw fail(`${where}.find-links must be a list of { path } or { url }`);
  const findLinks = ((links ?? []) as unknown[]).map((l, i) => {
    // pixi: relative to the workspace (the manifest's folder).
    if (isTable(l) && typeof l.path === 'string') return resolveLocal(l.path, filename);
    if (isTable(l) && typeof l.url === 'string') return l.url;
    throw fail(`${where}.find-links[${i}] must be { path = "..." } or { url = "..." }`);
  });
  if (value['no-binary'] !== undefined && value['no-binary'] !== false) {
    warnings.push(`${filename}: ${where}.no-binary was ignored: a resolve chooses wheels only, and builds nothing`);
  }
  // `no-build`: nothing is built here whatever it says; `no-build-isolation` and
  // `skip-wheel-filename-check` concern installing.
  const indexUrl = str('index-url');
  const indexStrategy = str('index-strategy');
  const prerelease = str('prerelease-mode');
  return {
    ...(indexUrl !== undefined ? { indexUrl } : {}),
    extraIndexUrls: (extra ?? []) as string[],
    findLinks,
    ...(indexStrategy !== undefined ? { indexStrategy } : {}),
    ...(prerelease !== undefined ? { prerelease } : {}),
  };
}

/**
 * An environment's options: the workspace's, then its features' over them (pixi: single values
 * of two features must agree; lists add up).
 */
export function mergePypiOptions(
  workspace: FeatureOptions | undefined,
  features: readonly (FeatureOptions | undefined)[],
  fail: Fail,
  environment: string,
): PypiIndexOptions | undefined {
  const all = [workspace, ...features].filter((o): o is FeatureOptions => o !== undefined);
  if (all.length === 0) return undefined;
  const single = (key: 'indexUrl' | 'indexStrategy' | 'prerelease'): string | undefined => {
    const fromFeatures = [...new Set(features.flatMap((o) => (o?.[key] !== undefined ? [o[key]!] : [])))];
    if (fromFeatures.length > 1)
      throw fail(`environment "${environment}" gets two values of pypi-options ${key} from its features (${fromFeatures.join(', ')})`);
    return fromFeatures[0] ?? workspace?.[key];
  };
  const indexUrl = single('indexUrl');
  const indexStrategy = single('indexStrategy');
  const prerelease = single('prerelease');
  const extraIndexUrls = [...new Set(all.flatMap((o) => o.extraIndexUrls))];
  const findLinks = [...new Set(all.flatMap((o) => o.findLinks))];
  return {
    ...(indexUrl !== undefined ? { indexUrl } : {}),
    ...(extraIndexUrls.length > 0 ? { extraIndexUrls } : {}),
    ...(findLinks.length > 0 ? { findLinks } : {}),
    ...(indexStrategy !== undefined ? { indexStrategy } : {}),
    ...(prerelease !== undefined ? { prerelease } : {}),
  };
}

/**
 * A pyproject's `[project]` PyPI lists as features: `default` (project.dependencies, without names
 * the conda dependencies have, as pixi prefers the conda one), then one feature per
 * optional-dependency extra and dependency group (`project[extra]` and `{include-group}` expanded).
 */
export function pyprojectFeatures(
  doc: Table,
  condaNames: ReadonlySet<string>,
  filename: string,
  fail: Fail,
): Map<string, PypiInputRequirement[]> {
  const out = new Map<string, PypiInputRequirement[]>();
  const project = isTable(doc.project) ? doc.project : undefined;
  const projectName = typeof project?.name === 'string' ? normalizeName(project.name) : undefined;
  const list = (value: unknown, where: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw fail(`${where} must be a list of requirement strings`);
    return value as string[];
  };
  const line = (requirement: string, where: string): PypiInputRequirement => ({ requirement, at: `${filename}, ${where}`, file: filename });
  const deps = list(project?.dependencies, 'project.dependencies').filter((r) => !condaNames.has(normalizeName(requirementName(r))));
  if (deps.length > 0)
    out.set(
      'default',
      deps.map((r) => line(r, 'project.dependencies')),
    );

  const optional = project?.['optional-dependencies'];
  if (optional !== undefined && !isTable(optional)) throw fail('project.optional-dependencies must be a table');
  const extras = new Map(
    Object.entries(optional ?? {}).map(([name, v]) => [
      normalizeName(name),
      { name, items: list(v, `project.optional-dependencies.${name}`) },
    ]),
  );
  const expandExtra = (name: string, seen: Set<string>): PypiInputRequirement[] => {
    const extra = extras.get(normalizeName(name));
    if (!extra || seen.has(normalizeName(name))) return [];
    seen.add(normalizeName(name));
    return extra.items.flatMap((r) => {
      // `my_project[test]`: the project's own extras, not a PyPI package.
      const self = projectName !== undefined && normalizeName(requirementName(r)) === projectName;
      if (!self) return [line(r, `project.optional-dependencies.${extra.name}`)];
      return (/\[([^\]]*)\]/.exec(r)?.[1] ?? '')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
        .flatMap((e) => expandExtra(e, seen));
    });
  };
  for (const { name } of extras.values()) out.set(name, expandExtra(name, new Set()));

  const groups = doc['dependency-groups'];
  if (groups !== undefined && !isTable(groups)) throw fail('dependency-groups must be a table');
  const byGroup = new Map(Object.entries(groups ?? {}).map(([name, v]) => [normalizeName(name), { name, items: v }]));
  const expandGroup = (name: string, chain: readonly string[]): PypiInputRequirement[] => {
    const group = byGroup.get(normalizeName(name));
    if (!group) throw fail(`dependency-groups: group "${name}" is included but not defined`);
    if (chain.includes(normalizeName(name))) throw fail(`dependency-groups: group "${name}" includes itself`);
    if (!Array.isArray(group.items)) throw fail(`dependency-groups.${group.name} must be a list`);
    return group.items.flatMap((item: unknown) => {
      if (typeof item === 'string') return [line(item, `dependency-groups.${group.name}`)];
      if (isTable(item) && typeof item['include-group'] === 'string')
        return expandGroup(item['include-group'], [...chain, normalizeName(name)]);
      throw fail(`dependency-groups.${group.name}: an item must be a requirement string or { include-group = "..." }`);
    });
  };
  for (const { name } of byGroup.values()) out.set(name, expandGroup(name, []));
  return out;
}

function requirementName(requirement: string): string {
  return /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(requirement)?.[1] ?? requirement;
}

/** pixi's `conda-pypi-map`: inline tables read; locations (files, URLs) named in a warning. */
export function condaPypiMap(
  value: unknown,
  where: string,
  filename: string,
  fail: Fail,
  warnings: string[],
): CondaPypiMapOverrides | undefined {
  if (value === undefined) return undefined;
  if (value === false) return { '*': {} };
  if (!isTable(value)) throw fail(`${where} must be a table or false`);
  const out: Record<string, Record<string, string | null>> = {};
  for (const [channel, entry] of Object.entries(value)) {
    if (entry === false) {
      out[channel] = {};
      continue;
    }
    if (typeof entry === 'string' || (isTable(entry) && entry.location !== undefined)) {
      warnings.push(`${filename}: ${where}.${channel} names a mapping location, which is not read (use --pypi-mapping FILE)`);
      continue;
    }
    if (!isTable(entry)) throw fail(`${where}.${channel} must be a location, a table or false`);
    const mapping = isTable(entry.mapping) ? entry.mapping : entry;
    const names: Record<string, string | null> = {};
    for (const [conda, pypi] of Object.entries(mapping)) {
      if (conda === 'mapping-mode' || conda === 'same-name-heuristic') continue;
      if (typeof pypi === 'string') names[conda] = pypi;
      else if (Array.isArray(pypi) && typeof pypi[0] === 'string') names[conda] = pypi[0];
      else if (pypi === false || pypi === null || (Array.isArray(pypi) && pypi.length === 0)) names[conda] = null;
      else throw fail(`${where}.${channel}.${conda} must be a PyPI name, a list of them, or false`);
    }
    out[channel] = names;
  }
  return out;
}

function buildError(filename: string, at: string, what: string, why: string): InputFileError {
  return new InputFileError(
    'CR_ERR_INPUT_PIP_NEEDS_BUILD',
    filename,
    `Cannot resolve PyPI dependency ${at} (${what}): ${why}, which a resolve does not do (give a version from an index, or a wheel url)`,
  );
}
