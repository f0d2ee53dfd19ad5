/**
 * One conda solve: parse the root specs, build the provider, run the core, and turn its outcome
 * into records, an explanation, or a typed error. Synchronous and free of I/O.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { explainUnsatisfiable } from '../core/explain/unsat.js';
import { renderExplanation } from '../core/explain/render.js';
import type { Explanation } from '../core/explain/types.js';
import type { Cancellation } from '../core/provider.js';
import { CoreSolver, type CoreSolverOptions, type SolverStats } from '../core/solver.js';
import { SolveAbortedError, SolveTimeoutError } from '../errors.js';
import { CondaProvider } from './provider.js';
import type { SolverSpec, SpecParser } from './spec.js';
import type { SolveRequest } from './types.js';

export type SolveOutcome =
  /** Sorted by name; virtual packages are not included. */
  | { readonly kind: 'solved'; readonly records: PackageRecord[] }
  /** `message` is the rendered explanation. */
  | { readonly kind: 'unsatisfiable'; readonly explanation: Explanation; readonly message: string };

export interface SolveDiagnostics {
  readonly stats: SolverStats;
}

export function solveWith(parseSpec: SpecParser, request: SolveRequest, diagnostics?: (d: SolveDiagnostics) => void): SolveOutcome {
  const started = Date.now();
  const cancellation = makeCancellation(request.signal, request.timeoutMs, started);
  if (request.signal?.aborted) throw new SolveAbortedError();
  // Each root spec is parsed here once (or arrives parsed) and keyed by its text as written.
  const rootSpecs = request.specs.map((spec) => parseSpec(spec));
  const provider = condaProviderFor(request, parseSpec, rootSpecs, request.resolution);
  const specVersionSets = request.specs.map((spec, i) =>
    provider.rootVersionSet(typeof spec === 'string' ? spec : spec.source, rootSpecs[i]),
  );
  const fixed = [...new Set(request.virtualPackages.map((record) => record.name))].map((name) => provider.anyOf(name));
  const options: CoreSolverOptions = { cancellation };
  const solver = new CoreSolver(provider, options);
  const outcome = solver.solve([...specVersionSets, ...fixed]);
  diagnostics?.({ stats: solver.stats });
  switch (outcome.kind) {
    case 'cancelled':
      if (outcome.reason === 'aborted') throw new SolveAbortedError();
      throw new SolveTimeoutError(request.timeoutMs ?? 0);
    case 'sat': {
      const records = outcome.solvables.filter((s) => !provider.isVirtual(s)).map((s) => provider.records[s]);
      records.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { kind: 'solved', records };
    }
    case 'unsat': {
      const explanation = explainUnsatisfiable({
        provider,
        interner: provider,
        specs: rootSpecs.map((spec) => spec.display()),
        specVersionSets,
        fixed,
        options,
        solver,
        outcome,
      });
      return { kind: 'unsatisfiable', explanation, message: renderExplanation(explanation) };
    }
  }
}

/** The conda provider of a request whose root specs are parsed already. */
export function condaProviderFor(
  request: SolveRequest,
  parseSpec: SpecParser,
  rootSpecs: readonly SolverSpec[],
  resolution: SolveRequest['resolution'],
): CondaProvider {
  return new CondaProvider({
    channels: request.channels,
    virtualPackages: request.virtualPackages,
    channelPriority: request.channelPriority ?? 'strict',
    excludeNewer: request.excludeNewer,
    parseSpec,
    rootSpecs,
    locked: request.locked && request.locked.length > 0 ? new Set(request.locked) : undefined,
    ...lowestFirst(resolution, rootSpecs),
  });
}

/** The provider option of a resolution strategy: lowest first for every name, or for the root names. */
export function lowestFirst(
  resolution: SolveRequest['resolution'],
  rootSpecs: readonly SolverSpec[],
): { lowestFirst?: (name: string) => boolean } {
  if (resolution === undefined || resolution === 'highest') return {};
  const direct = new Set(rootSpecs.map((s) => s.name));
  return { lowestFirst: (name) => resolution === 'lowest' || direct.has(name) };
}

export function makeCancellation(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  started: number,
): Cancellation | undefined {
  if (!signal && timeoutMs === undefined) return undefined;
  const deadline = timeoutMs === undefined ? Infinity : started + timeoutMs;
  return {
    check: () => {
      if (signal?.aborted) return 'aborted';
      if (Date.now() > deadline) return 'timeout';
      return null;
    },
  };
}
