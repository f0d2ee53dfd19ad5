/**
 * Conflict analysis: first-UIP clause learning, the why pool that remembers what each learnt
 * clause was derived from, and the unsat core (the original clauses behind a conflict at level 0).
 *
 * Explanations are written from original clauses only, so every learnt clause keeps its
 * derivation in the why pool: the clauses resolved on, and the level-0 variables dropped from it
 * (whose reasons belong to the proof too). The pool is bounded; past it, learnt clauses carry no
 * derivation and an unsat core built through them is marked incomplete.
 */
import { NO_DERIVATION, type ClauseStore } from './clause-store.js';
import type { Encoder } from './encoder.js';
import { grow, negative, positive, ROOT_VARIABLE, variableOf, type ClauseId, type Literal, type VariableId } from './ids.js';
import type { SearchParts, SearchState } from './search-state.js';
import { forbiddenBy } from './trail.js';

/**
 * A clause learnt from a conflict. Its arrays are the analyser's and are overwritten by the next
 * `analyze`: copy what must last (the clause store copies the literals).
 */
export interface LearntFromConflict {
  /** The learnt clause in its first `length` entries: the asserting literal, then one of the backjump level. */
  readonly literals: ArrayLike<Literal>;
  readonly length: number;
  readonly backjumpLevel: number;
  /** Distinct decision levels among the literals. */
  readonly lbd: number;
  /** Its derivation's range in the why pool; `whyLength` is NO_DERIVATION once the pool is full. */
  readonly whyStart: number;
  readonly whyLength: number;
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
  /** Per variable: 1 while `analyze` has met it. */
  #seen = new Uint8Array(64);
  /** The variables `analyze` marked seen, to clear them after. */
  #touched = new Int32Array(64);
  /** The clause being learnt. */
  #learnt = new Int32Array(64);
  /** Per decision level: the last `analyze` that counted it towards an LBD. */
  #levelStamp = new Int32Array(64);
  #stamp = 0;
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
   * activity of the names involved. The derivation is written straight into the why pool, past
   * its used part, and kept only if it fits.
   */
  analyze(conflict: ClauseId): LearntFromConflict {
    const state = this.#state;
    const t = state.trail;
    const store = this.#store;
    const variables = t.value.length;
    if (this.#seen.length < variables) {
      this.#seen = grow(this.#seen, variables);
      this.#touched = grow(this.#touched, variables);
      this.#learnt = grow(this.#learnt, variables);
    }
    if (this.#levelStamp.length <= t.currentLevel) this.#levelStamp = grow(this.#levelStamp, t.currentLevel + 1);
    const seen = this.#seen;
    const touched = this.#touched;
    const learnt = this.#learnt;
    const level = t.level;
    const currentLevel = t.currentLevel;
    let touchedCount = 0;
    let learntCount = 1;
    let why = this.#why;
    let whyEnd = this.#whyUsed;
    let pathCount = 0;
    let pivot = -1 as VariableId;
    let index = t.length - 1;
    let clause = conflict;
    for (;;) {
      // Room for this clause and its level-0 variables; `reasonClause` below may add a clause
      // and so replace the layout: read it afresh each round.
      const { pool, start, length } = store.layout();
      if (whyEnd + 1 + length[clause] > why.length) this.#why = why = grow(why, whyEnd + 1 + length[clause]);
      why[whyEnd++] = clause;
      const end = start[clause] + length[clause];
      for (let k = start[clause]; k < end; k++) {
        const literal = pool[k] as Literal;
        const variable = variableOf(literal);
        if (variable === pivot || seen[variable]) continue;
        seen[variable] = 1;
        touched[touchedCount++] = variable;
        const lv = level[variable];
        if (lv === 0) {
          // Dropped from the learnt clause, but its reason belongs to the proof.
          if (variable !== ROOT_VARIABLE) why[whyEnd++] = -1 - variable;
          continue;
        }
        const name = state.nameOf(variable);
        if (name >= 0) state.bump(name);
        if (lv === currentLevel) pathCount++;
        else learnt[learntCount++] = literal;
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
    for (let i = 0; i < touchedCount; i++) seen[touched[i]] = 0;

    // The backjump level is the highest among the other literals; that literal goes second.
    const levelStamp = this.#levelStamp;
    const stamp = ++this.#stamp;
    levelStamp[currentLevel] = stamp;
    let lbd = 1;
    let backjumpLevel = 0;
    let at = 1;
    for (let i = 1; i < learntCount; i++) {
      const lv = level[learnt[i] >> 1];
      if (levelStamp[lv] !== stamp) {
        levelStamp[lv] = stamp;
        lbd++;
      }
      if (lv > backjumpLevel) {
        backjumpLevel = lv;
        at = i;
      }
    }
    if (learntCount > 1) {
      const swapped = learnt[1];
      learnt[1] = learnt[at];
      learnt[at] = swapped;
    }

    const whyStart = this.#whyUsed;
    let whyLength = whyEnd - whyStart;
    if (!this.#whyComplete || whyEnd > this.#maxWhyEntries) {
      this.#whyComplete = false;
      whyLength = NO_DERIVATION;
    } else {
      this.#whyUsed = whyEnd;
    }
    return { literals: learnt as ArrayLike<number> as ArrayLike<Literal>, length: learntCount, backjumpLevel, lbd, whyStart, whyLength };
  }

  /**
   * The original clauses behind a conflict at level 0: learnt clauses are replaced by what they
   * were derived from, and every level-0 assignment by the clause that implied it.
   */
  unsatCore(conflict: ClauseId): UnsatCore {
    const store = this.#store;
    const t = this.#state.trail;
    const core: ClauseId[] = [];
    // Clauses are only appended on the way (forbid clauses), so ids below this count are marked
    // in `visitedClauses`, and newer ones (never learnt) are looked up in `visitedNew`.
    const visitedClauses = new Uint8Array(store.count);
    const visitedNew = new Set<ClauseId>();
    const visitedVariables = new Uint8Array(t.value.length);
    let complete = true;
    // Entries: 2 * clause + 1 when the clause's level-0 literals must be explained too.
    const stack: number[] = [2 * conflict + 1];
    const pushVariable = (variable: VariableId): void => {
      if (variable === ROOT_VARIABLE || visitedVariables[variable]) return;
      visitedVariables[variable] = 1;
      const reason = this.reasonClause(variable);
      if (reason >= 0) stack.push(2 * reason + 1);
    };
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const clause = (entry >> 1) as ClauseId;
      if (entry & 1) {
        const { pool, start, length } = store.layout();
        const end = start[clause] + length[clause];
        for (let k = start[clause]; k < end; k++) {
          const variable = (pool[k] >> 1) as VariableId;
          if (t.value[variable] !== 0 && t.level[variable] === 0) pushVariable(variable);
        }
      }
      if (clause < visitedClauses.length) {
        if (visitedClauses[clause]) continue;
        visitedClauses[clause] = 1;
      } else {
        if (visitedNew.has(clause)) continue;
        visitedNew.add(clause);
      }
      if (!store.isLearnt(clause)) {
        core.push(clause);
        continue;
      }
      const whyLength = store.whyLength(clause);
      if (whyLength === NO_DERIVATION) {
        complete = false;
        continue;
      }
      const whyStart = store.whyStart(clause);
      for (let i = whyStart; i < whyStart + whyLength; i++) {
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
}
