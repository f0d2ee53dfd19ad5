/**
 * Which PyPI distributions a conda package provides (conda-forge's `requests` is PyPI's
 * `requests`, `pytorch` is `torch`), per channel. The default for conda-forge is data derived from
 * prefix-dev/parselmouth's published mapping (data/pypi-mapping/conda-forge.json, with its source,
 * commit and date inside); a user's mapping file adds to it or replaces it for a channel.
 *
 * A mapping file is JSON: conda name -> PyPI name, a list of PyPI names, or null (provides none).
 * That is both pixi's `conda-pypi-map` format (name -> name) and parselmouth's compressed one
 * (name -> list or null).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CondaResolveError } from '../../vocabulary/errors.js';

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
  | { readonly kind: 'no-mapping' };

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
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

type ChannelTable = ReadonlyMap<string, readonly string[]>;

interface BundledMapping {
  source: string;
  date: string;
  same: string[];
  renamed: Record<string, string[]>;
}

let bundled: ChannelTable | undefined;
let bundledSource: MappingSource | undefined;

/** The data folder at the package root, from src/pypi-mapping/, dist/src/pypi-mapping/ or a bundle. */
function dataFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'data', 'pypi-mapping', 'conda-forge.json');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new PypiMappingError('conda-forge.json', 'Cannot find the bundled conda-forge PyPI mapping (data/pypi-mapping/conda-forge.json) beside conda-resolve');
    dir = parent;
  }
}

function condaForge(): { table: ChannelTable; source: MappingSource } {
  if (!bundled) {
    const data = JSON.parse(readFileSync(dataFile(), 'utf8')) as BundledMapping;
    const table = new Map<string, readonly string[]>();
    for (const name of data.same) table.set(name, [normalizeName(name)]);
    for (const [name, names] of Object.entries(data.renamed)) table.set(name, names.map(normalizeName));
    bundled = table;
    bundledSource = { channel: 'conda-forge', source: data.source, date: data.date, packages: table.size };
  }
  return { table: bundled, source: bundledSource! };
}

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
    else throw new PypiMappingError(file, `Cannot read PyPI mapping "${file}": the value of "${name}" must be a PyPI name, a list of names or null`);
  }
  return table;
}

/** A channel's mapping from a user's file, replacing the default for that channel. */
export interface UserMapping {
  readonly channel: string;
  readonly file: string;
  readonly table: ChannelTable;
}

/**
 * The mapping to use: the bundled conda-forge default (unless `noDefault`), then each user's file
 * for its channel. Channels are compared by the name users give them (`conda-forge`, or a URL).
 */
export function pypiMapping(options: { readonly user?: readonly UserMapping[]; readonly noDefault?: boolean } = {}): PypiMapping {
  const tables = new Map<string, ChannelTable>();
  const sources: MappingSource[] = [];
  if (!options.noDefault) {
    const { table, source } = condaForge();
    tables.set('conda-forge', table);
    sources.push(source);
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
      const table = tables.get(channelKey(channel));
      if (!table) return { kind: 'no-mapping' };
      const names = table.get(condaName);
      return names && names.length > 0 ? { kind: 'pypi', names } : { kind: 'none' };
    },
  };
}

/** `https://conda.anaconda.org/conda-forge/` and `conda-forge` are the same channel. */
function channelKey(channel: string): string {
  const trimmed = channel.replace(/\/+$/, '');
  const match = /^https?:\/\/conda\.anaconda\.org\/([^/]+)$/.exec(trimmed);
  return match ? match[1]! : trimmed;
}
