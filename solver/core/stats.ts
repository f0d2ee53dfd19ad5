/** Counters of one search, for diagnostics and tests. */
export interface SolverStats {
  decisions: number;
  conflicts: number;
  propagations: number;
  restarts: number;
  learnt: number;
  /** Learnt clauses currently kept (the clean-up deletes the least useful half). */
  learntKept: number;
  clauses: number;
  variables: number;
  names: number;
}

export function emptyStats(): SolverStats {
  return { decisions: 0, conflicts: 0, propagations: 0, restarts: 0, learnt: 0, learntKept: 0, clauses: 0, variables: 0, names: 0 };
}
