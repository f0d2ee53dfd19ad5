// The part of logic-solver (MiniSat compiled to JavaScript) the oracle uses; it ships no types.
declare module 'logic-solver' {
  export type Formula = string | object;
  export class Solver {
    require(...formulas: Formula[]): void;
    forbid(...formulas: Formula[]): void;
    solve(): Solution | null;
    solveAssuming(formula: Formula): Solution | null;
  }
  export interface Solution {
    getTrueVars(): string[];
  }
  export function or(...formulas: Formula[]): Formula;
  export function and(...formulas: Formula[]): Formula;
  export function not(formula: Formula): Formula;
  export function implies(a: Formula, b: Formula): Formula;
  export function atMostOne(...formulas: Formula[]): Formula;
  const Logic: {
    Solver: typeof Solver;
    or: typeof or;
    and: typeof and;
    not: typeof not;
    implies: typeof implies;
    atMostOne: typeof atMostOne;
  };
  export default Logic;
}
