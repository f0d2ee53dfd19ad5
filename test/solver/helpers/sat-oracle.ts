/**
 * An independent referee for small problems: the same package semantics written as plain
 * propositional logic and handed to logic-solver (MiniSat). Used by the property tests to check
 * satisfiability, validity of our answers, and optimality in conda's order.
 */
import Logic, { type Solver } from 'logic-solver';

export interface OracleProblem {
  readonly packageCount: number;
  nameOf(id: number): string;
  /** For each root spec, the ids that satisfy it. */
  readonly roots: readonly (readonly number[])[];
  /** For each of the package's requirements, the ids that satisfy it. */
  requires(id: number): readonly (readonly number[])[];
  /** Ids the package's constrains entries reject. */
  rejects(id: number): readonly number[];
  /** Ids that may never be selected. */
  readonly excluded?: ReadonlySet<number>;
}

const v = (id: number): string => `p${id}`;

function buildSolver(problem: OracleProblem): Solver {
  const solver = new Logic.Solver();
  const byName = new Map<string, string[]>();
  for (let id = 0; id < problem.packageCount; id++) {
    const name = problem.nameOf(id);
    let list = byName.get(name);
    if (!list) byName.set(name, (list = []));
    list.push(v(id));
    if (problem.excluded?.has(id)) solver.forbid(v(id));
    for (const options of problem.requires(id)) {
      solver.require(Logic.implies(v(id), options.length ? Logic.or(...options.map(v)) : Logic.or()));
    }
    for (const other of problem.rejects(id)) solver.forbid(Logic.and(v(id), v(other)));
  }
  for (const list of byName.values()) if (list.length > 1) solver.require(Logic.atMostOne(...list));
  for (const options of problem.roots) solver.require(options.length ? Logic.or(...options.map(v)) : Logic.or());
  return solver;
}

/** A referee for one problem; the MiniSat instance is built once and queried under assumptions. */
export class Oracle {
  readonly #solver: Solver;

  constructor(readonly problem: OracleProblem) {
    this.#solver = buildSolver(problem);
  }

  /** A solution where every id in `fixed` is selected and (if given) one of `anyOf`, or null. */
  solve(fixed: readonly number[] = [], anyOf?: readonly number[]): number[] | null {
    if (anyOf && anyOf.length === 0) return null;
    const assumptions = [...fixed.map(v), ...(anyOf ? [Logic.or(...anyOf.map(v))] : [])];
    const solution = assumptions.length ? this.#solver.solveAssuming(Logic.and(...assumptions)) : this.#solver.solve();
    return solution
      ? solution
          .getTrueVars()
          .map((name: string) => Number(name.slice(1)))
          .sort((a, b) => a - b)
      : null;
  }
}

/** Every way `selected` breaks the problem's rules; empty when it is a valid solution. */
export function violations(problem: OracleProblem, selected: readonly number[]): string[] {
  const problems: string[] = [];
  const chosen = new Set(selected);
  const names = new Map<string, number>();
  for (const id of selected) {
    const name = problem.nameOf(id);
    if (names.has(name)) problems.push(`two records of ${name}: ${names.get(name)} and ${id}`);
    names.set(name, id);
    if (problem.excluded?.has(id)) problems.push(`excluded ${id} selected`);
    problem.requires(id).forEach((options, i) => {
      if (!options.some((o) => chosen.has(o))) problems.push(`${id} requirement ${i} unsatisfied`);
    });
    for (const other of problem.rejects(id)) if (chosen.has(other)) problems.push(`${id} constrains away ${other}`);
  }
  problem.roots.forEach((options, i) => {
    if (!options.some((o) => chosen.has(o))) problems.push(`root spec ${i} unsatisfied`);
  });
  return problems;
}

/**
 * Checks conda's optimality order: for each root spec in turn, with the records chosen for the
 * earlier specs kept, no valid solution selects a strictly more preferred record for this spec.
 * `compare(a, b) < 0` means a is preferred. Returns a description of the first violation or null.
 */
export function optimalityViolation(oracle: Oracle, selected: readonly number[], compare: (a: number, b: number) => number): string | null {
  const problem = oracle.problem;
  const fixed: number[] = [];
  for (let i = 0; i < problem.roots.length; i++) {
    const options = problem.roots[i];
    const chosen = options.find((o) => selected.includes(o));
    if (chosen === undefined) return `root spec ${i} has no selected record`;
    const better = options.filter((o) => compare(o, chosen) < 0);
    if (better.length > 0 && oracle.solve(fixed, better)) {
      return `root spec ${i}: chose ${chosen} but one of ${better.join(',')} fits with ${fixed.join(',') || 'nothing fixed'}`;
    }
    fixed.push(chosen);
  }
  return null;
}
