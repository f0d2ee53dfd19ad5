/**
 * An environment.yml `pip:` list, read as pip reads a requirements file (pip's documented
 * "Requirements File Format"): each item a PEP 508 requirement or an option line. What a resolve
 * can use: requirements, `-r/--requirement FILE` (relative to the file that names it, read through
 * the caller's reader), `-i/--index-url`, `--extra-index-url`, `--pre`, `-f/--find-links`.
 * What needs a build is refused with the line (`-e`, local paths, VCS URLs); options that change
 * nothing a solve decides (`--trusted-host`, `--hash` on a line) are ignored, others named in a
 * warning.
 */
import { InputFileError } from '../errors.js';
import type { PypiIndexOptions, PypiInputRequirement } from '../pypi/request.js';

/** Reads a file a `-r` line names; the path is already made absolute against the naming file. */
export type IncludedFileReader = (path: string) => string;

export interface PipSection {
  readonly requirements: PypiInputRequirement[];
  readonly options: PypiIndexOptions;
  readonly warnings: string[];
}

/** How deep `-r` may nest: pip has no bound, but a cycle must end. */
const MAX_INCLUDE_DEPTH = 8;

/** The largest file a `-r` line may name (real requirements files are a few kB). */
const MAX_INCLUDED_BYTES = 256 * 1024;

const VCS_PREFIXES = ['git+', 'hg+', 'svn+', 'bzr+'];

interface Source {
  /** The environment file (the error's file). */
  readonly file: string;
  /** Where this list comes from, for messages: `environment.yml` or `environment.yml -> requirements.txt`. */
  readonly label: string;
  /** The path relative `-r` names are resolved against (the naming file's), when known. */
  readonly path: string;
  readonly depth: number;
  readonly seen: ReadonlySet<string>;
}

/**
 * Reads a `pip:` list. `lineOf` gives each item's line in the environment file; `readIncluded`
 * reads `-r` files (absent: a `-r` line is refused, as over HTTP, where no file system is read).
 */
export function readPipSection(
  filename: string,
  items: readonly unknown[],
  lineOf: ReadonlyMap<string, number>,
  readIncluded: IncludedFileReader | undefined,
): PipSection {
  const out: { requirements: PypiInputRequirement[]; options: MutableOptions; warnings: string[] } = {
    requirements: [],
    options: {},
    warnings: [],
  };
  const source: Source = { file: filename, label: filename, path: filename, depth: 0, seen: new Set([filename]) };
  items.forEach((item, index) => {
    if (typeof item !== 'string' && typeof item !== 'number') {
      throw pipError(filename, `${filename}: "pip" item ${index + 1} must be a string`);
    }
    const text = String(item).trim();
    const line = lineOf.get(text);
    readLine(text, line === undefined ? `${filename}, pip item ${index + 1}` : `${filename}, line ${line}`, source, out, readIncluded);
  });
  return { requirements: out.requirements, options: finish(out.options), warnings: out.warnings };
}

interface MutableOptions {
  indexUrl?: string;
  extraIndexUrls?: string[];
  findLinks?: string[];
  prerelease?: string;
}

function finish(options: MutableOptions): PypiIndexOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as PypiIndexOptions;
}

/** Splits an option line into its name and value (`-i URL`, `-iURL`, `--index-url=URL`, `--index-url URL`). */
function optionOf(text: string): { name: string; value: string } {
  const long = /^(--[a-z-]+)(?:=|\s+)?(.*)$/.exec(text);
  if (long) return { name: long[1]!, value: long[2]!.trim() };
  return { name: text.slice(0, 2), value: text.slice(2).trim() };
}

const SHORT: Readonly<Record<string, string>> = {
  '-i': '--index-url',
  '-f': '--find-links',
  '-r': '--requirement',
  '-e': '--editable',
  '-c': '--constraint',
};

function readLine(
  raw: string,
  at: string,
  source: Source,
  out: { requirements: PypiInputRequirement[]; options: MutableOptions; warnings: string[] },
  readIncluded: IncludedFileReader | undefined,
): void {
  const text = stripComment(raw);
  if (text === '') return;
  if (text.startsWith('-')) {
    const option = optionOf(text);
    const name = SHORT[option.name] ?? option.name;
    const needValue = (): string => {
      if (option.value === '') throw pipError(source.file, `${at}: "${text}" needs a value`);
      return option.value;
    };
    switch (name) {
      case '--index-url':
        out.options.indexUrl = needValue();
        return;
      case '--extra-index-url':
        (out.options.extraIndexUrls ??= []).push(needValue());
        return;
      case '--find-links':
        (out.options.findLinks ??= []).push(resolveLocal(needValue(), source.path));
        return;
      case '--pre':
        out.options.prerelease = 'allow';
        return;
      case '--requirement':
        include(needValue(), at, source, out, readIncluded);
        return;
      case '--editable':
        throw buildError(source.file, at, text, 'an editable install builds the project');
      case '--trusted-host':
      case '--prefer-binary':
      case '--only-binary':
      case '--no-cache-dir':
        return; // nothing a solve decides: only wheels are chosen, and hosts are checked by the index client
      default:
        out.warnings.push(`${at}: pip option "${text}" is not used by a resolve and was ignored`);
        return;
    }
  }
  const requirement = stripLineOptions(text);
  const refusal = needsBuild(requirement);
  if (refusal) throw buildError(source.file, at, requirement, refusal);
  out.requirements.push({ requirement, at, file: source.file });
}

/** A `-r FILE` line: the file's lines read in place, relative to the file that names it. */
function include(
  name: string,
  at: string,
  source: Source,
  out: { requirements: PypiInputRequirement[]; options: MutableOptions; warnings: string[] },
  readIncluded: IncludedFileReader | undefined,
): void {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name))
    throw pipError(source.file, `${at}: "-r ${name}": a requirements file is read from disk, not from a URL`);
  if (!readIncluded)
    throw pipError(
      source.file,
      `${at}: "-r ${name}": a requirements file next to the environment file cannot be read here (give the requirements in the pip: list)`,
    );
  if (source.depth >= MAX_INCLUDE_DEPTH)
    throw pipError(source.file, `${at}: "-r ${name}" nests requirements files deeper than ${MAX_INCLUDE_DEPTH}`);
  const path = resolveLocal(name, source.path);
  if (source.seen.has(path)) throw pipError(source.file, `${at}: "-r ${name}" includes a file that includes it`);
  let content: string;
  try {
    content = readIncluded(path);
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'unreadable';
    throw new InputFileError('CR_ERR_INPUT_FILE_UNREADABLE', source.file, `${at}: cannot read requirements file "${name}" (${reason})`, {
      cause: error,
    });
  }
  if (content.length > MAX_INCLUDED_BYTES) {
    throw new InputFileError(
      'CR_ERR_INPUT_FILE_TOO_LARGE',
      source.file,
      `${at}: requirements file "${name}" is larger than ${MAX_INCLUDED_BYTES / 1024} KiB (the limit)`,
      { limit: MAX_INCLUDED_BYTES },
    );
  }
  const label = `${source.label} -> ${name}`;
  const inner: Source = { file: source.file, label, path, depth: source.depth + 1, seen: new Set([...source.seen, path]) };
  logicalLines(content).forEach(({ text, line }) => readLine(text, `${name}, line ${line} (from ${at})`, inner, out, readIncluded));
}

/** pip's logical lines: a trailing backslash joins the next line; the first line number is kept. */
function logicalLines(content: string): { text: string; line: number }[] {
  const lines: { text: string; line: number }[] = [];
  let pending: { text: string; line: number } | undefined;
  content.split(/\r?\n/).forEach((physical, i) => {
    const joined = pending ? { text: pending.text + physical, line: pending.line } : { text: physical, line: i + 1 };
    if (joined.text.endsWith('\\')) pending = { text: joined.text.slice(0, -1), line: joined.line };
    else {
      pending = undefined;
      lines.push(joined);
    }
  });
  if (pending) lines.push(pending);
  return lines;
}

/** pip: `#` starts a comment at the line's start or after whitespace. */
function stripComment(text: string): string {
  return text.replace(/(^|\s)#.*$/, '').trim();
}

/** Per-requirement options pip allows on a line (`--hash=...`, `--config-settings`): the lock carries hashes itself. */
function stripLineOptions(text: string): string {
  return text.replace(/\s+--(hash|config-settings|global-option)(=|\s+)\S+/g, '').trim();
}

/** Why a requirement needs a build, or undefined when an index can answer it. */
function needsBuild(requirement: string): string | undefined {
  const url = /^[^@;]*@\s*(\S+)/.exec(requirement)?.[1] ?? (/^[a-z][a-z0-9+.-]*:\/\//i.test(requirement) ? requirement : undefined);
  const target = url ?? requirement;
  if (VCS_PREFIXES.some((p) => target.toLowerCase().startsWith(p))) return 'a VCS URL is checked out and built';
  if (url !== undefined) {
    if (/^file:/i.test(url) && !/\.whl$/i.test(url.split(/[?#]/)[0]!)) return 'a local project is built';
    if (!/\.whl$/i.test(url.split(/[?#]/)[0]!)) return 'a source archive is built (only wheels are installed without a build)';
    return undefined;
  }
  // A local path: pip treats a line with a path separator or starting with "." as one.
  if (/^(\.{1,2}([\\/]|$)|[\\/~]|[a-z]:[\\/])/i.test(target) || /[\\/]/.test(target.split(/[;\s[]/)[0]!)) {
    return /\.whl$/i.test(target.split(/[;\s]/)[0]!)
      ? 'a wheel file is not on an index (name its folder with -f DIR instead)'
      : 'a local path is built';
  }
  return undefined;
}

/** A find-links or `-r` location relative to the naming file; URLs are kept as they are. */
export function resolveLocal(location: string, relativeTo: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(location) && !/^[a-z]:[\\/]/i.test(location)) return location;
  if (location.startsWith('/')) return location;
  const slash = Math.max(relativeTo.lastIndexOf('/'), relativeTo.lastIndexOf('\\'));
  return slash < 0 ? location : `${relativeTo.slice(0, slash + 1)}${location}`;
}

function pipError(file: string, message: string): InputFileError {
  return new InputFileError('CR_ERR_INPUT_PIP', file, `Cannot read the pip section of "${file}": ${message}`);
}

function buildError(file: string, at: string, text: string, why: string): InputFileError {
  return new InputFileError(
    'CR_ERR_INPUT_PIP_NEEDS_BUILD',
    file,
    `Cannot resolve pip entry "${text}" (${at}): ${why}, which a resolve does not do (give a name and version from an index, or a wheel URL)`,
  );
}
