/** `resolveEnvironments`: the library's way into the resolve pipeline, the same path the CLI takes. */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { PypiIndexClient } from '../../repodata/pypi/client.js';
import { RepodataStore, defaultCacheDir } from '../../repodata/store.js';
import { hostSubdir } from '../../vocabulary/platform.js';
import type { PreparedPypi } from '../pypi/request.js';
import { prepareRequest, type ResolveRequest } from '../request.js';
import { resolvePrepared, type Resolution } from '../resolve.js';
import { InProcessSolver } from '../solving/platform-runner.js';
import type { PlatformSolver } from '../solving/types.js';
import { checkRequest, checkResolveOptions } from './argument-schemas.js';
import { abortError } from './errors.js';

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
    opts.store ??
    new RepodataStore({
      cacheDir: opts.cacheDir ?? defaultCacheDir(env),
      offline: opts.offline,
      refresh: opts.refresh,
      indexBytes: 'positional',
    });
  // resolvePrepared reports failures (an abort too) per platform and never rejects.
  const cacheDir = opts.cacheDir ?? defaultCacheDir(env);
  const pypiClient = (pypi: PreparedPypi): PypiIndexClient =>
    new PypiIndexClient({
      indexUrl: pypi.indexUrl,
      extraIndexUrls: pypi.extraIndexUrls,
      findLinks: pypi.findLinks,
      strategy: pypi.indexStrategy,
      cacheDir,
      offline: opts.offline,
      refresh: opts.refresh,
    });
  const work = resolvePrepared(
    prepared,
    { store, solver: opts.solver ?? new InProcessSolver(), env, pypiClient },
    { timeoutMs: opts.timeoutMs, signal },
  );
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
