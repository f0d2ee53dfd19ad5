/**
 * environment.yml / environment.yaml: `name`, `channels`, `dependencies` (conda specs, plus a
 * `pip:` list of PyPI requirements and pip options, read by pip-section.ts), and the conda-lock extension `platforms`. `variables` and
 * `prefix` are accepted and ignored. Parsing uses js-yaml; errors carry the line and column.
 */
import { loadPlainYaml, PlainYamlError } from './plain-yaml.js';
import { InputFileError } from '../errors.js';
import type { InputSpec, ParsedInputFile } from './types.js';
import type { PypiIndexOptions, PypiInputRequirement } from '../pypi/request.js';
import { readPipSection, type IncludedFileReader } from './pip-section.js';

const KNOWN_KEYS = new Set([
  'name',
  'channels',
  'dependencies',
  'variables',
  'prefix',
  'platforms',
  'category',
  'description',
  'pip-repositories',
]);

/**
 * The largest environment file read. Real ones are a few kB; js-yaml takes ~50 ms for 256 kB on
 * this thread (which in the server answers every other request), ~200 ms for 1 MB.
 */
export const MAX_ENVIRONMENT_YAML_BYTES = 256 * 1024;

export function parseEnvironmentYaml(filename: string, content: string, readIncluded?: IncludedFileReader): ParsedInputFile {
  if (content.length > MAX_ENVIRONMENT_YAML_BYTES || Buffer.byteLength(content) > MAX_ENVIRONMENT_YAML_BYTES) {
    throw new InputFileError(
      'CR_ERR_INPUT_FILE_TOO_LARGE',
      filename,
      `Cannot read environment file "${filename}": it is larger than ${MAX_ENVIRONMENT_YAML_BYTES / 1024} KiB (the limit)`,
      { limit: MAX_ENVIRONMENT_YAML_BYTES },
    );
  }
  let doc: unknown;
  try {
    doc = loadPlainYaml(content, filename, { schema: 'default' });
  } catch (error) {
    if (error instanceof PlainYamlError) {
      throw new InputFileError('CR_ERR_INPUT_YAML', filename, `Cannot read environment file "${filename}": ${error.message}`);
    }
    throw error;
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw shapeError(filename, 'the document', 'a mapping with "dependencies"');
  }
  const record = doc as Record<string, unknown>;
  const warnings: string[] = [];
  for (const key of Object.keys(record)) {
    if (!KNOWN_KEYS.has(key)) warnings.push(`${filename}: key "${key}" is not used by a resolve and was ignored`);
  }
  if (record.variables !== undefined && record.variables !== null) {
    warnings.push(`${filename}: "variables" are not part of a resolve and were ignored`);
  }

  const channels = stringList(filename, record, 'channels').filter((c) => c !== 'nodefaults');
  const platforms = stringList(filename, record, 'platforms');
  const lineOf = listItemLines(content);
  const specs: InputSpec[] = [];
  const pypi: PypiInputRequirement[] = [];
  let pypiOptions: PypiIndexOptions | undefined;
  const deps = record.dependencies;
  if (deps !== undefined && deps !== null) {
    if (!Array.isArray(deps)) throw shapeError(filename, '"dependencies"', 'a list');
    deps.forEach((item: unknown, index: number) => {
      if (typeof item === 'string' || typeof item === 'number') {
        const spec = String(item).trim();
        specs.push({ spec, line: lineOf.get(spec) });
      } else if (item && typeof item === 'object' && !Array.isArray(item) && 'pip' in item) {
        const pip = (item as { pip: unknown }).pip;
        if (pip === null || pip === undefined) return;
        if (!Array.isArray(pip)) throw shapeError(filename, '"pip"', 'a list');
        const section = readPipSection(filename, pip, lineOf, readIncluded);
        pypi.push(...section.requirements);
        warnings.push(...section.warnings);
        // Several pip: lists (rare) merge: later scalars win, lists add up.
        pypiOptions = mergeOptions(pypiOptions, section.options);
      } else {
        throw shapeError(filename, `"dependencies" item ${index + 1}`, 'a package spec string or a "pip:" list');
      }
    });
  }
  // conda-lock's `pip-repositories`: extra indexes for the pip: section.
  const repositories = stringList(filename, record, 'pip-repositories');
  if (repositories.length > 0) pypiOptions = mergeOptions({ extraIndexUrls: repositories }, pypiOptions ?? {});
  return {
    filename,
    kind: 'environment',
    specs,
    channels,
    platforms,
    warnings,
    ...(pypi.length > 0 ? { pypi } : {}),
    ...(pypiOptions && Object.keys(pypiOptions).length > 0 ? { pypiOptions } : {}),
  };
}

function mergeOptions(a: PypiIndexOptions | undefined, b: PypiIndexOptions): PypiIndexOptions {
  if (!a) return b;
  const extraIndexUrls = [...(a.extraIndexUrls ?? []), ...(b.extraIndexUrls ?? [])];
  const findLinks = [...(a.findLinks ?? []), ...(b.findLinks ?? [])];
  return { ...a, ...b, ...(extraIndexUrls.length > 0 ? { extraIndexUrls } : {}), ...(findLinks.length > 0 ? { findLinks } : {}) };
}

function stringList(filename: string, record: Record<string, unknown>, key: string): string[] {
  const value = record[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === '')) {
    throw shapeError(filename, `"${key}"`, 'a list of strings');
  }
  return value.map((v: string) => v.trim());
}

function shapeError(filename: string, what: string, expected: string): InputFileError {
  return new InputFileError('CR_ERR_INPUT_SHAPE', filename, `Cannot read environment file "${filename}": ${what} must be ${expected}`);
}

/**
 * The 1-based line of the first `- item` list item of each text, so a bad spec can be pointed at.
 * One pass over the lines (looking each spec up in turn was quadratic: a 1 MB file of short items
 * took seconds).
 */
function listItemLines(content: string): Map<string, number> {
  const lines = new Map<string, number>();
  const all = content.split(/\r?\n/);
  for (let i = 0; i < all.length; i++) {
    const text = all[i]!.trim();
    if (!text.startsWith('-')) continue;
    let item = text.slice(1).trim();
    if ((item.startsWith('"') && item.endsWith('"')) || (item.startsWith("'") && item.endsWith("'"))) item = item.slice(1, -1);
    if (!lines.has(item)) lines.set(item, i + 1);
  }
  return lines;
}
