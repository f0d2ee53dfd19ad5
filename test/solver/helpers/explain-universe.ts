/** Solves a textual universe and, when it has no solution, renders the explanation. */
import { explainUnsatisfiable } from '../../../solver/core/explain/unsat.js';
import { renderExplanation } from '../../../solver/core/explain/render.js';
import { CoreSolver } from '../../../solver/core/solver.js';
import { parseUniverse, UniverseProvider } from './universe.js';

export function explainUniverse(universe: string, specs: string[], excluded?: Map<number, string>): string {
  const provider = new UniverseProvider(parseUniverse(universe), { excluded });
  const versionSets = specs.map((s) => provider.versionSet(s));
  const solver = new CoreSolver(provider);
  const outcome = solver.solve(versionSets);
  if (outcome.kind !== 'unsat') return `(${outcome.kind})`;
  const explanation = explainUnsatisfiable({
    provider,
    interner: provider,
    specs,
    specVersionSets: versionSets,
    fixed: [],
    options: {},
    solver,
    outcome,
  });
  return renderExplanation(explanation);
}
