/**
 * conda-resolve as a library: resolve environments for several platforms and render them in any
 * export format, the same path the CLI takes. Lower layers have their own entry points:
 * `conda-resolve/solver` (the pure solver, no I/O), `conda-resolve/repodata` (channels, fetching,
 * caching) and `conda-resolve/vocabulary` (versions, match specs, records, platforms).
 *
 *   import { resolveEnvironments, exportResolution } from 'conda-resolve';
 *   const resolution = await resolveEnvironments({ specs: ['python=3.12'], platforms: ['linux-64', 'win-64'] });
 *   const lock = exportResolution(resolution, 'pixi');
 */
import { RepodataStore, defaultCacheDir } from '../repodata/store.js';
import { hostSubdir } from '../vocabulary/platform.js';
import { CondaResolveError } from './errors.js';
import { registerBuiltinExporters, render, type ExporterRegistry } from './exporters/index.js';
import { InProcessSolver, type PlatformSolver } from './platform-solver.js';
import { prepareRequest, type ResolveRequest } from './request.js';
import { exportEnvironments, resolvePrepared, type Resolution } from './resolve.js';
import { TOOL_NAME, TOOL_VERSION } from './version.js';

export { CondaResolveError, ERROR_CODES, userMessage } from './errors.js';
export type { ExportEnvironment, Exporter, ExportContext } from './exporters/index.js';
export { ExporterRegistry, UnknownFormatError, loadRegistry, registerBuiltinExporters } from './exporters/index.js';
export type { NativePackage, SolveResult } from './native-result.js';
export { InProcessSolver, PooledSolver, type PlatformSolver, type PlatformSolveInput, type PlatformSolveOutcome } from './platform-solver.js';
export { prepareRequest, type InputFile, type PreparedRequest, type ResolveRequest } from './request.js';
export { exportEnvironments, resolvePrepared, toNative, type PlatformResolution, type Resolution } from './resolve.js';
export { SolvePool, type SolvePoolOptions } from './solve-pool.js';
export { TOOL_NAME, TOOL_VERSION } from './version.js';

export interface ResolveEnvironmentsOptions {
  /** Repodata cache; default the user cache directory (as the CLI). Ignored when `store` is given. */
  readonly cacheDir?: string;
  readonly offline?: boolean;
  readonly refresh?: boolean;
  /** A store to share between calls (it keeps loaded indexes in memory); the caller closes it. */
  readonly store?: RepodataStore;
  /** Where solves run; default this thread. A `PooledSolver` runs them on worker threads. */
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
 * Solves one environment per platform. Bad input (a spec, a file, a platform) throws a
 * `CondaResolveError`; a platform that cannot be solved is reported in its `PlatformResolution`
 * (`error`, `errorCode`) and never fails the others.
 */
export async function resolveEnvironments(request: ResolveRequest, options: ResolveEnvironmentsOptions = {}): Promise<Resolution> {
  const env = options.env ?? process.env;
  const prepared = prepareRequest(request, {
    env,
    cwd: options.cwd ?? process.cwd(),
    hostPlatform: hostSubdir(process.platform, process.arch),
    defaultChannels: options.defaultChannels ?? ['conda-forge'],
  });
  const store =
    options.store ??
    new RepodataStore({ cacheDir: options.cacheDir ?? defaultCacheDir(env), offline: options.offline, refresh: options.refresh, indexBytes: 'positional' });
  try {
    return await resolvePrepared(prepared, { store, solver: options.solver ?? new InProcessSolver(), env }, { timeoutMs: options.timeoutMs, signal: options.signal });
  } finally {
    if (!options.store) await store.close();
  }
}

/**
 * The text of an export format (a name or alias, e.g. `explicit`, `environment-yaml`, `pixi`,
 * `conda-lock`) for a resolution whose platforms all solved. `registry` defaults to the built-in
 * exporters; `loadRegistry()` adds installed plugins. `now` is the lock files' `created_at`.
 */
export function exportResolution(resolution: Resolution, format: string, options: { registry?: ExporterRegistry; now?: Date } = {}): string {
  const failed = resolution.platforms.filter((p) => p.error !== null);
  if (failed.length > 0) {
    const which = failed.map((p) => p.platform).join(', ');
    throw new CondaResolveError('CR_ERR_EXPORT_UNSOLVED', `Cannot export ${format}: ${which} did not solve (${failed[0]!.error})`);
  }
  const registry = options.registry ?? registerBuiltinExporters();
  const environments = exportEnvironments(resolution);
  return render(registry, format, environments, { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now: options.now ?? new Date() }).text;
}
