/**
 * A conflict-driven clause-learning solver for package problems (the approach of libsolv and
 * resolvo), over any `DependencyProvider`. The loop: propagate; on a conflict learn a clause (first
 * UIP) and backjump; when propagation is quiet, encode the dependencies of solvables that became
 * selected (lazy clause generation); then decide, always by selecting the most preferred open
 * candidate of some requirement. Unassigned variables are false in the answer, so nothing is
 * installed that nobody asked for. This module keeps the loop and its policies (Luby restarts,
 * learnt-clause reduction); ARCHITECTURE.md (step 8) names the module of each part.
 */
import { Analyzer } from './analyze.js';
import { describeClause, type CoreClause } from './clause.js';
import { ClauseStore } from './clause-store.js';
import { decideNext } from './decide.js';
import { Encoder } from './encoder.js';
import {
  asClauseId,
  positive,
  ROOT_VARIABLE,
  solvableOfVariable,
  variableOf,
  type ClauseId,
  type SolvableId,
  type VersionSetId,
} from './ids.js';
import { checkInvariants } from './invariants.js';
import { NO_CONFLICT, Propagation, type Conflict } from './propagation.js';
import type { Cancellation, DependencyProvider, TieBreaking } from './provider.js';
import { SearchState, type SearchParts } from './search-state.js';
import { emptyStats, type SolverStats } from './stats.js';
import { DECISION } from './trail.js';
import { WatchMap } from './watch-map.js';

export type { CoreClause } from './clause.js';
export type { SolverStats } from './stats.js';

export type CoreOutcome =
  | { readonly kind: 'sat'; readonly solvables: SolvableId[] }
  /** `core`: original clauses that together admit no solution. */
  | { readonly kind: 'unsat'; readonly core: ClauseId[]; readonly complete: boolean }
  | { readonly kind: 'cancelled'; readonly reason: 'timeout' | 'aborted' };

export interface CoreSolverOptions {
  readonly cancellation?: Cancellation;
  /** Learnt clauses kept before the first clean-up (memory bound on hard problems). */
  readonly maxLearnt?: number;
  /** Why-pool entries kept for explanations; past it, explanations may be partial. */
  readonly maxWhyEntries?: number;
  /** Checks the watch and trail invariants after every quiet propagation (tests only: slow). */
  readonly checkInvariants?: boolean;
}

const RESTART_UNIT = 128;

export class CoreSolver {
  readonly stats: SolverStats = emptyStats();
  readonly #parts: SearchParts;
  readonly #state: SearchState;
  readonly #store: ClauseStore;
  readonly #watches: WatchMap;
  readonly #encoder: Encoder;
  readonly #propagation: Propagation;
  readonly #analyzer: Analyzer;
  readonly #cancellation: Cancellation | undefined;
  readonly #checkInvariants: boolean;
  readonly #ties: TieBreaking | undefined;
  #maxLearnt: number;
  #learntLive = 0;
  #conflictsSinceRestart = 0;
  #restartLimit = RESTART_UNIT;
  #lubyIndex = 1;
  /** The level-0 conflict that proved the problem unsatisfiable, once found. */
  #unsatConflict: Conflict = NO_CONFLICT;

  constructor(provider: DependencyProvider, options: CoreSolverOptions = {}) {
    this.#cancellation = options.cancellation;
    this.#ties = provider.ties;
    this.#checkInvariants = options.checkInvariants ?? false;
    this.#maxLearnt = options.maxLearnt ?? 4000;
    this.#state = new SearchState();
    this.#store = new ClauseStore();
    this.#watches = new WatchMap(this.#store);
    this.#parts = { state: this.#state, store: this.#store, watches: this.#watches, stats: this.stats };
    this.#encoder = new Encoder(this.#parts, { provider, place: (clause) => this.#place(clause) });
    this.#propagation = new Propagation(this.#parts, this.#encoder);
    this.#analyzer = new Analyzer(this.#parts, { encoder: this.#encoder, maxWhyEntries: options.maxWhyEntries ?? 8_000_000 });
  }

  solve(rootRequirements: readonly VersionSetId[]): CoreOutcome {
    const state = this.#state;
    const trail = state.trail;
    trail.assign(positive(ROOT_VARIABLE), DECISION);
    trail.head = 1;
    for (const versionSet of rootRequirements) {
      const clause = this.#encoder.addRootRequirement(versionSet);
      const conflict = this.#propagation.attach(clause);
      if (conflict !== NO_CONFLICT) return this.#unsat(conflict);
      if (this.#unsatConflict !== NO_CONFLICT) return this.#unsat(this.#unsatConflict);
    }

    let iterations = 0;
    for (;;) {
      if ((++iterations & 63) === 0 && this.#cancellation) {
        const stop = this.#cancellation.check();
        if (stop) return { kind: 'cancelled', reason: stop };
      }
      const conflict = this.#propagation.propagate();
      if (conflict !== NO_CONFLICT) {
        if (!this.#resolveConflict(conflict)) return this.#unsat(this.#unsatConflict);
        continue;
      }
      if (this.#checkInvariants) checkInvariants(this.#parts);
      if (state.hasPending()) {
        if (!this.#encoder.encodePending() || this.#unsatConflict !== NO_CONFLICT) return this.#unsat(this.#unsatConflict);
        continue;
      }
      if (this.#conflictsSinceRestart >= this.#restartLimit) {
        this.#restart();
        continue;
      }
      if (this.#learntLive > this.#maxLearnt) this.#reduceLearnt();
      const literal = decideNext(state, this.#ties);
      if (literal === -1) return this.#sat();
      this.stats.decisions++;
      trail.newLevel();
      state.set(literal, DECISION);
    }
  }

  /** What an original clause says, for explanations. */
  describe(clause: ClauseId): CoreClause {
    return describeClause(this.#store.clause(clause), clause);
  }

  /** Attaches a clause added mid-search and learns from the conflict it causes; false when unsat. */
  #place(clause: ClauseId): boolean {
    const conflict = this.#propagation.attach(clause);
    return conflict === NO_CONFLICT || this.#resolveConflict(conflict);
  }

  /** Learns from a conflict at the current level and backjumps; false when it proves unsat. */
  #resolveConflict(conflict: ClauseId): boolean {
    const state = this.#state;
    if (state.trail.currentLevel === 0) {
      this.#unsatConflict = conflict;
      return false;
    }
    this.stats.conflicts++;
    this.#conflictsSinceRestart++;
    const learnt = this.#analyzer.analyze(conflict);
    state.decayActivity();
    state.backjump(learnt.backjumpLevel);
    const clause = this.#store.addLearnt(learnt.literals, learnt.length, learnt.lbd, learnt.whyStart, learnt.whyLength);
    this.stats.learnt++;
    this.stats.learntKept = ++this.#learntLive;
    if (learnt.length >= 2) this.#watches.watch(clause);
    state.set(learnt.literals[0], clause);
    return true;
  }

  #restart(): void {
    this.stats.restarts++;
    this.#conflictsSinceRestart = 0;
    this.#lubyIndex++;
    this.#restartLimit = RESTART_UNIT * luby(this.#lubyIndex);
    this.#state.backjump(0);
  }

  /** Deletes the less useful half (by LBD) of the learnt clauses that are not reasons right now. */
  #reduceLearnt(): void {
    const store = this.#store;
    const t = this.#state.trail;
    const candidates: ClauseId[] = [];
    for (let c = 0; c < store.count; c++) {
      const clause = asClauseId(c);
      if (!store.isLearnt(clause) || store.isDeleted(clause) || store.length(clause) <= 2) continue;
      const a = variableOf(store.literalAt(clause, 0));
      const b = variableOf(store.literalAt(clause, 1));
      if ((t.value[a] !== 0 && t.reason[a] === clause) || (t.value[b] !== 0 && t.reason[b] === clause)) continue;
      candidates.push(clause);
    }
    candidates.sort((x, y) => store.lbd(y) - store.lbd(x) || x - y);
    const remove = candidates.length >> 1;
    for (let i = 0; i < remove; i++) store.delete(candidates[i]);
    this.#learntLive -= remove;
    this.stats.learntKept = this.#learntLive;
    store.compact();
    this.#watches.clear();
    for (let c = 0; c < store.count; c++) {
      const clause = asClauseId(c);
      if (store.isWatched(clause)) this.#watches.watch(clause);
    }
    this.#maxLearnt = Math.floor(this.#maxLearnt * 1.2);
  }

  #sat(): CoreOutcome {
    const state = this.#state;
    const solvables: SolvableId[] = [];
    for (let i = 0; i < state.trueCount; i++) solvables.push(solvableOfVariable(state.trueAt(i)));
    solvables.sort((a, b) => a - b);
    return { kind: 'sat', solvables };
  }

  #unsat(conflict: Conflict): CoreOutcome {
    const { core, complete } = this.#analyzer.unsatCore(conflict as ClauseId);
    return { kind: 'unsat', core, complete };
  }
}

/** The Luby sequence 1 1 2 1 1 2 4 1 1 2 ... (restart intervals that suit both easy and hard runs). */
function luby(i: number): number {
  let size = 1;
  let sequence = 0;
  while (size < i + 1) {
    sequence++;
    size = 2 * size + 1;
  }
  let x = i;
  while (size - 1 !== x) {
    size = (size - 1) >> 1;
    sequence--;
    x = x % size;
  }
  return 2 ** sequence;
}
