/**
 * One solve over conda and PyPI: the conda provider for the channels, the mixed provider on top of
 * it, one search. Synchronous and free of I/O: PyPI data the search reaches but the caller has not
 * fetched ends the solve with `PypiDataNeeded` (the caller fetches and solves again).
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { explainUnsatisfiable } from '../core/explain/unsat.js';
import { renderExplanation } from '../core/explain/render.js';
import type { Explanation } from '../core/explain/types.js';
import { CoreSolver, type CoreSolverOptions } from '../core/solver.js';
import { SolveAbortedError, SolveTimeoutError } from '../errors.js';
import { condaProviderFor, makeCancellation } from '../conda/solve.js';
import type { SpecParser } from '../conda/spec.js';
import type { SolveRequest } from '../conda/types.js';
import { vocabularySpecParser } from '../conda/vocabulary-spec.js';
import { MixedProvider } from './provider.js';
import type { PypiSolveInput } from './types.js';

export type MixedSolveOutcome =
  | { readonly kind: 'solved'; readonly records: PackageRecord[]; readonly pypi: PypiRecord[] }
  | { readonly kind: 'unsatisfiable'; readonly explanation: Explanation; readonly message: string };

export interface MixedSolveRequest extends SolveRequest {
  readonly pypi: PypiSolveInput;
}

export function solveMixed(request: MixedSolveRequest, parseSpec: SpecParser = vocabularySpecParser): MixedSolveOutcome {
  const started = Date.now();
  if (request.signal?.aborted) throw new SolveAbortedError();
  const cancellation = makeCancellation(request.signal, request.timeoutMs, started);
  const options: CoreSolverOptions = cancellation ? { cancellation } : {};
  const rootSpecs = request.specs.map((spec) => parseSpec(spec));
  const condaProvider = condaProviderFor(request, parseSpec, rootSpecs, request.pypi.resolution);
  const provider = new MixedProvider(condaProvider, request.pypi);
  const condaRoots = request.specs.map(
    (spec, i) => 2 * condaProvider.rootVersionSet(typeof spec === 'string' ? spec : spec.source, rootSpecs[i]),
  );
  const fixed = [...new Set(request.virtualPackages.map((record) => record.name))].map((name) => 2 * condaProvider.anyOf(name));
  const pypiRoots: number[] = [];
  const pypiDisplays: string[] = [];
  for (const requirement of request.pypi.requirements) {
    for (const set of provider.rootVersionSets(requirement)) {
      pypiRoots.push(set);
      pypiDisplays.push(provider.displayVersionSet(set));
    }
  }
  const solver = new CoreSolver(provider, options);
  const outcome = solver.solve([...condaRoots, ...pypiRoots, ...fixed]);
  switch (outcome.kind) {
    case 'cancelled':
      if (outcome.reason === 'aborted') throw new SolveAbortedError();
      throw new SolveTimeoutError(request.timeoutMs ?? 0);
    case 'sat': {
      const records = outcome.solvables
        .filter((s) => provider.isCondaSolvable(s) && !condaProvider.isVirtual(provider.condaSolvable(s)))
        .map((s) => condaProvider.records[provider.condaSolvable(s)]);
      records.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { kind: 'solved', records, pypi: provider.pypiRecords(outcome.solvables) };
    }
    case 'unsat': {
      const explanation = explainUnsatisfiable({
        provider,
        interner: provider,
        specs: [...rootSpecs.map((spec) => spec.display()), ...pypiDisplays],
        specVersionSets: [...condaRoots, ...pypiRoots],
        fixed,
        options,
        solver,
        outcome,
      });
      return { kind: 'unsatisfiable', explanation, message: renderExplanation(explanation) };
    }
  }
}
