/**
 * Finds which of the user's specs to blame, then explains it.
 *
 * conda takes specs in the order given, so the culprit is the first spec that cannot join the
 * ones before it: the shortest unsatisfiable prefix, found by bisection (unsatisfiability only
 * grows as specs are added). Its unsat core then drives `buildExplanation`, and the earlier specs
 * appear in it as "the requested ...".
 */
import type { VersionSetId } from '../ids.js';
import type { DependencyProvider } from '../provider.js';
import { CoreSolver, type CoreOutcome, type CoreSolverOptions } from '../solver.js';
import { buildExplanation } from './explain.js';
import type { ExplainInterner } from './interner.js';
import type { Explanation } from './types.js';

export interface UnsatInput {
  readonly provider: DependencyProvider;
  readonly interner: ExplainInterner;
  /** The user's specs as shown to them, and their version sets, in order. */
  readonly specs: readonly string[];
  readonly specVersionSets: readonly VersionSetId[];
  /** Requirements that are always present (virtual packages), placed before the specs. */
  readonly fixed: readonly VersionSetId[];
  readonly options: CoreSolverOptions;
  /** The solver and outcome of the full request, already known to be unsatisfiable. */
  readonly solver: CoreSolver;
  readonly outcome: Extract<CoreOutcome, { kind: 'unsat' }>;
}

export function explainUnsatisfiable(input: UnsatInput): Explanation {
  const { specs } = input;
  let solver = input.solver;
  let outcome = input.outcome;
  let low = 0;
  let high = specs.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    const attempt = new CoreSolver(input.provider, input.options);
    const result = attempt.solve([...input.fixed, ...input.specVersionSets.slice(0, middle + 1)]);
    if (result.kind === 'cancelled') break;
    if (result.kind === 'unsat') {
      high = middle;
      solver = attempt;
      outcome = result;
    } else {
      low = middle + 1;
    }
  }
  // When cancelled while bisecting, blame the last spec the proof at hand uses.
  const culprit = low < high ? lastSpecInCore(input, solver, outcome) : high;
  return buildExplanation({
    solver,
    core: outcome.core,
    complete: outcome.complete,
    provider: input.provider,
    interner: input.interner,
    specs,
    specVersionSets: input.specVersionSets,
    culprit,
  });
}

function lastSpecInCore(input: UnsatInput, solver: CoreSolver, outcome: Extract<CoreOutcome, { kind: 'unsat' }>): number {
  let last = 0;
  for (const clause of outcome.core) {
    const described = solver.describe(clause);
    if (described.kind !== 'requires' || described.parent !== null) continue;
    const index = input.specVersionSets.indexOf(described.versionSet);
    if (index > last) last = index;
  }
  return last;
}
