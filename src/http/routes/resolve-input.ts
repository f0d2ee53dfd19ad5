/**
 * The three ways a resolve arrives over HTTP (a GET query, a JSON body, a raw environment file) made
 * into one `ResolveRequest` and an optional format name, so every path answers the same way.
 * Validation of the values themselves (specs, platforms, channels) is `prepareRequest`'s job; this
 * module only decides which value came from where.
 */
import { lockFormatOf } from '../../locks/lock-file.js';
import type { ResolveRequest } from '../../request.js';

type Listish = string | readonly string[] | null | undefined;

/** `GET /resolve` and the query of `POST /resolve` (after schema validation). */
export interface ResolveQuery {
  readonly spec?: string | readonly string[];
  readonly specs?: string | readonly string[];
  readonly channel?: string | readonly string[];
  readonly channels?: string | readonly string[];
  readonly platform?: string | readonly string[];
  readonly platforms?: string | readonly string[];
  readonly format?: string;
  readonly channel_priority?: string;
  readonly virtual_package?: string | readonly string[];
  readonly virtual_packages?: string | readonly string[];
  readonly exclude_newer?: string;
  readonly filename?: string;
  readonly environment?: string;
}

/** The JSON body of `POST /resolve` (after schema validation); null means absent. */
export interface ResolveBody {
  readonly specs?: Listish;
  readonly file?: string | null;
  readonly filename?: string | null;
  readonly channels?: Listish;
  readonly platforms?: Listish;
  readonly channel_priority?: string | null;
  readonly virtual_packages?: Listish;
  readonly exclude_newer?: string | null;
  /** The pixi environment of a pixi.lock, pixi.toml or pyproject.toml (`-e NAME`). */
  readonly environment?: string | null;
  /** The text of a previous pixi.lock or conda-lock.yml to stay close to (`--lock`), named by `lock_filename`. */
  readonly lock?: string | null;
  readonly lock_filename?: string | null;
  /** Package names of `lock` to solve afresh (`--update`). */
  readonly update?: Listish;
  /** Whether `lock` satisfies the request, without solving (`--check`). */
  readonly check?: boolean | null;
  /** The changes the solve makes against `lock` (`--diff`). */
  readonly diff?: boolean | null;
  /** PEP 508 requirements installed from PyPI (`--pypi`). */
  readonly pypi?: readonly string[] | null;
  readonly index_url?: string | null;
  readonly extra_index_urls?: readonly string[] | null;
  readonly index_strategy?: string | null;
  readonly prerelease?: string | null;
  readonly resolution?: string | null;
}

export interface ResolveInput {
  readonly request: ResolveRequest;
  readonly format: string | undefined;
  /** Whether an environment file was sent (its text is never logged). */
  readonly hasFile: boolean;
  /** `check: true`: answer whether `lock` satisfies the request; no solve. */
  readonly check?: boolean;
  /** `diff: true`: answer the changes against `lock`. */
  readonly diff?: boolean;
}

/**
 * Splits comma-separated specs. A comma only separates two specs when it is outside brackets and
 * quotes and the next character starts a package name (a letter or `_`) or nothing follows; otherwise it belongs to a
 * version range (`numpy >=1.26,<2`, `python 3.9.*,!=3.9.1`).
 */
export function splitSpecs(text: string): string[] {
  const specs: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if ((c === ']' || c === ')') && depth > 0) depth--;
    else if (c === ',' && depth === 0 && /^\s*(?:[A-Za-z_,]|$)/.test(text.slice(i + 1, i + 40))) {
      specs.push(text.slice(start, i));
      start = i + 1;
    }
  }
  specs.push(text.slice(start));
  return specs.map((s) => s.trim()).filter((s) => s !== '');
}

/** Plain comma-separated values, trimmed, empties dropped. */
export function splitCommas(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function asArray(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? [value] : value;
}

/** Repeated singular parameters, then the plural comma-separated ones. */
function fromQuery(
  singular: string | readonly string[] | undefined,
  plural: string | readonly string[] | undefined,
  split: (s: string) => string[],
): string[] | undefined {
  const values = [
    ...asArray(singular)
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    ...asArray(plural).flatMap(split),
  ];
  return singular === undefined && plural === undefined ? undefined : values;
}

/** A JSON list field: an array is taken as is, a string is split, null is absent. */
function fromBody(value: Listish, split: (s: string) => string[]): string[] | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return split(value);
  return value.map((s) => s.trim()).filter((s) => s !== '');
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value.trim() === '' ? undefined : value;
}

function queryRequest(query: ResolveQuery): ResolveRequest {
  return {
    specs: fromQuery(query.spec, query.specs, splitSpecs),
    channels: fromQuery(query.channel, query.channels, splitCommas),
    platforms: fromQuery(query.platform, query.platforms, splitCommas),
    channelPriority: nonEmpty(query.channel_priority),
    virtualPackages: fromQuery(query.virtual_package, query.virtual_packages, splitCommas),
    excludeNewer: nonEmpty(query.exclude_newer),
    environment: nonEmpty(query.environment)?.trim(),
  };
}

export function inputFromQuery(query: ResolveQuery): ResolveInput {
  return { request: queryRequest(query), format: nonEmpty(query.format), hasFile: false };
}

/** A JSON body; a field present in the body wins over the same query parameter. */
export function inputFromJson(body: ResolveBody, query: ResolveQuery): ResolveInput {
  const fromQueryRequest = queryRequest(query);
  const file = body.file ?? undefined;
  const request: ResolveRequest = {
    specs: fromBody(body.specs, splitSpecs) ?? fromQueryRequest.specs,
    channels: fromBody(body.channels, splitCommas) ?? fromQueryRequest.channels,
    platforms: fromBody(body.platforms, splitCommas) ?? fromQueryRequest.platforms,
    channelPriority: nonEmpty(body.channel_priority) ?? fromQueryRequest.channelPriority,
    virtualPackages: fromBody(body.virtual_packages, splitCommas) ?? fromQueryRequest.virtualPackages,
    excludeNewer: nonEmpty(body.exclude_newer) ?? fromQueryRequest.excludeNewer,
    files: file === undefined ? undefined : [{ filename: fileName(body.filename ?? query.filename, file), content: file }],
    environment: nonEmpty(body.environment)?.trim() ?? fromQueryRequest.environment,
    lock:
      body.lock === null || body.lock === undefined
        ? undefined
        : { filename: lockFileName(body.lock_filename, body.lock), content: body.lock },
    update: fromBody(body.update, splitCommas),
    ...(body.pypi ? { pypi: [...body.pypi] } : {}),
    ...(body.index_url || body.extra_index_urls || body.index_strategy || body.prerelease
      ? {
          pypiOptions: {
            indexUrl: nonEmpty(body.index_url ?? undefined),
            extraIndexUrls: body.extra_index_urls ?? undefined,
            indexStrategy: nonEmpty(body.index_strategy ?? undefined),
            prerelease: nonEmpty(body.prerelease ?? undefined),
          },
        }
      : {}),
    ...(nonEmpty(body.resolution ?? undefined) ? { resolution: body.resolution! } : {}),
  };
  return { request, format: nonEmpty(query.format), hasFile: file !== undefined, check: body.check === true, diff: body.diff === true };
}

/** A raw environment file as the body; everything else comes from the query. */
export function inputFromUpload(text: string, mediaType: string, query: ResolveQuery): ResolveInput {
  const fallback = /yaml/.test(mediaType) ? 'environment.yml' : undefined;
  const request: ResolveRequest = {
    ...queryRequest(query),
    files: [{ filename: fileName(query.filename ?? fallback, text), content: text }],
  };
  return { request, format: nonEmpty(query.format), hasFile: true };
}

/**
 * The basename a client gave (directories are dropped: the name only chooses the parser and
 * appears in error messages), or a name guessed from the text: a lock file or pixi manifest by its
 * content, an environment file when it has a top-level `dependencies:` or `channels:` key,
 * otherwise a spec list (which also reads @EXPLICIT).
 */
export function fileName(given: string | null | undefined, text: string): string {
  const base = basename(given);
  if (base) return base;
  const lock = lockFormatOf('', text);
  if (lock) return LOCK_NAMES[lock];
  if (/^\s*\[tool\.pixi[.\]]/m.test(text)) return 'pyproject.toml';
  if (/^\s*\[(workspace|project)\]/m.test(text)) return 'pixi.toml';
  return /^(dependencies|channels|name)\s*:/m.test(text) ? 'environment.yml' : 'requirements.txt';
}

const LOCK_NAMES = { 'rattler-lock-v6': 'pixi.lock', 'rattler-lock-v7': 'pixi.lock', 'conda-lock-v1': 'conda-lock.yml' } as const;

/** The basename given for `lock`, or `pixi.lock` / `conda-lock.yml` as its content says (`lock` when neither). */
export function lockFileName(given: string | null | undefined, text: string): string {
  const lock = lockFormatOf('', text);
  return basename(given) || (lock ? LOCK_NAMES[lock] : 'lock');
}

function basename(given: string | null | undefined): string | undefined {
  return given?.split(/[\\/]/).pop()?.trim();
}
