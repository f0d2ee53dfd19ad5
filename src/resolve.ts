/**
 * One resolve: for each requested platform, load the channels' platform and noarch indexes and run
 * one solve. Platforms run concurrently; a failure on one (a channel that cannot be loaded, no
 * solution, a timeout) becomes that platform's sanitized error and leaves the others alone.
 */
import type { RepodataStore } from '../repodata/store.js';
import type { DecodingBudget } from '../repodata/decoding-budget.js';
import type { SubdirIndex } from '../repodata/types.js';
import type { Explanation } from '../solver/index.js';
import type { Channel } from '../vocabulary/channel.js';
import type { PackageRecord } from '../vocabulary/record.js';
import type { PypiRecord } from '../vocabulary/pypi-record.js';
import { virtualPackages } from '../vocabulary/virtual-packages.js';
import { CondaResolveError, userMessage } from './errors.js';
import type { ExportEnvironment } from './exporters/types.js';
import { missingName, missingNameHint } from './missing-name.js';
import { nativeExplanation } from './explanation-data.js';
import { followSignal } from '../repodata/follow-signal.js';
import { byName, nativePackage, nativePypiPackage, type SolveResult } from './native-result.js';
import { specsOn, subdirOn, virtualPackagesOn, type PreparedRequest } from './request.js';
import type { MixedAnswerSource, PlatformSolver } from './solving/types.js';
import { timerDelay } from './clock.js';
import type { PypiIndexClient } from '../repodata/pypi/client.js';
import type { PypiDataStore } from './pypi/data.js';
import type { PreparedPypi } from './pypi/request.js';

export interface PlatformResolution {
  readonly platform: string;
  /** Sorted by name; null when the platform failed. */
  readonly records: readonly PackageRecord[] | null;
  readonly error: string | null;
  readonly errorCode: string | null;
  /** Why no solution exists, as structured data, when the platform is unsatisfiable; else null. */
  readonly explanation: Explanation | null;
  /** The PyPI distributions installed beside `records` (sorted by name), when the request has PyPI requirements. */
  readonly pypi?: readonly PypiRecord[];
}

export interface Resolution {
  readonly request: PreparedRequest;
  readonly platforms: readonly PlatformResolution[];
}

export interface ResolveDeps {
  readonly store: RepodataStore;
  readonly solver: PlatformSolver;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Replace local paths in error text (the server does; the CLI shows the user their own paths). */
  readonly hidePaths?: boolean;
  /**
   * The simple-index client for a request's PyPI part (the CLI's and the server's carry their cache,
   * network and URL policy); by default one on the cache directory of `env`. Closed after the resolve.
   */
  readonly pypiClient?: (pypi: PreparedPypi) => PypiIndexClient;
  /** Most PyPI projects one request may fetch. */
  readonly maxPypiProjects?: number;
}

export interface ResolveOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /** Told when each platform starts and ends, for progress displays. */
  readonly onPlatform?: (platform: string, phase: 'load' | 'solve' | 'done' | 'failed') => void;
  /**
   * Channels the user has but did not ask for here (configured ones `--override-channels` left
   * out): a name no requested channel has is looked up there, only to say so in the error.
   */
  readonly unrequestedChannels?: readonly Channel[];
  /** The request's own repodata decoding budget (the server gives each request one). */
  readonly decodingBudget?: DecodingBudget;
}

export async function resolvePrepared(request: PreparedRequest, deps: ResolveDeps, options: ResolveOptions = {}): Promise<Resolution> {
  // A lock file is the environment: its records are the answer, nothing is loaded or solved.
  if (request.locked) {
    const locked = request.locked;
    return {
      request,
      platforms: request.platforms.map((platform) => ({
        platform,
        records: locked.get(platform) ?? [],
        error: null,
        errorCode: null,
        explanation: null,
      })),
    };
  }
  const pypi = request.pypi;
  // Loaded only for PyPI requirements: it brings the HTTP stack, which a conda-only run never loads.
  const side = pypi ? await import('./pypi/pipeline.js') : undefined;
  const client = pypi && side ? (deps.pypiClient ?? side.defaultPypiClient(deps.env))(pypi) : undefined;
  const data = client && side ? side.pypiDataStore(client) : undefined;
  // The PyPI walk starts now, beside the conda repodata loads below; not where an answer store may
  // hold the answer (the server's cache), whose hits must cost no metadata fetches.
  const answers = (deps.solver as MixedAnswerSource).mixedAnswers;
  const prefetch =
    pypi && side && data && !answers
      ? side.prefetchPypi(pypi, request.platforms, data, {
          resolution: request.resolution ?? 'highest',
          signal: options.signal,
          maxProjects: deps.maxPypiProjects,
          // A re-lock's guess is the locked release (the first platform's pins: a guess, checked later).
          ...(request.previousLock ? { locked: request.previousLock.pypiPreferredOn(request.platforms[0]!) } : {}),
        })
      : undefined;
  try {
    const platforms = await Promise.all(
      request.platforms.map((platform) => {
        const names = specsOn(request, platform).map((spec) => spec.name);
        if (pypi && side) {
          // The PyPI side needs the conda pythons, and the conda packages that may provide its roots.
          const mapping = side.condaPypiMapping(pypi.mappingOverrides);
          names.push(
            'python',
            ...side.pypiRequirementsOn(pypi, platform).flatMap((r) => mapping.providers(side.normalizePypiName(r.name))),
          );
        }
        const rootNames = [...new Set(names.filter((n) => n !== '' && n !== '*'))];
        return resolvePlatform(
          platform,
          request,
          rootNames,
          deps,
          options,
          data && side ? { data, solve: side.solvePlatformMixed } : undefined,
        );
      }),
    );
    return { request, platforms };
  } finally {
    await prefetch;
    await client?.close();
  }
}

async function resolvePlatform(
  platform: string,
  request: PreparedRequest,
  rootNames: readonly string[],
  deps: ResolveDeps,
  options: ResolveOptions,
  pypiSide: { readonly data: PypiDataStore; readonly solve: typeof import('./pypi/solve-platform.js').solvePlatformMixed } | undefined,
): Promise<PlatformResolution> {
  const fail = (error: string, errorCode: string, explanation: Explanation | null = null): PlatformResolution => {
    options.onPlatform?.(platform, 'failed');
    return { platform, records: null, error, errorCode, explanation };
  };
  // The time limit covers the whole platform: fetching and indexing repodata as well as solving.
  const started = Date.now();
  // One follower of the caller's signal that the deadline aborts too (not `AbortSignal.any`: follow-signal.ts).
  const deadline = options.timeoutMs !== undefined ? followSignal(options.signal) : null;
  let timedOut: PlatformTimeoutError | undefined;
  const timer = deadline
    ? setTimeout(() => deadline.abort((timedOut = new PlatformTimeoutError(options.timeoutMs!))), timerDelay(options.timeoutMs!))
    : null;
  const signal = deadline ? deadline.signal : options.signal;
  try {
    options.onPlatform?.(platform, 'load');
    // A lock's named platform (`p2`) loads and solves for its subdir.
    const subdir = subdirOn(request, platform);
    const subdirs = [subdir, 'noarch'];
    const loading = { signal, budget: options.decodingBudget };
    const indexes: SubdirIndex[] = await deps.store.prepare(request.channels, subdirs, rootNames, loading);
    const channels = request.channels.map((channel, i) => ({
      name: channel.name,
      sources: indexes.slice(i * subdirs.length, (i + 1) * subdirs.length),
    }));
    options.onPlatform?.(platform, 'solve');
    const input = {
      specs: specsOn(request, platform),
      channels,
      virtualPackages: virtualPackages(subdir, deps.env, virtualPackagesOn(request, platform)),
      channelPriority: request.channelPriority,
      excludeNewer: request.excludeNewer,
      locked: request.previousLock?.preferredOn(platform),
      timeoutMs: options.timeoutMs !== undefined ? Math.max(1, options.timeoutMs - (Date.now() - started)) : undefined,
    };
    // A request with PyPI requirements solves both ecosystems in one problem, in this thread (its
    // fetches and solves interleave); the solver's answer store, when it has one, caches the answer.
    const outcome =
      request.pypi && pypiSide
        ? await pypiSide.solve(input, subdir, request.pypi, pypiSide.data, {
            resolution: request.resolution ?? 'highest',
            signal,
            maxProjects: deps.maxPypiProjects,
            answers: (deps.solver as MixedAnswerSource).mixedAnswers,
            ...(request.previousLock ? { locked: request.previousLock.pypiPreferredOn(platform) } : {}),
          })
        : await deps.solver.solve(
            request.resolution && request.resolution !== 'highest' ? { ...input, resolution: request.resolution } : input,
            signal,
          );
    if (outcome.kind === 'solved') {
      options.onPlatform?.(platform, 'done');
      const pypiRecords = 'pypi' in outcome ? (outcome.pypi as readonly PypiRecord[]) : undefined;
      return {
        platform,
        records: [...outcome.records].sort(byName),
        error: null,
        errorCode: null,
        explanation: null,
        ...(pypiRecords ? { pypi: pypiRecords } : {}),
      };
    }
    if (outcome.kind === 'unsatisfiable') {
      const missing = missingName(outcome.explanation);
      const hint =
        missing === null
          ? ''
          : await missingNameHint({
              name: missing,
              platform: subdir,
              request,
              searched: indexes,
              loadPlatform: (other) => deps.store.prepare(request.channels, [other, 'noarch'], [missing], loading),
              unrequested: options.unrequestedChannels ?? [],
              loadChannel: (channel) => deps.store.prepare([channel], [subdir, 'noarch'], [missing], loading),
            });
      // The hint names channels, which may be the server's local paths: hidden from remote clients.
      const shown =
        hint && deps.hidePaths ? userMessage(new CondaResolveError('CR_ERR_SOLVE_UNSATISFIABLE', hint), { hidePaths: true }) : hint;
      return fail(shown ? `${outcome.message}. ${shown}` : outcome.message, 'CR_ERR_SOLVE_UNSATISFIABLE', outcome.explanation);
    }
    return fail(outcome.message, outcome.code);
  } catch (caught) {
    // Past the deadline, whatever the abort surfaced as, the platform timed out.
    const error = timedOut && !options.signal?.aborted ? timedOut : caught;
    const code = (error as { code?: unknown })?.code;
    return fail(userMessage(error, { hidePaths: deps.hidePaths }), typeof code === 'string' ? code : 'CR_ERR_INTERNAL');
  } finally {
    if (timer) clearTimeout(timer);
    deadline?.unlink();
  }
}

/** A platform's time limit ran out before its solve could finish (while loading repodata, say). */
class PlatformTimeoutError extends CondaResolveError {
  constructor(ms: number) {
    const seconds = ms / 1000;
    super(
      'CR_ERR_SOLVE_TIMEOUT',
      `Resolve exceeded the time limit of ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s (loading repodata and solving)`,
    );
  }
}

export function toNative(resolution: Resolution): SolveResult[] {
  return resolution.platforms.map((p) => ({
    platform: p.platform,
    packages: p.records ? [...p.records.map(nativePackage), ...pypiOf(resolution, p).map(nativePypiPackage)] : [],
    error: p.error,
    // After `error`, on failed platforms only: a solved platform keeps its three fields.
    ...(p.error !== null ? { explanation: p.explanation ? nativeExplanation(p.explanation) : null } : {}),
  }));
}

/** The environments handed to exporters: no name, no prefix, records sorted by name. */
export function exportEnvironments(resolution: Resolution): ExportEnvironment[] {
  const channels = resolution.request.channels.map((c) => c.name);
  const kept = resolution.request.kept;
  const solvedIndexes = resolution.request.pypi ? [resolution.request.pypi.indexUrl, ...resolution.request.pypi.extraIndexUrls] : [];
  return resolution.platforms.map((p) => {
    const pypi = pypiOf(resolution, p);
    return {
      platform: p.platform,
      records: p.records ?? [],
      channels,
      ...(pypi.length > 0 ? { pypi } : {}),
      ...(kept && kept.pypiIndexes.length > 0
        ? { pypiIndexes: kept.pypiIndexes }
        : solvedIndexes.length > 0
          ? { pypiIndexes: solvedIndexes }
          : {}),
      ...(kept?.details ? { lock: kept.details } : {}),
    };
  });
}

/** A platform's PyPI distributions: those the solve chose, else those a lock input keeps. */
function pypiOf(resolution: Resolution, platform: PlatformResolution): readonly PypiRecord[] {
  return platform.pypi ?? resolution.request.kept?.pypi.get(platform.platform) ?? [];
}
