/**
 * A conflict-driven clause-learning solver for package problems (the approach of libsolv and
 * resolvo), over any `DependencyProvider`.
 *
 * The loop: propagate; on a conflict learn a clause (first UIP) and backjump; when propagation is
 * quiet, encode the dependencies of solvables that became selected (lazy clause generation: a
 * name's candidates and clauses exist only once a selected solvable or a root spec reaches it);
 * then decide, always by selecting the most preferred open candidate of some requirement.
 * Unassigned variables are false in the answer, so nothing is installed that nobody asked for.
 *
 * At-most-one record per name is not written as clauses (quadratic in the candidates): selecting
 * a candidate sets its siblings false directly, with the sibling as the reason.
 *
 * Clauses are added while the search runs, so `attach` places each new clause correctly in the
 * current assignment: it backjumps to the level where the clause becomes unit, or hands back a
 * conflict to analyse. The watch invariant (a false watched literal has a true partner assigned no
 * later) holds for every clause at every step.
 */
import { ClauseKind, ClauseStore } from './clause-store.js';
import { decideNext } from './decide.js';
import {
  growFloat64,
  growInt32,
  negative,
  positive,
  ROOT_VARIABLE,
  solvableOfVariable,
  type ClauseId,
  type NameId,
  type SolvableId,
  type VariableId,
  type VersionSetId,
} from './ids.js';
import type { Cancellation, DependencyProvider } from './provider.js';
import { DECISION, FORBIDDEN_BY, forbiddenBy, Trail } from './trail.js';

export type CoreClause =
  | { readonly kind: 'requires'; readonly parent: SolvableId | null; readonly versionSet: VersionSetId }
  | {
      readonly kind: 'constrains';
      readonly parent: SolvableId;
      readonly target: SolvableId;
      readonly versionSet: VersionSetId;
    }
  | { readonly kind: 'forbid'; readonly a: SolvableId; readonly b: SolvableId; readonly name: NameId }
  | { readonly kind: 'unknown'; readonly solvable: SolvableId; readonly reason: string };

export type CoreOutcome =
  | { readonly kind: 'sat'; readonly solvables: SolvableId[] }
  /** `core`: original clauses that together admit no solution. */
  | { readonly kind: 'unsat'; readonly core: ClauseId[]; readonly complete: boolean }
  | { readonly kind: 'cancelled'; readonly reason: 'timeout' | 'aborted' };

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

export interface CoreSolverOptions {
  readonly cancellation?: Cancellation;
  /** Learnt clauses kept before the first clean-up (memory bound on hard problems). */
  readonly maxLearnt?: number;
  /** Why-pool entries kept for explanations; past it, explanations may be partial. */
  readonly maxWhyEntries?: number;
}

const NO_CONFLICT = -1;
const ACTIVITY_DECAY = 0.95;
const RESTART_UNIT = 128;

export class CoreSolver {
  readonly provider: DependencyProvider;
  readonly trail = new Trail();
  readonly clauses = new ClauseStore();
  readonly stats: SolverStats = {
    decisions: 0,
    conflicts: 0,
    propagations: 0,
    restarts: 0,
    learnt: 0,
    learntKept: 0,
    clauses: 0,
    variables: 0,
    names: 0,
  };

  /** Per variable: its name, or -1 for the root. */
  nameOfVariable = new Int32Array(64).fill(-1);
  /** Per variable: 1 once its dependencies are clauses. */
  encoded = new Uint8Array(64);
  /** Per variable: the requires clauses it is the parent of. */
  requiresOf: (number[] | undefined)[] = [];
  /** Per name: its candidates' variables, most preferred first; undefined until reached. */
  members: (Int32Array | undefined)[] = [];
  /** Per name: the variable currently selected, or -1. */
  selectedOfName = new Int32Array(64).fill(-1);
  /** Per name: conflict activity (VSIDS-like), bumped when the name takes part in a conflict. */
  activity = new Float64Array(64);
  activityIncrement = 1;
  /** Per version set: the matching candidates' variables, in preference order. */
  matchingVariables: (Int32Array | undefined)[] = [];
  /** Root requirements' clauses, in the user's order. */
  readonly rootRequires: ClauseId[] = [];
  /** Variables currently true (excluding the root), in trail order. */
  trueStack = new Int32Array(64);
  trueCount = 0;

  readonly #cancellation: Cancellation | undefined;
  #variableCount = 1;
  #pending: VariableId[] = [];
  #pendingHead = 0;
  /** Constrains entries waiting for their name to be reached: name -> [variable, versionSet, ...]. */
  readonly #pendingConstrains = new Map<NameId, number[]>();
  readonly #unknownReasons: string[] = [];
  readonly #forbidMemo = new Map<number, ClauseId>();
  #seen = new Uint8Array(64);
  #why = new Int32Array(1024);
  #whyUsed = 0;
  #whyComplete = true;
  readonly #maxWhyEntries: number;
  #maxLearnt: number;
  #learntLive = 0;
  #conflictsSinceRestart = 0;
  #restartLimit = RESTART_UNIT;
  #lubyIndex = 1;
  #unsatConflict = -1;

  constructor(provider: DependencyProvider, options: CoreSolverOptions = {}) {
    this.provider = provider;
    this.#cancellation = options.cancellation;
    this.#maxLearnt = options.maxLearnt ?? 4000;
    this.#maxWhyEntries = options.maxWhyEntries ?? 8_000_000;
    this.trail.ensureVariables(1);
    this.clauses.ensureLiteral(negative(ROOT_VARIABLE));
  }

  solve(rootRequirements: readonly VersionSetId[]): CoreOutcome {
    const trail = this.trail;
    trail.assign(positive(ROOT_VARIABLE), DECISION);
    trail.head = 1;
    for (const versionSet of rootRequirements) {
      const name = this.provider.nameOfVersionSet(versionSet);
      this.#loadName(name);
      const clause = this.#addRequires(ROOT_VARIABLE, versionSet);
      this.rootRequires.push(clause);
      const conflict = this.#attach(clause);
      if (conflict !== NO_CONFLICT) return this.#unsat(conflict);
      if (this.#unsatConflict >= 0) return this.#unsat(this.#unsatConflict);
    }

    let iterations = 0;
    for (;;) {
      if ((++iterations & 63) === 0 && this.#cancellation) {
        const stop = this.#cancellation.check();
        if (stop) return { kind: 'cancelled', reason: stop };
      }
      const conflict = this.#propagate();
      if (conflict !== NO_CONFLICT) {
        if (!this.#resolveConflict(conflict)) return this.#unsat(this.#unsatConflict);
        continue;
      }
      if (this.#pendingHead < this.#pending.length) {
        if (!this.#encodePending() || this.#unsatConflict >= 0) return this.#unsat(this.#unsatConflict);
        continue;
      }
      if (this.#conflictsSinceRestart >= this.#restartLimit) {
        this.#restart();
        continue;
      }
      if (this.#learntLive > this.#maxLearnt) this.#reduceLearnt();
      const literal = decideNext(this);
      if (literal < 0) return this.#sat();
      this.stats.decisions++;
      trail.newLevel();
      this.#set(literal, DECISION);
    }
  }

  /** What an original clause says, for explanations. */
  describe(clause: ClauseId): CoreClause {
    const c = this.clauses;
    switch (c.kind[clause]) {
      case ClauseKind.Requires: {
        const parent = c.meta0[clause];
        return {
          kind: 'requires',
          parent: parent === ROOT_VARIABLE ? null : solvableOfVariable(parent),
          versionSet: c.meta1[clause],
        };
      }
      case ClauseKind.Constrains:
        return {
          kind: 'constrains',
          parent: solvableOfVariable(c.meta0[clause]),
          target: solvableOfVariable(c.meta1[clause]),
          versionSet: c.meta2[clause],
        };
      case ClauseKind.Forbid:
        return {
          kind: 'forbid',
          a: solvableOfVariable(c.meta0[clause]),
          b: solvableOfVariable(c.meta1[clause]),
          name: c.meta2[clause],
        };
      case ClauseKind.Unknown:
        return {
          kind: 'unknown',
          solvable: solvableOfVariable(c.meta0[clause]),
          reason: this.#unknownReasons[c.meta1[clause]],
        };
      default:
        throw new Error(`clause ${clause} is not an original clause`);
    }
  }

  /** Whether a name's candidates were ever requested (for laziness tests). */
  isNameReached(name: NameId): boolean {
    return this.members[name] !== undefined;
  }

  // ---- variables and names -------------------------------------------------------------------

  #ensureVariables(count: number): void {
    if (count <= this.#variableCount) return;
    this.#variableCount = count;
    this.trail.ensureVariables(count);
    if (count > this.nameOfVariable.length) {
      this.nameOfVariable = growInt32(this.nameOfVariable, count, -1);
      const encoded = new Uint8Array(this.nameOfVariable.length);
      encoded.set(this.encoded);
      this.encoded = encoded;
      const seen = new Uint8Array(this.nameOfVariable.length);
      seen.set(this.#seen);
      this.#seen = seen;
      this.trueStack = growInt32(this.trueStack, count);
    }
    this.clauses.ensureLiteral(2 * count + 1);
    this.stats.variables = count;
  }

  #loadName(name: NameId): Int32Array {
    const known = this.members[name];
    if (known) return known;
    const candidates = this.provider.candidates(name).solvables;
    const variables = new Int32Array(candidates.length);
    let highest = 0;
    for (let i = 0; i < candidates.length; i++) {
      variables[i] = candidates[i] + 1;
      if (variables[i] > highest) highest = variables[i];
    }
    this.#ensureVariables(highest + 1);
    for (let i = 0; i < variables.length; i++) this.nameOfVariable[variables[i]] = name;
    if (name >= this.selectedOfName.length) {
      this.selectedOfName = growInt32(this.selectedOfName, name + 1, -1);
      this.activity = growFloat64(this.activity, name + 1);
    }
    this.members[name] = variables;
    this.stats.names++;
    const waiting = this.#pendingConstrains.get(name);
    if (waiting) {
      this.#pendingConstrains.delete(name);
      // A conflict here would set #unsatConflict, which the main loop checks after every step.
      for (let i = 0; i < waiting.length && this.#unsatConflict < 0; i += 2) this.#addConstrains(waiting[i], waiting[i + 1]);
    }
    return variables;
  }

  #matching(versionSet: VersionSetId): Int32Array {
    const known = this.matchingVariables[versionSet];
    if (known) return known;
    this.#loadName(this.provider.nameOfVersionSet(versionSet));
    const solvables = this.provider.matching(versionSet);
    const variables = new Int32Array(solvables.length);
    for (let i = 0; i < solvables.length; i++) variables[i] = solvables[i] + 1;
    this.matchingVariables[versionSet] = variables;
    return variables;
  }

  // ---- encoding ------------------------------------------------------------------------------

  #addRequires(parent: VariableId, versionSet: VersionSetId): ClauseId {
    const candidates = this.#matching(versionSet);
    const name = this.provider.nameOfVersionSet(versionSet);
    const literals: number[] = [negative(parent)];
    for (let i = 0; i < candidates.length; i++) {
      // A solvable that satisfies its own requirement makes the clause a tautology.
      if (candidates[i] === parent) {
        return this.clauses.add(ClauseKind.Requires, [negative(parent), positive(parent)], parent, versionSet, name);
      }
      literals.push(positive(candidates[i]));
    }
    const clause = this.clauses.add(ClauseKind.Requires, literals, parent, versionSet, name);
    let list = this.requiresOf[parent];
    if (!list) this.requiresOf[parent] = list = [];
    list.push(clause);
    return clause;
  }

  /** Adds (¬A ∨ ¬B) for every candidate B the constrains entry rejects; false when unsatisfiable. */
  #addConstrains(parent: VariableId, versionSet: VersionSetId): boolean {
    const rejected = this.provider.notMatching(versionSet);
    for (let i = 0; i < rejected.length; i++) {
      const target = rejected[i] + 1;
      const literals = target === parent ? [negative(parent)] : [negative(parent), negative(target)];
      const clause = this.clauses.add(ClauseKind.Constrains, literals, parent, target, versionSet);
      const conflict = this.#attach(clause);
      if (conflict !== NO_CONFLICT && !this.#resolveConflict(conflict)) return false;
    }
    return true;
  }

  /** Encodes the dependencies of every newly selected solvable; false when unsatisfiable. */
  #encodePending(): boolean {
    while (this.#pendingHead < this.#pending.length) {
      const variable = this.#pending[this.#pendingHead++];
      if (this.encoded[variable]) continue;
      this.encoded[variable] = 1;
      if (!this.#encodeSolvable(variable)) return false;
    }
    this.#pending.length = 0;
    this.#pendingHead = 0;
    return true;
  }

  #encodeSolvable(variable: VariableId): boolean {
    const dependencies = this.provider.dependencies(solvableOfVariable(variable));
    if (dependencies.kind === 'unknown') {
      this.#unknownReasons.push(dependencies.reason);
      const clause = this.clauses.add(ClauseKind.Unknown, [negative(variable)], variable, this.#unknownReasons.length - 1, 0);
      const conflict = this.#attach(clause);
      return conflict === NO_CONFLICT || this.#resolveConflict(conflict);
    }
    for (const versionSet of dependencies.requires) {
      const clause = this.#addRequires(variable, versionSet);
      const conflict = this.#attach(clause);
      if (conflict !== NO_CONFLICT && !this.#resolveConflict(conflict)) return false;
    }
    for (const versionSet of dependencies.constrains) {
      const name = this.provider.nameOfVersionSet(versionSet);
      if (this.members[name]) {
        if (!this.#addConstrains(variable, versionSet)) return false;
      } else {
        // Nothing of that name can be selected until something requires it; wait until then.
        let waiting = this.#pendingConstrains.get(name);
        if (!waiting) this.#pendingConstrains.set(name, (waiting = []));
        waiting.push(variable, versionSet);
      }
    }
    return true;
  }

  /**
   * Places a new clause in the current assignment. Returns NO_CONFLICT, possibly after backjumping
   * and assigning the literal the clause implies; or a conflicting clause to analyse at the
   * (possibly lowered) current level. At level 0 a returned conflict means unsatisfiable.
   */
  #attach(clause: ClauseId): number {
    const c = this.clauses;
    const t = this.trail;
    const start = c.start[clause];
    const n = c.length[clause];
    const lits = c.literals;
    this.stats.clauses++;
    if (n === 1) {
      const literal = lits[start];
      const value = t.literalValue(literal);
      if (value === 1 && t.level[literal >> 1] === 0) return NO_CONFLICT;
      this.#backjump(0);
      if (value === -1 && t.level[literal >> 1] === 0) return clause;
      this.#set(literal, clause);
      return NO_CONFLICT;
    }
    // Pick the two best watches: non-false literals first, then false ones by decreasing level.
    let first = -1;
    let second = -1;
    let firstRank = -2;
    let secondRank = -2;
    let maxFalseLevelCount = 0;
    for (let i = 0; i < n; i++) {
      const literal = lits[start + i];
      const value = t.literalValue(literal);
      const rank = value === -1 ? t.level[literal >> 1] : 0x7fffffff;
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
    if (firstRank !== 0x7fffffff) {
      for (let i = 0; i < n; i++) if (t.level[lits[start + i] >> 1] === firstRank) maxFalseLevelCount++;
    }
    // Move the chosen watches to positions 0 and 1.
    c.swap(clause, 0, first);
    if (second === 0) second = first;
    c.swap(clause, 1, second);
    c.watch(clause);
    const a = lits[start];
    const b = lits[start + 1];
    if (secondRank === 0x7fffffff) return NO_CONFLICT; // two non-false watches
    if (firstRank === 0x7fffffff) {
      // Exactly one non-false literal: the clause is unit at the level of its highest false literal.
      const falseLevel = secondRank;
      if (t.literalValue(a) === 1 && t.level[a >> 1] <= falseLevel) return NO_CONFLICT;
      this.#backjump(falseLevel);
      if (t.literalValue(a) === 0) this.#set(a, clause);
      return NO_CONFLICT;
    }
    // Every literal is false.
    if (firstRank === 0) {
      this.#backjump(0);
      return clause;
    }
    if (maxFalseLevelCount === 1) {
      this.#backjump(t.level[b >> 1]);
      this.#set(a, clause);
      return NO_CONFLICT;
    }
    this.#backjump(firstRank);
    return clause;
  }

  // ---- assignment ----------------------------------------------------------------------------

  #set(literal: number, reason: number): void {
    this.trail.assign(literal, reason);
    if ((literal & 1) === 0) {
      const variable = literal >> 1;
      if (variable === ROOT_VARIABLE) return;
      this.trueStack[this.trueCount++] = variable;
      this.selectedOfName[this.nameOfVariable[variable]] = variable;
      if (!this.encoded[variable]) this.#pending.push(variable);
    }
  }

  readonly #onUnassignTrue = (variable: VariableId): void => {
    this.trueCount--;
    this.selectedOfName[this.nameOfVariable[variable]] = -1;
  };

  #backjump(level: number): void {
    this.trail.backjump(level, this.#onUnassignTrue);
  }

  /** Unit propagation over the watch lists and the per-name at-most-one rule. */
  #propagate(): number {
    const t = this.trail;
    const c = this.clauses;
    const value = t.value;
    while (t.head < t.length) {
      const variable = t.order[t.head++];
      this.stats.propagations++;
      let falseLiteral: number;
      if (value[variable] === 1) {
        const name = this.nameOfVariable[variable];
        if (name >= 0) {
          const siblings = this.members[name]!;
          for (let i = 0; i < siblings.length; i++) {
            const sibling = siblings[i];
            if (sibling === variable) continue;
            const v = value[sibling];
            if (v === 0) this.#set(negative(sibling), FORBIDDEN_BY - variable);
            else if (v === 1) return this.#forbidClause(variable, sibling);
          }
        }
        falseLiteral = negative(variable);
      } else {
        falseLiteral = positive(variable);
      }
      const lits = c.literals;
      const next = c.next;
      let previous = -1;
      let watch = c.watchHead[falseLiteral];
      while (watch !== -1) {
        const clause = watch >> 1;
        const slot = watch & 1;
        const following = next[watch];
        const start = c.start[clause];
        const other = lits[start + 1 - slot];
        const otherValue = other & 1 ? -value[other >> 1] : value[other >> 1];
        if (otherValue === 1) {
          previous = watch;
          watch = following;
          continue;
        }
        const end = start + c.length[clause];
        let moved = false;
        for (let k = start + 2; k < end; k++) {
          const candidate = lits[k];
          const v = candidate & 1 ? -value[candidate >> 1] : value[candidate >> 1];
          if (v !== -1) {
            lits[k] = falseLiteral;
            lits[start + slot] = candidate;
            if (previous === -1) c.watchHead[falseLiteral] = following;
            else next[previous] = following;
            next[watch] = c.watchHead[candidate];
            c.watchHead[candidate] = watch;
            moved = true;
            break;
          }
        }
        if (moved) {
          watch = following;
          continue;
        }
        previous = watch;
        watch = following;
        if (otherValue === -1) return clause;
        this.#set(other, clause);
      }
    }
    return NO_CONFLICT;
  }

  /** The (¬a ∨ ¬b) clause of two same-name candidates, written down only when a proof needs it. */
  #forbidClause(a: VariableId, b: VariableId): ClauseId {
    const low = Math.min(a, b);
    const high = Math.max(a, b);
    const key = low * 0x4000000 + high;
    const known = this.#forbidMemo.get(key);
    if (known !== undefined) return known;
    const clause = this.clauses.add(ClauseKind.Forbid, [negative(a), negative(b)], low, high, this.nameOfVariable[a]);
    this.#forbidMemo.set(key, clause);
    return clause;
  }

  #reasonClause(variable: VariableId): number {
    const reason = this.trail.reason[variable];
    if (reason >= 0) return reason;
    if (reason <= FORBIDDEN_BY) return this.#forbidClause(forbiddenBy(reason), variable);
    return -1;
  }

  // ---- conflicts -----------------------------------------------------------------------------

  /** Learns from a conflict at the current level and backjumps; false when it proves unsat. */
  #resolveConflict(conflict: ClauseId): boolean {
    const t = this.trail;
    if (t.currentLevel === 0) {
      this.#unsatConflict = conflict;
      return false;
    }
    this.stats.conflicts++;
    this.#conflictsSinceRestart++;
    const { learnt, backjumpLevel, lbd, whyStart, whyLength } = this.#analyze(conflict);
    this.activityIncrement /= ACTIVITY_DECAY;
    if (this.activityIncrement > 1e100) {
      for (let i = 0; i < this.activity.length; i++) this.activity[i] *= 1e-100;
      this.activityIncrement *= 1e-100;
    }
    this.#backjump(backjumpLevel);
    const clause = this.clauses.add(ClauseKind.Learnt, learnt, whyStart, whyLength, lbd);
    this.stats.learnt++;
    this.stats.learntKept = ++this.#learntLive;
    if (learnt.length >= 2) this.clauses.watch(clause);
    this.#set(learnt[0], clause);
    return true;
  }

  #analyze(conflict: ClauseId): {
    learnt: number[];
    backjumpLevel: number;
    lbd: number;
    whyStart: number;
    whyLength: number;
  } {
    const t = this.trail;
    const c = this.clauses;
    const seen = this.#seen;
    const level = t.level;
    const currentLevel = t.currentLevel;
    const touched: number[] = [];
    const why: number[] = [];
    const learnt: number[] = [0];
    let pathCount = 0;
    let pivot = -1;
    let index = t.length - 1;
    let clause = conflict;
    for (;;) {
      why.push(clause);
      const start = c.start[clause];
      const end = start + c.length[clause];
      for (let k = start; k < end; k++) {
        const literal = c.literals[k];
        const variable = literal >> 1;
        if (variable === pivot || seen[variable]) continue;
        seen[variable] = 1;
        touched.push(variable);
        const lv = level[variable];
        if (lv === 0) {
          // Dropped from the learnt clause, but its reason belongs to the proof.
          if (variable !== ROOT_VARIABLE) why.push(-1 - variable);
          continue;
        }
        const name = this.nameOfVariable[variable];
        if (name >= 0) this.activity[name] += this.activityIncrement;
        if (lv === currentLevel) pathCount++;
        else learnt.push(literal);
      }
      while (!seen[t.order[index]] || level[t.order[index]] !== currentLevel) {
        // A conflict without a literal at its level means a broken watch invariant: fail loudly.
        if (--index < 0) throw new Error(`internal solver error: conflict clause ${conflict} has no literal at level ${currentLevel}`);
      }
      pivot = t.order[index--];
      pathCount--;
      if (pathCount === 0) break;
      clause = this.#reasonClause(pivot);
    }
    learnt[0] = t.value[pivot] === 1 ? negative(pivot) : positive(pivot);
    for (const variable of touched) seen[variable] = 0;

    let backjumpLevel = 0;
    let at = 1;
    for (let i = 1; i < learnt.length; i++) {
      const lv = level[learnt[i] >> 1];
      if (lv > backjumpLevel) {
        backjumpLevel = lv;
        at = i;
      }
    }
    if (learnt.length > 1) {
      const tmp = learnt[1];
      learnt[1] = learnt[at];
      learnt[at] = tmp;
    }
    const levels = new Set<number>();
    for (const literal of learnt) levels.add(level[literal >> 1]);

    let whyStart = this.#whyUsed;
    let whyLength = why.length;
    if (!this.#whyComplete || this.#whyUsed + why.length > this.#maxWhyEntries) {
      this.#whyComplete = false;
      whyStart = 0;
      whyLength = -1;
    } else {
      this.#why = growInt32(this.#why, this.#whyUsed + why.length);
      this.#why.set(why, this.#whyUsed);
      this.#whyUsed += why.length;
    }
    return { learnt, backjumpLevel, lbd: levels.size, whyStart, whyLength };
  }

  #restart(): void {
    this.stats.restarts++;
    this.#conflictsSinceRestart = 0;
    this.#lubyIndex++;
    this.#restartLimit = RESTART_UNIT * luby(this.#lubyIndex);
    this.#backjump(0);
  }

  /** Deletes the less useful half of the learnt clauses that are not reasons right now. */
  #reduceLearnt(): void {
    const c = this.clauses;
    const t = this.trail;
    const candidates: ClauseId[] = [];
    for (let clause = 0; clause < c.count; clause++) {
      if (c.kind[clause] !== ClauseKind.Learnt || c.length[clause] <= 2) continue;
      const a = c.literalAt(clause, 0) >> 1;
      const b = c.literalAt(clause, 1) >> 1;
      if ((t.value[a] !== 0 && t.reason[a] === clause) || (t.value[b] !== 0 && t.reason[b] === clause)) continue;
      candidates.push(clause);
    }
    candidates.sort((x, y) => c.meta2[y] - c.meta2[x] || x - y);
    const remove = candidates.length >> 1;
    for (let i = 0; i < remove; i++) c.kind[candidates[i]] = ClauseKind.Deleted;
    this.#learntLive -= remove;
    this.stats.learntKept = this.#learntLive;
    c.compact((clause) => c.kind[clause] !== ClauseKind.Forbid);
    this.#maxLearnt = Math.floor(this.#maxLearnt * 1.2);
  }

  // ---- results -------------------------------------------------------------------------------

  #sat(): CoreOutcome {
    const solvables: SolvableId[] = [];
    for (let i = 0; i < this.trueCount; i++) solvables.push(solvableOfVariable(this.trueStack[i]));
    solvables.sort((a, b) => a - b);
    return { kind: 'sat', solvables };
  }

  /**
   * Collects the original clauses behind a conflict at level 0: learnt clauses are replaced by
   * the clauses they came from, and every level-0 assignment by the clause that implied it.
   */
  #unsat(conflict: ClauseId): CoreOutcome {
    const c = this.clauses;
    const t = this.trail;
    const core: ClauseId[] = [];
    const visitedClauses = new Set<ClauseId>();
    const visitedVariables = new Set<VariableId>();
    let complete = true;
    // Entries: 2 * clause + 1 when the clause's level-0 literals must be explained too.
    const stack: number[] = [2 * conflict + 1];
    const pushVariable = (variable: VariableId): void => {
      if (variable === ROOT_VARIABLE || visitedVariables.has(variable)) return;
      visitedVariables.add(variable);
      const reason = this.#reasonClause(variable);
      if (reason >= 0) stack.push(2 * reason + 1);
    };
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const clause = entry >> 1;
      if (entry & 1) {
        const start = c.start[clause];
        const end = start + c.length[clause];
        for (let k = start; k < end; k++) {
          const variable = c.literals[k] >> 1;
          if (t.value[variable] !== 0 && t.level[variable] === 0) pushVariable(variable);
        }
      }
      if (visitedClauses.has(clause)) continue;
      visitedClauses.add(clause);
      if (c.kind[clause] === ClauseKind.Learnt || c.kind[clause] === ClauseKind.Deleted) {
        const whyLength = c.meta1[clause];
        if (whyLength < 0) {
          complete = false;
          continue;
        }
        const whyStart = c.meta0[clause];
        for (let i = whyStart; i < whyStart + whyLength; i++) {
          const item = this.#why[i];
          if (item >= 0) stack.push(2 * item);
          else pushVariable(-1 - item);
        }
      } else {
        core.push(clause);
      }
    }
    core.sort((a, b) => a - b);
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
