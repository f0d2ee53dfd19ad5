/**
 * conda-resolve as a library: resolve environments for several platforms and render them in any
 * export format, the same path the CLI takes.
 *
 *   import { resolveEnvironments, exportResolution, toNative } from 'conda-resolve';
 *   const resolution = await resolveEnvironments({ specs: ['python=3.12'], platforms: ['linux-64', 'win-64'] });
 *   const json = toNative(resolution);
 *   const lock = exportResolution(resolution, 'pixi');
 *
 * The API, all of it exported here:
 * - `resolveEnvironments(request, options)` -> `Resolution`: one `PlatformResolution` per platform,
 *   with its records, or its `error`, `errorCode` and (when unsatisfiable) structured `explanation`.
 *   Types: `ResolveRequest`, `InputFile`, `ResolveEnvironmentsOptions`, `Resolution`,
 *   `PlatformResolution`, `PreparedRequest` (the checked request a resolution carries),
 *   `ChannelPriority`, `Explanation`.
 * - `toNative(resolution)` -> the CLI's native JSON (`SolveResult`, `NativePackage`).
 * - `exportResolution(resolution, format, options)` -> the text of an export format, with the
 *   exporter registry: `registerBuiltinExporters`, `loadRegistry` (adds installed plugins),
 *   `ExporterRegistry`, `UnknownFormatError`, and for writing exporters `Exporter`,
 *   `ExportEnvironment`, `ExportContext`.
 * - Where solves run (`options.solver`): `PlatformSolver` (`PlatformSolveInput`,
 *   `PlatformSolveOutcome`), `InProcessSolver` (this thread, the default) and `SolvePool`
 *   (worker threads; `SolvePoolOptions`).
 * - Errors: `CondaResolveError` (every error thrown carries a `code` from `ERROR_CODES`),
 *   `InvalidArgumentError`, `ResolveAbortedError`.
 * - `TOOL_NAME`, `TOOL_VERSION`.
 *
 * Lower layers have their own entry points: `conda-resolve/solver` (the pure solver, no I/O),
 * `conda-resolve/repodata` (channels, fetching, caching; `RepodataStore` for `options.store`) and
 * `conda-resolve/vocabulary` (versions, match specs, records, platforms).
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { PypiIndexClient } from '../repodata/pypi/client.js';
import type { PreparedPypi } from './pypi/request.js';
import { RepodataStore, defaultCacheDir } from '../repodata/store.js';
import { hostSubdir } from '../vocabulary/platform.js';
import { CondaResolveError, UsageError, type ErrorCode } from './errors.js';
import { ExporterRegistry, registerBuiltinExporters } from './exporters/index.js';
import { prepareRequest, type ResolveRequest } from './request.js';
import { exportEnvironments, resolvePrepared, type Resolution } from './resolve.js';
import { InProcessSolver } from './solving/platform-runner.js';
import type { PlatformSolver } from './solving/types.js';
import { TOOL_NAME, TOOL_VERSION } from './version.js';

export type { ChannelPriority, Explanation } from '../solver/index.js';
export { CondaResolveError, ERROR_CODES } from './errors.js';
export type { ExportEnvironment, Exporter, ExportContext } from './exporters/index.js';
export { ExporterRegistry, UnknownFormatError, loadRegistry, registerBuiltinExporters } from './exporters/index.js';
export type { NativePackage, SolveResult } from './native-result.js';
export type { InputFile, PreparedRequest, ResolveRequest } from './request.js';
// Inspecting resolutions: `treeOf(r)`, `whyOf(r, name)`; `whyNot(current, withSpec, parseExtraSpec(spec))` where `withSpec` resolves the request with `spec` appended to `specs`.
export { buildGraph, parseExtraSpec, treeOf, whyNot, whyOf, withAddedSpec } from './inspect/index.js';
export type { DependencyGraph, GraphEdge, PlatformTree, PlatformWhy, TreeNode, WhyAnswer, WhyNotAnswer } from './inspect/index.js';
export { toNative, type PlatformResolution, type Resolution } from './resolve.js';
export { InProcessSolver } from './solving/platform-runner.js';
export { SolvePool, type SolvePoolOptions } from './solving/solve-pool.js';
export type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from './solving/types.js';
export { TOOL_NAME, TOOL_VERSION } from './version.js';

export interface ResolveEnvironmentsOptions {
  /** Repodata cache; default the user cache directory (as the CLI). Ignored when `store` is given. */
  readonly cacheDir?: string;
  readonly offline?: boolean;
  readonly refresh?: boolean;
  /** A store to share between calls (it keeps loaded indexes in memory); the caller closes it. */
  readonly store?: RepodataStore;
  /** Where solves run; default this thread. A `SolvePool` runs them on worker threads (the caller closes it). */
  readonly solver?: PlatformSolver;
  /** Per-platform time limit; default none. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** `CONDA_OVERRIDE_*`, `CONDA_CHANNEL_ALIAS`, ...; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Base of relative channel paths; default `process.cwd()`. */
  readonly cwd?: string;
  /** Channels when neither the request nor its files name one; default `conda-forge`. */
  readonly defaultChannels?: readonly string[];
}

/**
 * An argument of `resolveEnvironments` or `exportResolution` has the wrong type or shape (a string
 * where an array of strings belongs, a `null` request, an unknown field...). A `UsageError`, so it
 * is bad input like an unparsable spec; `code` is that of the field (`CR_ERR_INPUT_SPEC` for
 * `specs`, `CR_ERR_INPUT_PLATFORM` for `platforms`, `CR_ERR_INPUT_CHANNEL` for `channels`,
 * `CR_ERR_INPUT_OPTION` otherwise) and `argument` names it (`request.specs`, `options.timeoutMs`).
 */
export class InvalidArgumentError extends UsageError {
  readonly argument: string;
  constructor(code: ErrorCode, argument: string, message: string) {
    super(code, message);
    this.argument = argument;
  }
}

/**
 * `resolveEnvironments` was cancelled through its `signal`. `code` is `CR_ERR_SOLVE_ABORTED`, `cause`
 * is the signal's reason, and `name` is `AbortError`, as callers test for cancellations. (A reason
 * that is itself a `CondaResolveError` is thrown as it is.)
 */
export class ResolveAbortedError extends CondaResolveError {
  constructor(reason: unknown) {
    const why = reason instanceof Error && reason.message && reason.name !== 'AbortError' ? ` (${reason.message})` : '';
    super('CR_ERR_SOLVE_ABORTED', `The resolve was cancelled${why}`, { cause: reason });
    this.name = 'AbortError';
  }
}

function abortError(signal: AbortSignal): CondaResolveError {
  const reason: unknown = signal.reason;
  return reason instanceof CondaResolveError ? reason : new ResolveAbortedError(reason);
}

/**
 * Solves one environment per platform. Bad input (a spec, a file, a platform, an argument of the
 * wrong type) throws a `CondaResolveError`; a platform that cannot be solved is reported in its
 * `PlatformResolution` (`error`, `errorCode`) and never fails the others. `options` may be
 * omitted or `null`. Aborting `signal`, before or during the resolve, rejects at once with a
 * `ResolveAbortedError` (work under way is cancelled through the same signal).
 */
export async function resolveEnvironments(request: ResolveRequest, options?: ResolveEnvironmentsOptions | null): Promise<Resolution> {
  checkRequest(request);
  const opts = checkResolveOptions(options);
  const signal = opts.signal;
  if (signal?.aborted) throw abortError(signal);
  const env = opts.env ?? process.env;
  const prepared = prepareRequest(request, {
    env,
    cwd: opts.cwd ?? process.cwd(),
    hostPlatform: hostSubdir(process.platform, process.arch),
    defaultChannels: opts.defaultChannels ?? ['conda-forge'],
    readIncluded: (path) => readFileSync(resolvePath(opts.cwd ?? process.cwd(), path), 'utf8'),
  });
  const store =
    opts.store ?? new RepodataStore({ cacheDir: opts.cacheDir ?? defaultCacheDir(env), offline: opts.offline, refresh: opts.refresh, indexBytes: 'positional' });
  // resolvePrepared reports failures (an abort too) per platform and never rejects.
  const cacheDir = opts.cacheDir ?? defaultCacheDir(env);
  const pypiClient = (pypi: PreparedPypi): PypiIndexClient =>
    new PypiIndexClient({ indexUrl: pypi.indexUrl, extraIndexUrls: pypi.extraIndexUrls, findLinks: pypi.findLinks, strategy: pypi.indexStrategy, cacheDir, offline: opts.offline, refresh: opts.refresh });
  const work = resolvePrepared(prepared, { store, solver: opts.solver ?? new InProcessSolver(), env, pypiClient }, { timeoutMs: opts.timeoutMs, signal });
  // A store made here is closed once the work has wound down, also after an abort returned early.
  const settled = opts.store ? work : work.finally(() => store.close());
  if (!signal) return settled;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const resolution = await Promise.race([settled, aborted]);
    // Aborted as the last platform ended: its error says "cancelled", which is no resolution.
    if (signal.aborted) throw abortError(signal);
    return resolution;
  } catch (error) {
    if (signal.aborted) settled.catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}

/**
 * The text of an export format (a name or alias, e.g. `explicit`, `environment-yaml`, `pixi`,
 * `conda-lock`) for a resolution whose platforms all solved. `registry` defaults to the built-in
 * exporters; `loadRegistry()` adds installed plugins. `now` is the lock files' `created_at`.
 * Arguments of the wrong type throw an `InvalidArgumentError`.
 */
export function exportResolution(resolution: Resolution, format: string, options?: { registry?: ExporterRegistry; now?: Date } | null): string {
  checkResolution(resolution);
  if (typeof format !== 'string' || format.trim() === '') {
    throw invalid('CR_ERR_INPUT_OPTION', 'format', `a format name such as "pixi" or "explicit"`, format);
  }
  const opts = checkObject(options, 'options', ['registry', 'now']) as { registry?: unknown; now?: unknown };
  if (opts.registry !== undefined && !(opts.registry instanceof ExporterRegistry)) {
    throw invalid('CR_ERR_INPUT_OPTION', 'options.registry', 'an ExporterRegistry (registerBuiltinExporters() or loadRegistry())', opts.registry);
  }
  if (opts.now !== undefined && !(opts.now instanceof Date && Number.isFinite(opts.now.getTime()))) {
    throw invalid('CR_ERR_INPUT_OPTION', 'options.now', 'a valid Date', opts.now);
  }
  const failed = resolution.platforms.filter((p) => p.error !== null);
  if (failed.length > 0) {
    const which = failed.map((p) => p.platform).join(', ');
    throw new CondaResolveError('CR_ERR_EXPORT_UNSOLVED', `Cannot export ${format}: ${which} did not solve (${failed[0]!.error})`);
  }
  const registry = (opts.registry as ExporterRegistry | undefined) ?? registerBuiltinExporters();
  const environments = exportEnvironments(resolution);
  return registry.render(format, environments, { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now: (opts.now as Date | undefined) ?? new Date() });
}

// --- Run-time checks of the arguments: callers in JavaScript (or with `any`) get a typed error
// naming the argument rather than a TypeError from deep inside, or a string read as its letters.

const REQUEST_FIELDS = ['specs', 'files', 'channels', 'platforms', 'channelPriority', 'virtualPackages', 'excludeNewer', 'environment', 'lock', 'update', 'pypi', 'pypiOptions', 'resolution', 'condaPypiMap'] as const;
const RESOLVE_OPTION_FIELDS = ['cacheDir', 'offline', 'refresh', 'store', 'solver', 'timeoutMs', 'signal', 'env', 'cwd', 'defaultChannels'] as const;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `the ${typeof value} ${String(value)}`;
    case 'undefined':
      return 'undefined';
    case 'object':
      return value instanceof Date ? 'a Date' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}

function invalid(code: ErrorCode, argument: string, expected: string, value: unknown, hint = ''): InvalidArgumentError {
  return new InvalidArgumentError(code, argument, `Invalid argument ${argument}: expected ${expected}, not ${describe(value)}${hint}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object (or, when `optional`, undefined or null, read as {}) with only the known fields. */
function checkObject(value: unknown, argument: string, fields: readonly string[], optional = true): Record<string, unknown> {
  if (optional && (value === undefined || value === null)) return {};
  if (!isPlainObject(value)) throw invalid('CR_ERR_INPUT_OPTION', argument, `an object with the fields ${fields.join(', ')}`, value);
  for (const key of Object.keys(value)) {
    if (!fields.includes(key)) {
      const stem = key.toLowerCase().replace(/s$/, '');
      const near = stem.length < 3 ? undefined : fields.find((f) => f.toLowerCase().startsWith(stem) || stem.startsWith(f.toLowerCase()));
      throw new InvalidArgumentError(
        'CR_ERR_INPUT_OPTION',
        `${argument}.${key}`,
        `Invalid argument ${argument}: unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}; the fields are ${fields.join(', ')}`,
      );
    }
  }
  return value;
}

function checkStrings(value: unknown, argument: string, code: ErrorCode, example: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    const hint = typeof value === 'string' ? `; write ${argument.replace(/^.*\./, '')}: [${JSON.stringify(value)}]` : '';
    throw invalid(code, argument, `an array of strings such as ${example}`, value, hint);
  }
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string') throw invalid(code, `${argument}[${i}]`, 'a string', item);
  });
}

function checkRequest(request: unknown): asserts request is ResolveRequest {
  if (!isPlainObject(request)) {
    throw invalid('CR_ERR_INPUT_OPTION', 'request', 'an object such as { specs: ["python=3.12"], platforms: ["linux-64"] }', request);
  }
  checkObject(request, 'request', REQUEST_FIELDS, false);
  checkStrings(request.specs, 'request.specs', 'CR_ERR_INPUT_SPEC', '["python=3.12", "numpy"]');
  checkStrings(request.channels, 'request.channels', 'CR_ERR_INPUT_CHANNEL', '["conda-forge"]');
  checkStrings(request.platforms, 'request.platforms', 'CR_ERR_INPUT_PLATFORM', '["linux-64", "osx-arm64"]');
  checkStrings(request.virtualPackages, 'request.virtualPackages', 'CR_ERR_INPUT_OPTION', '["__glibc=2.17"]');
  if (request.files !== undefined) {
    if (!Array.isArray(request.files)) throw invalid('CR_ERR_INPUT_OPTION', 'request.files', 'an array of { filename, content }', request.files);
    request.files.forEach((file: unknown, i) => {
      const where = `request.files[${i}]`;
      if (!isPlainObject(file)) throw invalid('CR_ERR_INPUT_OPTION', where, 'an object { filename, content }', file);
      checkObject(file, where, ['filename', 'content'], false);
      if (typeof file.filename !== 'string' || file.filename === '') {
        throw invalid('CR_ERR_INPUT_OPTION', `${where}.filename`, 'a file name such as "environment.yml"', file.filename);
      }
      if (typeof file.content !== 'string') throw invalid('CR_ERR_INPUT_OPTION', `${where}.content`, "the file's text, a string", file.content);
    });
  }
  if (request.environment !== undefined && typeof request.environment !== 'string') {
    throw invalid('CR_ERR_INPUT_OPTION', 'request.environment', 'an environment name such as "default"', request.environment);
  }
  if (request.lock !== undefined && (!isPlainObject(request.lock) || typeof request.lock.filename !== 'string' || typeof request.lock.content !== 'string')) {
    throw invalid('CR_ERR_INPUT_OPTION', 'request.lock', 'a lock file { filename: "pixi.lock", content }', request.lock);
  }
  checkStrings(request.update, 'request.update', 'CR_ERR_INPUT_OPTION', '["openssl"]');
  checkStrings(request.pypi, 'request.pypi', 'CR_ERR_INPUT_SPEC', '["requests>=2.31", "rich"]');
  if (request.pypiOptions !== undefined) {
    if (!isPlainObject(request.pypiOptions)) throw invalid('CR_ERR_INPUT_OPTION', 'request.pypiOptions', 'an object { indexUrl, extraIndexUrls, findLinks, indexStrategy, prerelease }', request.pypiOptions);
    const o = checkObject(request.pypiOptions, 'request.pypiOptions', ['indexUrl', 'extraIndexUrls', 'findLinks', 'indexStrategy', 'prerelease'], false);
    for (const key of ['indexUrl', 'indexStrategy', 'prerelease']) {
      if (o[key] !== undefined && typeof o[key] !== 'string') throw invalid('CR_ERR_INPUT_OPTION', `request.pypiOptions.${key}`, 'a string', o[key]);
    }
    checkStrings(o.extraIndexUrls, 'request.pypiOptions.extraIndexUrls', 'CR_ERR_INPUT_OPTION', '["https://example.org/simple"]');
    checkStrings(o.findLinks, 'request.pypiOptions.findLinks', 'CR_ERR_INPUT_OPTION', '["./wheels"]');
  }
  if (request.resolution !== undefined && typeof request.resolution !== 'string') {
    throw invalid('CR_ERR_INPUT_OPTION', 'request.resolution', 'one of "highest", "lowest", "lowest-direct"', request.resolution);
  }
  if (request.condaPypiMap !== undefined && !isPlainObject(request.condaPypiMap)) {
    throw invalid('CR_ERR_INPUT_OPTION', 'request.condaPypiMap', 'an object { channel: { condaName: pypiName | null } }', request.condaPypiMap);
  }
  if (request.channelPriority !== undefined && typeof request.channelPriority !== 'string') {
    throw invalid('CR_ERR_INPUT_OPTION', 'request.channelPriority', 'one of "strict", "flexible", "disabled"', request.channelPriority);
  }
  if (request.excludeNewer !== undefined && typeof request.excludeNewer !== 'string') {
    const hint = request.excludeNewer instanceof Date ? '; use date.toISOString()' : '';
    throw invalid('CR_ERR_INPUT_DATE', 'request.excludeNewer', 'an ISO 8601 date string such as "2024-05-01"', request.excludeNewer, hint);
  }
}

function checkResolveOptions(options: unknown): ResolveEnvironmentsOptions {
  const opts = checkObject(options, 'options', RESOLVE_OPTION_FIELDS);
  const option = (name: string, ok: (value: unknown) => boolean, expected: string) => {
    if (opts[name] !== undefined && !ok(opts[name])) throw invalid('CR_ERR_INPUT_OPTION', `options.${name}`, expected, opts[name]);
  };
  option('cacheDir', (v) => typeof v === 'string' && v !== '', 'a directory path');
  option('cwd', (v) => typeof v === 'string' && v !== '', 'a directory path');
  option('offline', (v) => typeof v === 'boolean', 'true or false');
  option('refresh', (v) => typeof v === 'boolean', 'true or false');
  option('timeoutMs', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0, 'a number of milliseconds above 0');
  option('signal', (v) => v instanceof AbortSignal, 'an AbortSignal');
  option('store', (v) => v instanceof RepodataStore, 'a RepodataStore');
  option('solver', (v) => isPlainObject(v) && typeof v.solve === 'function', 'a PlatformSolver (an object with a solve method)');
  option('env', (v) => isPlainObject(v) && Object.values(v).every((e) => e === undefined || typeof e === 'string'), 'an object of string values');
  checkStrings(opts.defaultChannels, 'options.defaultChannels', 'CR_ERR_INPUT_CHANNEL', '["conda-forge"]');
  return opts as ResolveEnvironmentsOptions;
}

function checkResolution(resolution: unknown): asserts resolution is Resolution {
  const expected = 'a Resolution, as resolveEnvironments returns';
  if (!isPlainObject(resolution) || !Array.isArray(resolution.platforms) || !isPlainObject(resolution.request)) {
    throw invalid('CR_ERR_INPUT_OPTION', 'resolution', expected, resolution);
  }
  if (!Array.isArray(resolution.request.channels)) throw invalid('CR_ERR_INPUT_OPTION', 'resolution.request.channels', 'an array of channels', resolution.request.channels);
  resolution.platforms.forEach((p: unknown, i) => {
    const ok =
      isPlainObject(p) &&
      typeof p.platform === 'string' &&
      (p.records === null || Array.isArray(p.records)) &&
      (p.error === null || typeof p.error === 'string');
    if (!ok) throw invalid('CR_ERR_INPUT_OPTION', `resolution.platforms[${i}]`, 'a PlatformResolution { platform, records, error, errorCode }', p);
  });
}
