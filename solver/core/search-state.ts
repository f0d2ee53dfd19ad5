/**
 * The state of a search that the encoder fills in and the decision heuristic reads: the trail,
 * which names and version sets have been reached (with their candidates' variables), the
 * requirements of each solvable, which record of each name is selected, and the names' conflict
 * activity.
 *
 * Assignments go through `set` and `backjump` here, so the per-name bookkeeping (the selected
 * record, the true variables, the solvables waiting to be encoded) never drifts from the trail.
 */
import type { ClauseStore } from './clause-store.js';
import { grow, ROOT_VARIABLE, type ClauseId, type Literal, type NameId, type VariableId, type VersionSetId } from './ids.js';
import type { SolverStats } from './stats.js';
import { Trail, type Reason } from './trail.js';
import type { WatchMap } from './watch-map.js';

/** The data of one search, shared by the parts of the solver that work on it. */
export interface SearchParts {
  readonly state: SearchState;
  readonly store: ClauseStore;
  readonly watches: WatchMap;
  readonly stats: SolverStats;
}

const ACTIVITY_DECAY = 0.95;
const NO_NAME = -1;
const NONE_SELECTED = -1;

export class SearchState {
  readonly trail = new Trail();
  #variableCount = 1;
  /** Per variable: its name, or NO_NAME for the root. */
  #nameOfVariable = new Int32Array(64).fill(NO_NAME);
  /** Per variable: 1 once its dependencies are clauses. */
  #encoded = new Uint8Array(64);
  /** Per variable: the requires clauses it is the parent of. */
  readonly #requiresOf: (ClauseId[] | undefined)[] = [];
  /**
   * Per requires clause: its version set and that set's name (what `decide` reads, packed: it
   * scans every open requirement at every decision).
   */
  #requiredSet = new Int32Array(256);
  #requiredName = new Int32Array(256);
  /** Per name: its candidates' variables, most preferred first; undefined until reached. */
  readonly #members: (Int32Array | undefined)[] = [];
  /** Per version set: the matching candidates' variables, in preference order. */
  readonly #matching: (Int32Array | undefined)[] = [];
  /** Per name: the variable currently selected, or NONE_SELECTED. */
  #selectedOfName = new Int32Array(64).fill(NONE_SELECTED);
  /** Per name: conflict activity (VSIDS-like), bumped when the name takes part in a conflict. */
  #activity = new Float64Array(64);
  #activityIncrement = 1;
  /** Variables currently true (excluding the root), in trail order. */
  #trueStack = new Int32Array(64);
  #trueCount = 0;
  /** True variables whose dependencies are not clauses yet, oldest first from `#pendingHead`. */
  readonly #pending: VariableId[] = [];
  #pendingHead = 0;
  /** Root requirements' clauses, in the user's order. */
  readonly #rootRequires: ClauseId[] = [];

  get variableCount(): number {
    return this.#variableCount;
  }

  /** Makes room for variables below `count`. */
  ensureVariables(count: number): void {
    if (count <= this.#variableCount) return;
    this.#variableCount = count;
    this.trail.ensureVariables(count);
    if (count > this.#nameOfVariable.length) {
      this.#nameOfVariable = grow(this.#nameOfVariable, count, NO_NAME);
      this.#encoded = grow(this.#encoded, this.#nameOfVariable.length);
      this.#trueStack = grow(this.#trueStack, count);
    }
  }

  // ---- names, version sets and requirements (written by the encoder) ------------------------

  /** A name's candidates' variables, or undefined when the name has not been reached. */
  members(name: NameId): Int32Array | undefined {
    return this.#members[name];
  }

  defineName(name: NameId, variables: Int32Array): void {
    for (let i = 0; i < variables.length; i++) this.#nameOfVariable[variables[i]] = name;
    if (name >= this.#selectedOfName.length) {
      this.#selectedOfName = grow(this.#selectedOfName, name + 1, NONE_SELECTED);
      this.#activity = grow(this.#activity, name + 1);
    }
    this.#members[name] = variables;
  }

  nameOf(variable: VariableId): NameId | -1 {
    return this.#nameOfVariable[variable];
  }

  /** The variables matching a version set, or undefined when not asked for yet. */
  matching(versionSet: VersionSetId): Int32Array | undefined {
    return this.#matching[versionSet];
  }

  defineMatching(versionSet: VersionSetId, variables: Int32Array): void {
    this.#matching[versionSet] = variables;
  }

  /** The root's requires clauses, in the user's order. */
  get rootRequires(): readonly ClauseId[] {
    return this.#rootRequires;
  }

  /** The requires clauses whose parent is `variable`. */
  requiresOf(variable: VariableId): readonly ClauseId[] | undefined {
    return this.#requiresOf[variable];
  }

  /** The version set of a requires clause. */
  requiredSet(clause: ClauseId): VersionSetId {
    return this.#requiredSet[clause];
  }

  /** The name of a requires clause's version set. */
  requiredName(clause: ClauseId): NameId {
    return this.#requiredName[clause];
  }

  /** Records a requires clause (one with candidates other than its parent). */
  addRequires(clause: ClauseId, parent: VariableId, versionSet: VersionSetId, name: NameId): void {
    if (clause >= this.#requiredSet.length) {
      this.#requiredSet = grow(this.#requiredSet, clause + 1);
      this.#requiredName = grow(this.#requiredName, clause + 1);
    }
    this.#requiredSet[clause] = versionSet;
    this.#requiredName[clause] = name;
    if (parent === ROOT_VARIABLE) {
      this.#rootRequires.push(clause);
      return;
    }
    let list = this.#requiresOf[parent];
    if (!list) this.#requiresOf[parent] = list = [];
    list.push(clause);
  }

  /** The next true variable whose dependencies are not clauses yet (marked encoded), or -1. */
  takePending(): VariableId | -1 {
    while (this.#pendingHead < this.#pending.length) {
      const variable = this.#pending[this.#pendingHead++];
      if (this.#encoded[variable]) continue;
      this.#encoded[variable] = 1;
      return variable;
    }
    this.#pending.length = 0;
    this.#pendingHead = 0;
    return -1;
  }

  hasPending(): boolean {
    return this.#pendingHead < this.#pending.length;
  }

  // ---- the selection (read by the decision heuristic) ----------------------------------------

  /** The variable selected for `name`, or -1. */
  selectedOf(name: NameId): VariableId | -1 {
    return this.#selectedOfName[name] as VariableId | -1;
  }

  get trueCount(): number {
    return this.#trueCount;
  }

  /** The `index`-th true variable (root excluded), in trail order. */
  trueAt(index: number): VariableId {
    return this.#trueStack[index] as VariableId;
  }

  activityOf(name: NameId): number {
    return this.#activity[name];
  }

  /** Raises a name's activity by the current increment (it took part in a conflict). */
  bump(name: NameId): void {
    this.#activity[name] += this.#activityIncrement;
  }

  /** Ages every activity by raising the increment instead (rescaled before it overflows). */
  decayActivity(): void {
    this.#activityIncrement /= ACTIVITY_DECAY;
    if (this.#activityIncrement > 1e100) {
      for (let i = 0; i < this.#activity.length; i++) this.#activity[i] *= 1e-100;
      this.#activityIncrement *= 1e-100;
    }
  }

  // ---- assignment ----------------------------------------------------------------------------

  /** Makes `literal` true at the current level. */
  set(literal: Literal, reason: Reason): void {
    this.trail.assign(literal, reason);
    if ((literal & 1) === 0) {
      const variable = (literal >> 1) as VariableId;
      if (variable === ROOT_VARIABLE) return;
      this.#trueStack[this.#trueCount++] = variable;
      this.#selectedOfName[this.#nameOfVariable[variable]] = variable;
      if (!this.#encoded[variable]) this.#pending.push(variable);
    }
  }

  readonly #onUnassignTrue = (variable: VariableId): void => {
    this.#trueCount--;
    this.#selectedOfName[this.#nameOfVariable[variable]] = NONE_SELECTED;
  };

  /** Undoes every assignment above `level`. */
  backjump(level: number): void {
    this.trail.backjump(level, this.#onUnassignTrue);
  }
}
