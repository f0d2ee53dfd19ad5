/**
 * Unit propagation, and the placement of clauses added while the search runs.
 *
 * Both keep the watch invariant, which holds for every watched clause at every step between
 * them: a false watched literal has a true partner assigned no later (checked by
 * `invariants.ts`). Propagation walks the watch list of each literal made false; at-most-one per
 * name is propagated directly (selecting a candidate sets its siblings false, with the sibling as
 * the reason), because writing it as clauses is quadratic in the candidates.
 */
import type { ClauseStore } from './clause-store.js';
import type { Encoder } from './encoder.js';
import { negative, positive, variableOf, type ClauseId, type Literal, type VariableId } from './ids.js';
import type { SearchParts, SearchState } from './search-state.js';
import type { SolverStats } from './stats.js';
import { forbiddenReason } from './trail.js';
import { END_OF_LIST, moveWatch, type WatchLink, type WatchMap } from './watch-map.js';

export const NO_CONFLICT = -1;

/** A clause with every literal false, or NO_CONFLICT. */
export type Conflict = ClauseId | typeof NO_CONFLICT;

const NOT_FALSE = 0x7fffffff;

export class Propagation {
  readonly #state: SearchState;
  readonly #store: ClauseStore;
  readonly #watches: WatchMap;
  readonly #stats: SolverStats;
  /** Writes the forbid clauses that conflicts between siblings need. */
  readonly #encoder: Encoder;

  constructor(parts: SearchParts, encoder: Encoder) {
    this.#state = parts.state;
    this.#store = parts.store;
    this.#watches = parts.watches;
    this.#stats = parts.stats;
    this.#encoder = encoder;
  }

  /** Propagates every assignment not propagated yet; the first conflict found, or NO_CONFLICT. */
  propagate(): Conflict {
    const state = this.#state;
    const t = state.trail;
    const value = t.value;
    const watches = this.#watches;
    const store = this.#store;
    while (t.head < t.length) {
      const variable = t.variableAt(t.head++);
      this.#stats.propagations++;
      let falseLiteral: Literal;
      if (value[variable] === 1) {
        const name = state.nameOf(variable);
        if (name >= 0) {
          const siblings = state.members(name)!;
          for (let i = 0; i < siblings.length; i++) {
            const sibling = siblings[i] as VariableId;
            if (sibling === variable) continue;
            const v = value[sibling];
            if (v === 0) state.set(negative(sibling), forbiddenReason(variable));
            else if (v === 1) return this.#encoder.forbidClause(variable, sibling);
          }
        }
        falseLiteral = negative(variable);
      } else {
        falseLiteral = positive(variable);
      }
      // The walk over the false literal's watch list (resolvo's cursor), with its position and the
      // arrays in locals: this is the innermost loop of the search, and a cursor object, the
      // `clauseOfLink` helper or the store's accessors here each measured 3-10% slower on a hard
      // problem. No clause is added during the walk, so the arrays stay valid for it.
      const { head, next } = watches.lists();
      let link: WatchLink = head[falseLiteral];
      if (link === END_OF_LIST) continue;
      const { pool: lits, start: starts, length: lengths } = store.layout();
      let previous: WatchLink = END_OF_LIST;
      while (link !== END_OF_LIST) {
        const clause = (link >> 1) as ClauseId;
        const slot = link & 1;
        const following = next[link];
        const start = starts[clause];
        const other = lits[start + 1 - slot];
        const otherValue = other & 1 ? -value[other >> 1] : value[other >> 1];
        if (otherValue === 1) {
          previous = link;
          link = following;
          continue;
        }
        const end = start + lengths[clause];
        let moved = false;
        for (let k = start + 2; k < end; k++) {
          const candidate = lits[k];
          if ((candidate & 1 ? -value[candidate >> 1] : value[candidate >> 1]) !== -1) {
            moveWatch(head, next, falseLiteral, previous, link, lits, start + slot, k);
            moved = true;
            break;
          }
        }
        if (moved) {
          link = following;
          continue;
        }
        previous = link;
        link = following;
        if (otherValue === -1) return clause;
        state.set(other as Literal, clause);
      }
    }
    return NO_CONFLICT;
  }

  /**
   * Places a new clause in the current assignment. Returns NO_CONFLICT, possibly after
   * backjumping and assigning the literal the clause implies; or a conflicting clause to analyse
   * at the (possibly lowered) current level. At level 0 a returned conflict means unsatisfiable.
   */
  attach(clause: ClauseId): Conflict {
    const state = this.#state;
    const store = this.#store;
    const t = state.trail;
    const n = store.length(clause);
    this.#stats.clauses++;
    if (n === 1) {
      const literal = store.literalAt(clause, 0);
      const value = t.literalValue(literal);
      if (value === 1 && t.level[variableOf(literal)] === 0) return NO_CONFLICT;
      state.backjump(0);
      if (value === -1 && t.level[variableOf(literal)] === 0) return clause;
      state.set(literal, clause);
      return NO_CONFLICT;
    }
    // Pick the two best watches: non-false literals first, then false ones by decreasing level.
    let first = -1;
    let second = -1;
    let firstRank = -2;
    let secondRank = -2;
    for (let i = 0; i < n; i++) {
      const literal = store.literalAt(clause, i);
      const rank = t.literalValue(literal) === -1 ? t.level[variableOf(literal)] : NOT_FALSE;
      if (rank > firstRank) {
        second = first;
        secondRank = firstRank;
        first = i;
        firstRank = rank;
      } else if (rank > secondRank) {
        second = i;
        secondRank = rank;
      }
    }
    let maxFalseLevelCount = 0;
    if (firstRank !== NOT_FALSE) {
      for (let i = 0; i < n; i++) if (t.level[variableOf(store.literalAt(clause, i))] === firstRank) maxFalseLevelCount++;
    }
    // Move the chosen watches to positions 0 and 1.
    store.swap(clause, 0, first);
    if (second === 0) second = first;
    store.swap(clause, 1, second);
    this.#watches.watch(clause);
    const a = store.literalAt(clause, 0);
    const b = store.literalAt(clause, 1);
    if (secondRank === NOT_FALSE) return NO_CONFLICT; // two non-false watches
    if (firstRank === NOT_FALSE) {
      // Exactly one non-false literal: the clause is unit at the level of its highest false literal.
      const falseLevel = secondRank;
      if (t.literalValue(a) === 1 && t.level[variableOf(a)] <= falseLevel) return NO_CONFLICT;
      state.backjump(falseLevel);
      if (t.literalValue(a) === 0) state.set(a, clause);
      return NO_CONFLICT;
    }
    // Every literal is false.
    if (firstRank === 0) {
      state.backjump(0);
      return clause;
    }
    if (maxFalseLevelCount === 1) {
      state.backjump(t.level[variableOf(b)]);
      state.set(a, clause);
      return NO_CONFLICT;
    }
    state.backjump(firstRank);
    return clause;
  }
}
