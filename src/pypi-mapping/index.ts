/**
 * Which PyPI distributions a conda package provides (conda-forge's `requests` is PyPI's
 * `requests`, `pytorch` is `torch`), per channel. The default for conda-forge is prefix-dev/parselmouth's
 * published mapping, fetched at run time (remote.ts); a user's mapping file replaces it for a channel.
 *
 * A mapping file is JSON: conda name -> PyPI name, a list of PyPI names, or null (provides none).
 * That is both pixi's `conda-pypi-map` format (name -> name) and parselmouth's compressed one
 * (name -> list or null).
 */
import { CondaResolveError } from '../../vocabulary/errors.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';

export const PYPI_MAPPING_ERROR_CODES = {
  CR_ERR_PYPI_MAPPING_FILE: 'A conda-to-PyPI mapping file cannot be read or is not a JSON object of conda name -> PyPI name(s) or null.',
} as const;

type PypiMappingErrorCodes = typeof PYPI_MAPPING_ERROR_CODES;
declare module '../../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends PypiMappingErrorCodes {}
}

export class PypiMappingError extends CondaResolveError {
  readonly file: string;
  constructor(file: string, message: string) {
    super('CR_ERR_PYPI_MAPPING_FILE', message);
    this.file = file;
  }
}

/** What the mapping says about one conda package. */
export type MappingAnswer =
  /** The PyPI names it provides (PEP 503 normalised), at least one. */
  | { readonly kind: 'pypi'; readonly names: readonly string[] }
  /** The channel's mapping knows the package provides no PyPI distribution, or does not list it. */
  | { readonly kind: 'none' }
  /** No mapping for the package's channel. */
  | { readonly kind: 'no-mapping' }
  /** The channel's default mapping could not be had (offline without a cached copy, a network error). */
  | { readonly kind: 'unavailable'; readonly reason: string };

/** Where a channel's mapping came from, for reports. */
export interface MappingSource {
  readonly channel: string;
  readonly source: string;
  readonly date?: string;
  readonly packages: number;
}

export interface PypiMapping {
  lookup(channel: string, condaName: string): MappingAnswer;
  readonly sources: readonly MappingSource[];
}

/** PEP 503. */
export function normalizeName(name: string): string {
  return normalizePypiName(name);
}

export type ChannelTable = ReadonlyMap<string, readonly string[]>;

/** Reads a mapping file's text (pixi's or parselmouth's format); `file` names it in errors. */
export function parseMappingFile(file: string, text: string): ChannelTable {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new PypiMappingError(file, `Cannot read PyPI mapping "${file}": not JSON (${(error as Error).message})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new PypiMappingError(file, `Cannot read PyPI mapping "${file}": expected a JSON object of conda name -> PyPI name(s)`);
  }
  const table = new Map<string, readonly string[]>();
  for (const [name, value] of Object.entries(doc as Record<string, unknown>)) {
    if (value === null) table.set(name, []);
    else if (typeof value === 'string') table.set(name, [normalizeName(value)]);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) table.set(name, (value as string[]).map(normalizeName));
    else
      throw new PypiMappingError(
        file,
        `Cannot read PyPI mapping "${file}": the value of "${name}" must be a PyPI name, a list of names or null`,
      );
  }
  return table;
}

/** A channel's mapping from a user's file, replacing the default for that channel. */
export interface UserMapping {
  readonly channel: string;
  readonly file: string;
  readonly table: ChannelTable;
}

/** The default conda-forge mapping as loaded (remote.ts), or why there is none. */
export type DefaultMapping =
  | { readonly table: ChannelTable; readonly source: string; readonly date?: string }
  | { readonly unavailable: string };

/**
 * The mapping to use: conda-forge's default when given (a loaded table, or the reason it could
 * not be had), then each user's file for its channel. Channels are compared by the name users give
 * them (`conda-forge`, or a URL).
 */
export function pypiMapping(
  options: { readonly user?: readonly UserMapping[]; readonly condaForge?: DefaultMapping | undefined } = {},
): PypiMapping {
  const tables = new Map<string, ChannelTable>();
  const sources: MappingSource[] = [];
  let unavailable: string | undefined;
  const given = options.condaForge;
  if (given && 'table' in given) {
    tables.set('conda-forge', given.table);
    sources.push({ channel: 'conda-forge', source: given.source, ...(given.date ? { date: given.date } : {}), packages: given.table.size });
  } else if (given) {
    unavailable = given.unavailable;
  }
  for (const user of options.user ?? []) {
    tables.set(channelKey(user.channel), user.table);
    const at = sources.findIndex((s) => s.channel === channelKey(user.channel));
    if (at >= 0) sources.splice(at, 1);
    sources.push({ channel: channelKey(user.channel), source: user.file, packages: user.table.size });
  }
  return {
    sources,
    lookup(channel, condaName) {
      const key = channelKey(channel);
      const table = tables.get(key);
      if (!table)
        return unavailable !== undefined && key === 'conda-forge' ? { kind: 'unavailable', reason: unavailable } : { kind: 'no-mapping' };
      const names = table.get(condaName);
      return names && names.length > 0 ? { kind: 'pypi', names } : { kind: 'none' };
    },
  };
}

/** Whether `channel` is conda-forge (by name or by its anaconda.org URL). */
export function isCondaForge(channel: string): boolean {
  return channelKey(channel) === 'conda-forge';
}

/** `https://conda.anaconda.org/conda-forge/` and `conda-forge` are the same channel. */
function channelKey(channel: string): string {
  const trimmed = channel.replace(/\/+$/, '');
  const match = /^https?:\/\/conda\.anaconda\.org\/([^/]+)$/.exec(trimmed);
  return match ? match[1]! : trimmed;
}
