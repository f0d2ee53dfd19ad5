/**
 * The PyPI part of a resolve request: what a user asks for (`--pypi SPEC`, `--index-url`, an
 * environment.yml `pip:` section, pixi's `[pypi-dependencies]`/`[pypi-options]`, the HTTP body) and
 * its validated form. Requirements are PEP 508 lines, parsed here once; markers stay on them and are
 * evaluated per platform and solved Python by the solve.
 */
import { parseRequirement, type PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { RESOLUTION_STRATEGIES, type ResolutionStrategy } from '../../vocabulary/pypi-record.js';
import { DEFAULT_INDEX_URL, type IndexStrategy } from '../../repodata/pypi/types.js';
import { InputFileError, UsageError } from '../errors.js';

/** uv's and pixi's pre-release modes; `if-necessary-or-explicit` is PEP 440's rule (pip's default). */
export type PrereleaseMode = 'disallow' | 'allow' | 'if-necessary-or-explicit';
export const PRERELEASE_MODES: readonly PrereleaseMode[] = ['disallow', 'allow', 'if-necessary-or-explicit'];
export const INDEX_STRATEGIES: readonly IndexStrategy[] = ['first-index', 'unsafe-first-match', 'unsafe-best-match'];

/** Where PyPI distributions come from and which versions count (pip's and uv's options). */
export interface PypiIndexOptions {
  /** The main index; default `https://pypi.org/simple/`. */
  readonly indexUrl?: string;
  readonly extraIndexUrls?: readonly string[];
  /** Local folders (or file:// URLs) of wheels. */
  readonly findLinks?: readonly string[];
  /** `first-index` (default), `unsafe-first-match` or `unsafe-best-match`. */
  readonly indexStrategy?: string;
  /** `if-necessary-or-explicit` (default, PEP 440), `allow` (pip's `--pre`) or `disallow`. */
  readonly prerelease?: string;
}

/**
 * conda name -> PyPI name (null: the package provides no PyPI distribution), per channel as pixi's
 * `conda-pypi-map` gives it (`*` for every channel). Merged over the shipped default.
 */
export type CondaPypiMapOverrides = Readonly<Record<string, Readonly<Record<string, string | null>>>>;

/** One PyPI requirement of an input, with where it was written. */
export interface PypiInputRequirement {
  readonly requirement: string;
  /** `environment.yml, line 12`: used to point at a bad requirement. */
  readonly at?: string;
  /** The file it came from (its name as given), so a bad one is an input-file error. */
  readonly file?: string;
}

/** The validated PyPI part of a request. */
export interface PreparedPypi {
  /** Root requirements, parsed, in input order, duplicates (by text) dropped. */
  readonly requirements: readonly PypiRequirement[];
  /** The whole root list of each platform where a manifest's targets change it. */
  readonly platformRequirements?: ReadonlyMap<string, readonly PypiRequirement[]>;
  readonly indexUrl: string;
  readonly extraIndexUrls: readonly string[];
  readonly findLinks: readonly string[];
  readonly indexStrategy: IndexStrategy;
  readonly prerelease: PrereleaseMode;
  readonly mappingOverrides: CondaPypiMapOverrides;
}

export function parseResolutionStrategy(text: string | undefined): ResolutionStrategy {
  const value = (text ?? 'highest').trim();
  if (!(RESOLUTION_STRATEGIES as readonly string[]).includes(value)) {
    throw new UsageError('CR_ERR_INPUT_OPTION', `Cannot use resolution "${value}": expected one of ${RESOLUTION_STRATEGIES.join(', ')}`);
  }
  return value as ResolutionStrategy;
}

function oneOf<T extends string>(what: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const v = value.trim();
  if (!(allowed as readonly string[]).includes(v))
    throw new UsageError('CR_ERR_INPUT_OPTION', `Cannot use ${what} "${v}": expected one of ${allowed.join(', ')}`);
  return v as T;
}

/** Parses one requirement; a bad one names where it was written. */
export function parsePypiInput(item: PypiInputRequirement): PypiRequirement {
  try {
    return parseRequirement(item.requirement.trim());
  } catch (error) {
    if (error instanceof CondaResolveError) {
      const message = `${item.at ? `${item.at}: ` : ''}Cannot parse PyPI requirement "${item.requirement.trim()}": ${error.message}`;
      throw item.file
        ? new InputFileError('CR_ERR_INPUT_SPEC', item.file, message, { cause: error })
        : new UsageError('CR_ERR_INPUT_SPEC', message, { cause: error });
    }
    throw error;
  }
}

/**
 * The PyPI part of a request, or undefined when it has no PyPI requirement. `options` are the
 * request's own (CLI, body), which win over the files' (`fileOptions`, in file order).
 */
export function preparePypi(
  inputs: readonly PypiInputRequirement[],
  platformInputs: ReadonlyMap<string, readonly PypiInputRequirement[]> | undefined,
  options: PypiIndexOptions,
  fileOptions: readonly PypiIndexOptions[],
  mappingOverrides: CondaPypiMapOverrides = {},
): PreparedPypi | undefined {
  const hasPlatform = platformInputs !== undefined && [...platformInputs.values()].some((list) => list.length > 0);
  if (inputs.length === 0 && !hasPlatform) return undefined;
  const parseAll = (list: readonly PypiInputRequirement[]): PypiRequirement[] => {
    const seen = new Map<string, PypiRequirement>();
    for (const item of list) {
      const text = item.requirement.trim();
      if (!seen.has(text)) seen.set(text, parsePypiInput(item));
    }
    return [...seen.values()];
  };
  for (const item of [...inputs, ...[...(platformInputs?.values() ?? [])].flat()]) {
    const requirement = parsePypiInput(item);
    if (requirement.url !== undefined) {
      throw new UsageError(
        'CR_ERR_INPUT_SPEC',
        `${item.at ? `${item.at}: ` : ''}Cannot resolve PyPI requirement "${item.requirement.trim()}": a direct URL needs no solve and is not supported yet (give a name and version from an index)`,
      );
    }
  }
  const merged: PypiIndexOptions = Object.assign({}, ...fileOptions, stripUndefined(options));
  const platformRequirements = hasPlatform
    ? new Map([...platformInputs!].map(([platform, list]) => [platform, parseAll(list)] as const))
    : undefined;
  return {
    requirements: parseAll(inputs),
    ...(platformRequirements ? { platformRequirements } : {}),
    indexUrl: (merged.indexUrl ?? DEFAULT_INDEX_URL).trim(),
    extraIndexUrls: [
      ...new Set([...fileOptions.flatMap((o) => o.extraIndexUrls ?? []), ...(options.extraIndexUrls ?? [])].map((u) => u.trim())),
    ],
    findLinks: [...new Set([...fileOptions.flatMap((o) => o.findLinks ?? []), ...(options.findLinks ?? [])].map((u) => u.trim()))],
    indexStrategy: oneOf('index strategy', merged.indexStrategy, INDEX_STRATEGIES, 'first-index'),
    prerelease: oneOf('pre-release mode', merged.prerelease, PRERELEASE_MODES, 'if-necessary-or-explicit'),
    mappingOverrides,
  };
}

/** The root PyPI requirements of one platform. */
export function pypiRequirementsOn(pypi: PreparedPypi, platform: string): readonly PypiRequirement[] {
  return pypi.platformRequirements?.get(platform) ?? pypi.requirements;
}

function stripUndefined(options: PypiIndexOptions): PypiIndexOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as PypiIndexOptions;
}
