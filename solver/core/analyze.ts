/**
 * Conflict analysis: first-UIP clause learning, the why pool that remembers what each learnt
 * clause was derived from, and the unsat core (the original clauses behind a conflict at level 0).
 *
 * Explanations are written from original clauses only, so every learnt clause keeps its
 * derivation in the why pool: the clauses resolved on, and the level-0 variables dropped from it
 * (whose reasons belong to the proof too). The pool is bounded; past it, learnt clauses carry no
 * derivation and an unsat core built through them is marked incomplete.
 */
import type { WhyRange } from './clause.js';
import type { ClauseStore } from './clause-store.js';
import type { Encoder } from './encoder.js';
import { grow, negative, positive, ROOT_VARIABLE, variableOf, type ClauseId, type Literal, type VariableId } from './ids.js';
import type { SearchParts, SearchState } from './search-state.js';
import { forbiddenBy } from './trail.js';

export interface LearntFromConflict {
  /** The learnt clause: the asserting literal first, then one of the backjump level. */
  readonly literals: Literal[];
  readonly backjumpLevel: number;
  /** Distinct decision levels among the literals. */
  readonly lbd: number;
  readonly why: WhyRange | null;
}

export interface UnsatCore {
  /** Original clauses that together admit no solution, sorted. */
  readonly core: ClauseId[];
  /** False when a learnt clause on the way had no derivation (the why pool was full). */
  readonly complete: boolean;
}

export interface AnalyzerOptions {
  /** Writes the forbid clauses that reasons of the at-most-one rule stand for. */
  readonly encoder: Encoder;
  /** Why-pool entries kept; past it, unsat cores through new learnt clauses are incomplete. */
  readonly maxWhyEntries: number;
}

export class Analyzer {
  readonly #state: SearchState;
  readonly #store: ClauseStore;
  readonly #encoder: Encoder;
  readonly #maxWhyEntries: number;
  #seen = new Uint8Array(64);
  /** Clause ids, and `-1 - variable` for a level-0 variable dropped from a learnt clause. */
  #why = new Int32Array(1024);
  #whyUsed = 0;
  #whyComplete = true;

  constructor(parts: SearchParts, options: AnalyzerOptions) {
    this.#state = parts.state;
    this.#store = parts.store;
    this.#encoder = options.encoder;
    this.#maxWhyEntries = options.maxWhyEntries;
  }

  /**
   * Learns the first-UIP clause of a conflict at the current level (above 0), bumping the
   * activity of the names involved.
   */
  analyze(conflict: ClauseId): LearntFromConflict {
    const state = this.#state;
    const t = state.trail;
    const store = this.#store;
    if (this.#seen.length < t.value.length) this.#seen = grow(this.#seen, t.value.length);
    const seen = this.#seen;
    const level = t.level;
    const currentLevel = t.currentLevel;
    const touched: VariableId[] = [];
    const why: number[] = [];
    const learnt: Literal[] = [0 as Literal];
    let pathCount = 0;
    let pivot = -1 as VariableId;
    let index = t.length - 1;
    let clause = conflict;
    for (;;) {
      why.push(clause);
      // `reasonClause` below may add a clause and so replace the pool: read it afresh each round.
      const pool = store.pool;
      const end = store.start(clause) + store.length(clause);
      for (let k = store.start(clause); k < end; k++) {
        const literal = pool[k] as Literal;
        const variable = variableOf(literal);
        if (variable === pivot || seen[variable]) continue;
        seen[variable] = 1;
        touched.push(variable);
        const lv = level[variable];
        if (lv === 0) {
          // Dropped from the learnt clause, but its reason belongs to the proof.
          if (variable !== ROOT_VARIABLE) why.push(-1 - variable);
          continue;
        }
        const name = state.nameOf(variable);
        if (name >= 0) state.bump(name);
        if (lv === currentLevel) pathCount++;
        else learnt.push(literal);
      }
      while (!seen[t.order[index]] || level[t.order[index]] !== currentLevel) {
        // A conflict without a literal at its level means a broken watch invariant: fail loudly.
        if (--index < 0) throw new Error(`internal solver error: conflict clause ${conflict} has no literal at level ${currentLevel}`);
      }
      pivot = t.variableAt(index--);
      pathCount--;
      if (pathCount === 0) break;
      clause = this.reasonClause(pivot) as ClauseId;
    }
    learnt[0] = t.value[pivot] === 1 ? negative(pivot) : positive(pivot);
    for (const variable of touched) seen[variable] = 0;

    let backjumpLevel = 0;
    let at = 1;
    for (let i = 1; i < learnt.length; i++) {
      const lv = level[variableOf(learnt[i])];
      if (lv > backjumpLevel) {
        backjumpLevel = lv;
        at = i;
      }
    }
    if (learnt.length > 1) {
      const swapped = learnt[1];
      learnt[1] = learnt[at];
      learnt[at] = swapped;
    }
    const levels = new Set<number>();
    for (const literal of learnt) levels.add(level[variableOf(literal)]);
    return { literals: learnt, backjumpLevel, lbd: levels.size, why: this.#remember(why) };
  }

  /**
   * The original clauses behind a conflict at level 0: learnt clauses are replaced by what they
   * were derived from, and every level-0 assignment by the clause that implied it.
   */
  unsatCore(conflict: ClauseId): UnsatCore {
    const store = this.#store;
    const t = this.#state.trail;
    const core: ClauseId[] = [];
    const visitedClauses = new Set<ClauseId>();
    const visitedVariables = new Set<VariableId>();
    let complete = true;
    // Entries: 2 * clause + 1 when the clause's level-0 literals must be explained too.
    const stack: number[] = [2 * conflict + 1];
    const pushVariable = (variable: VariableId): void => {
      if (variable === ROOT_VARIABLE || visitedVariables.has(variable)) return;
      visitedVariables.add(variable);
      const reason = this.reasonClause(variable);
      if (reason >= 0) stack.push(2 * reason + 1);
    };
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const clause = (entry >> 1) as ClauseId;
      if (entry & 1) {
        // Clauses are only appended on the way (forbid clauses), so this pool stays valid for it.
        const pool = store.pool;
        const end = store.start(clause) + store.length(clause);
        for (let k = store.start(clause); k < end; k++) {
          const variable = (pool[k] >> 1) as VariableId;
          if (t.value[variable] !== 0 && t.level[variable] === 0) pushVariable(variable);
        }
      }
      if (visitedClauses.has(clause)) continue;
      visitedClauses.add(clause);
      if (!store.isLearnt(clause)) {
        core.push(clause);
        continue;
      }
      const why = store.learnt(clause).why;
      if (why === null) {
        complete = false;
        continue;
      }
      const { start, length } = why;
      for (let i = start; i < start + length; i++) {
        const item = this.#why[i];
        if (item >= 0) stack.push(2 * item);
        else pushVariable((-1 - item) as VariableId);
      }
    }
    core.sort((a, b) => a - b);
    return { core, complete };
  }

  /** The clause that implied a variable's value, or -1 for a decision. */
  reasonClause(variable: VariableId): ClauseId | -1 {
    const reason = this.#state.trail.reason[variable];
    if (reason >= 0) return reason as ClauseId;
    const sibling = forbiddenBy(reason);
    return sibling === -1 ? -1 : this.#encoder.forbidClause(sibling, variable);
  }

  /** Stores a derivation in the why pool; null once the pool is (or was ever) full. */
  #remember(why: readonly number[]): WhyRange | null {
    if (!this.#whyComplete || this.#whyUsed + why.length > this.#maxWhyEntries) {
      this.#whyComplete = false;
      return null;
    }
    if (this.#why.length < this.#whyUsed + why.length) this.#why = grow(this.#why, this.#whyUsed + why.length);
    this.#why.set(why, this.#whyUsed);
    const range = { start: this.#whyUsed, length: why.length };
    this.#whyUsed += why.length;
    return range;
  }
}
