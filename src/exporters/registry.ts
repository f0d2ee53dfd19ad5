/**
 * The exporter registry: every output format by name and alias, as conda's plugin manager keeps its
 * `conda_environment_exporters` (lookup, conflicts, filename detection), plus rendering with the
 * multi-platform and final-newline rules that `conda export` and conda-presto apply.
 *
 * Lookup is exact (no case folding of what the user typed); names and aliases are lower-cased and
 * trimmed when registered. There is no allowlist and no per-format code here: whatever is
 * registered, built-in or plugin, is looked up and rendered the same way.
 */
import { basename } from 'node:path';
import { escapeControlCharacters, hasControlCharacter } from '../../vocabulary/control-characters.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { fnmatch } from './fnmatch.js';
import { compareCodePoints } from './python-sort.js';
import {
  ExportError,
  type ExportContext,
  type ExportEnvironment,
  type Exporter,
  type ExporterCategory,
  type MultiPlatformExport,
  type SinglePlatformExport,
} from './types.js';

/** The plugin name under which the built-in exporters are registered. */
export const BUILTIN_PLUGIN = 'conda-resolve';

/** What a plugin may hand over: an `Exporter` whose descriptive members may be left out. */
export interface ExporterDefinition {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Defaults to the name. */
  readonly description?: string;
  /** Defaults to `environment`. */
  readonly category?: ExporterCategory;
  /** Defaults to the media type of the first default filename's extension (`mediaTypeFor`). */
  readonly mediaType?: string;
  readonly defaultFilenames?: readonly string[];
  readonly export?: SinglePlatformExport;
  readonly exportMultiplatform?: MultiPlatformExport;
}

export interface RegisteredExporter extends Exporter {
  /** The npm package that provided it (`conda-resolve` for the built-ins). */
  readonly plugin: string;
}

/** A name or alias asked for is not registered. Carries the sorted names and aliases. */
export class UnknownFormatError extends CondaResolveError {
  readonly format: string;
  /** Every registered name and alias, sorted. */
  readonly available: readonly string[];

  constructor(format: string, available: readonly string[]) {
    super('CR_ERR_FORMAT_UNKNOWN', `Unknown export format '${format}'. Available formats:${dashlist(available)}`);
    this.format = format;
    this.available = available;
  }
}

/** Two exporters claim the same name or alias (a start-up error: conda refuses to guess). */
export class DuplicateExporterError extends CondaResolveError {
  constructor(conflicts: ReadonlyMap<string, readonly string[]>) {
    const details = [...conflicts.entries()]
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([name, owners]) => `'${name}' name or alias used by plugins: ${[...owners].sort(compareCodePoints).join(', ')}`);
    super(
      'CR_ERR_FORMAT_CONFLICT',
      `Format name conflicts detected in environment exporters.\nMultiple plugins cannot use the same name or alias:${dashlist(details)}`,
    );
  }
}

/** A plugin handed over something that is not an exporter. */
export class InvalidExporterError extends CondaResolveError {
  constructor(message: string) {
    super('CR_ERR_EXPORT_INVALID_PLUGIN', message);
  }
}

/** No exporter's default filenames match the output file's name. */
export class ExporterNotDetectedError extends CondaResolveError {
  readonly filename: string;

  constructor(filename: string, exporters: readonly Exporter[]) {
    const files = exporters.flatMap((e) => e.defaultFilenames.map((f) => `${f.padEnd(20)} (format: ${e.name})`));
    const formats = exporters.map((e) => (e.aliases.length > 0 ? `${e.name.padEnd(20)} (aliases: ${e.aliases.join(', ')})` : e.name));
    super(
      'CR_ERR_FORMAT_NOT_DETECTED',
      `No environment exporter plugin found for filename '${filename}'.\n\n` +
        `Supported filenames:${dashlist(files)}\n\n` +
        `Available formats:${dashlist(formats)}\n\n` +
        'Use --format FORMAT to choose the export format explicitly, or rename your file to match a supported filename pattern.',
    );
    this.filename = filename;
  }
}

/** More than one exporter claims the output file's name. */
export class AmbiguousExporterError extends CondaResolveError {
  constructor(filename: string, names: readonly string[]) {
    super(
      'CR_ERR_FORMAT_AMBIGUOUS',
      `Multiple environment exporters found that can handle filename '${filename}':${dashlist(names)}\n\n` +
        "Please make sure that you don't have any conflicting exporter plugins installed.",
    );
  }
}

/** conda's `dashlist`: each item on its own line after `\n  - `. */
function dashlist(items: readonly string[]): string {
  return items.map((item) => `\n  - ${item}`).join('');
}

const CATEGORIES: readonly ExporterCategory[] = ['lockfile', 'environment'];

export class ExporterRegistry {
  readonly #exporters: RegisteredExporter[] = [];
  readonly #byName = new Map<string, RegisteredExporter>();

  /**
   * Adds an exporter. Throws `InvalidExporterError` for a malformed one and
   * `DuplicateExporterError` when its name or an alias is taken.
   */
  register(definition: ExporterDefinition, plugin: string = BUILTIN_PLUGIN): RegisteredExporter {
    const exporter = normalizeExporter(definition, plugin);
    const conflicts = new Map<string, string[]>();
    for (const name of [exporter.name, ...exporter.aliases]) {
      const owner = this.#byName.get(name);
      if (owner) conflicts.set(name, [`${owner.name} (${owner.plugin})`, `${exporter.name} (${plugin})`]);
    }
    if (conflicts.size > 0) throw new DuplicateExporterError(conflicts);
    for (const name of [exporter.name, ...exporter.aliases]) this.#byName.set(name, exporter);
    this.#exporters.push(exporter);
    this.#exporters.sort((a, b) => compareCodePoints(a.name, b.name));
    return exporter;
  }

  /** The exporter for a name or alias, exactly as given; `UnknownFormatError` otherwise. */
  get(nameOrAlias: string): RegisteredExporter {
    const exporter = this.#byName.get(nameOrAlias);
    if (!exporter) throw new UnknownFormatError(nameOrAlias, this.allNames());
    return exporter;
  }

  /** Like `get`, but `undefined` for an unknown name. */
  find(nameOrAlias: string): RegisteredExporter | undefined {
    return this.#byName.get(nameOrAlias);
  }

  has(nameOrAlias: string): boolean {
    return this.#byName.has(nameOrAlias);
  }

  /** Primary names, sorted. */
  names(): string[] {
    return this.#exporters.map((e) => e.name);
  }

  /** Names and aliases, sorted (what `--format` accepts; conda's error lists these). */
  allNames(): string[] {
    return [...this.#byName.keys()].sort(compareCodePoints);
  }

  /** The exporters, sorted by name. */
  list(): RegisteredExporter[] {
    return [...this.#exporters];
  }

  /** conda's `detect_environment_exporter`: the one exporter whose default filenames match the basename. */
  detect(filename: string): RegisteredExporter {
    const name = basename(filename);
    const matches = this.#exporters.filter((e) => e.defaultFilenames.some((pattern) => fnmatch(name, pattern)));
    if (matches.length === 0) throw new ExporterNotDetectedError(name, this.#exporters);
    if (matches.length > 1)
      throw new AmbiguousExporterError(
        name,
        matches.map((e) => e.name),
      );
    return matches[0];
  }

  /**
   * Renders environments (one per platform) in a format, a name or alias: a multi-platform exporter
   * gets them all at once, a single-platform one each on its own, the texts joined with a newline.
   * The document ends in exactly one newline (conda's `rstrip() + "\n"`). `UnknownFormatError` for
   * an unknown name, `ExportError` when there are no environments or the exporter fails.
   */
  render(format: string, environments: readonly ExportEnvironment[], context: ExportContext): string {
    return renderWith(this.get(format), environments, context);
  }
}

/**
 * The media type of an exporter's output, from the first default filename with a known
 * extension (conda-presto's `media_type_for`).
 */
export function mediaTypeFor(exporter: { readonly defaultFilenames?: readonly string[] }): string {
  for (const filename of exporter.defaultFilenames ?? []) {
    const lower = filename.toLowerCase();
    if (lower.endsWith('.yml') || lower.endsWith('.yaml') || lower.endsWith('.lock')) return 'application/yaml';
    if (lower.endsWith('.json')) return 'application/json';
    if (lower.endsWith('.toml')) return 'application/toml';
    if (lower.endsWith('.txt')) return 'text/plain; charset=utf-8';
  }
  return 'text/plain; charset=utf-8';
}

function normalizeExporter(definition: ExporterDefinition, plugin: string): RegisteredExporter {
  const where = `plugin ${plugin}`;
  if (typeof definition !== 'object' || definition === null) {
    throw new InvalidExporterError(`Cannot register an exporter from ${where}: expected an object, got ${describe(definition)}`);
  }
  if (typeof definition.name !== 'string' || definition.name.trim() === '') {
    throw new InvalidExporterError(`Cannot register an exporter from ${where}: "name" must be a non-empty string`);
  }
  const name = definition.name.toLowerCase().trim();
  const fail = (why: string): never => {
    throw new InvalidExporterError(`Cannot register exporter "${name}" from ${where}: ${why}`);
  };
  const aliases = definition.aliases ?? [];
  if (!Array.isArray(aliases) || aliases.some((a) => typeof a !== 'string' || a.trim() === '')) {
    fail('"aliases" must be a list of non-empty strings');
  }
  const defaultFilenames = definition.defaultFilenames ?? [];
  if (!Array.isArray(defaultFilenames) || defaultFilenames.some((f) => typeof f !== 'string' || f === '')) {
    fail('"defaultFilenames" must be a list of non-empty strings');
  }
  const single = definition.export;
  const multi = definition.exportMultiplatform;
  if (single !== undefined && typeof single !== 'function') fail('"export" must be a function');
  if (multi !== undefined && typeof multi !== 'function') fail('"exportMultiplatform" must be a function');
  if ((single === undefined) === (multi === undefined)) fail('exactly one of "export" and "exportMultiplatform" must be set');
  const category = definition.category ?? 'environment';
  if (!CATEGORIES.includes(category)) fail(`"category" must be "lockfile" or "environment", not ${describe(category)}`);
  if (definition.description !== undefined && typeof definition.description !== 'string') fail('"description" must be a string');
  if (definition.mediaType !== undefined && (typeof definition.mediaType !== 'string' || definition.mediaType === '')) {
    fail('"mediaType" must be a non-empty string');
  }
  const normalizedAliases = [...new Set(aliases.map((a) => a.toLowerCase().trim()))].filter((a) => a !== name);
  return Object.freeze({
    name,
    aliases: Object.freeze(normalizedAliases),
    description: definition.description ?? name,
    category,
    mediaType: definition.mediaType ?? mediaTypeFor({ defaultFilenames }),
    defaultFilenames: Object.freeze([...defaultFilenames]),
    ...(single ? { export: single } : {}),
    ...(multi ? { exportMultiplatform: multi } : {}),
    plugin,
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? JSON.stringify(value) : `a value of type ${typeof value}`;
}

/** The record fields exporters write as they are (one line each in `@EXPLICIT`, a YAML scalar in a lock). */
const RECORD_TEXT_FIELDS = ['name', 'version', 'build', 'fn', 'url', 'channel', 'subdir', 'md5', 'sha256'] as const;

/**
 * Refuses, before any exporter runs (plugins included), a record whose identifying text holds a
 * control character: a newline in a repodata `fn` or `url` would put a line of the channel's choosing
 * into an explicit file (another URL, another md5). No conda package name or file name has one.
 */
function refuseControlCharacters(format: string, environments: readonly ExportEnvironment[]): void {
  for (const environment of environments) {
    for (const record of environment.records) {
      for (const field of RECORD_TEXT_FIELDS) {
        const value = record[field];
        if (typeof value === 'string' && hasControlCharacter(value)) {
          const name = escapeControlCharacters(record.name);
          throw new ExportError(
            'CR_ERR_EXPORT_CONTROL_CHARACTER',
            format,
            `Cannot export ${format}: the record of "${name}" (${environment.platform}) from ${escapeControlCharacters(record.channel)} has a control character in its ${field}: "${escapeControlCharacters(value.slice(0, 200))}"`,
          );
        }
      }
    }
  }
}

/**
 * Renders one exporter's document: `exportMultiplatform(environments)` when it has it, otherwise
 * each platform on its own, joined with a newline; then trailing whitespace becomes one newline.
 */
function renderWith(exporter: Exporter, environments: readonly ExportEnvironment[], context: ExportContext): string {
  if (environments.length === 0) {
    throw new ExportError('CR_ERR_EXPORT_NO_ENVIRONMENTS', exporter.name, `Cannot export ${exporter.name}: no platforms to export`);
  }
  refuseControlCharacters(exporter.name, environments);
  let text: unknown;
  try {
    if (exporter.exportMultiplatform) {
      text = exporter.exportMultiplatform(environments, context);
    } else {
      const parts: unknown[] = environments.map((environment) => exporter.export!(environment, context));
      const bad = parts.find((part) => typeof part !== 'string');
      text = bad === undefined ? parts.join('\n') : bad;
    }
  } catch (error) {
    // A plugin's own failure is wrapped so that the message names the exporter; ours already do.
    if (error instanceof CondaResolveError) throw error;
    throw new ExportError(
      'CR_ERR_EXPORT_FAILED',
      exporter.name,
      `Cannot export ${exporter.name}: ${(error as Error)?.message ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
  if (typeof text !== 'string') {
    throw new ExportError(
      'CR_ERR_EXPORT_FAILED',
      exporter.name,
      `Cannot export ${exporter.name}: the exporter returned ${describe(text)}, not text`,
    );
  }
  // conda's `rstrip() + "\n"`.
  return `${pythonRstrip(text)}\n`;
}

// Python's str.isspace() characters, which `rstrip()` removes (JavaScript's trimEnd differs: it
// keeps U+001C..U+001F and U+0085 and removes U+FEFF).
function isPythonWhitespace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    (code >= 0x1c && code <= 0x20) ||
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

function pythonRstrip(text: string): string {
  let end = text.length;
  while (end > 0 && isPythonWhitespace(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}
