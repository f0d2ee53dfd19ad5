/**
 * Lazy clause generation: a name's candidates and the clauses of a solvable's dependencies are
 * asked of the provider only once the search reaches them.
 *
 * A name is reached when a root spec or an encoded requirement names it; a solvable is encoded
 * (its requires and constrains become clauses) once it is selected. A constrains entry on a name
 * nothing has reached yet waits until the name is reached, since until then no candidate of it can
 * be selected. Every new clause goes to `place`, which puts it into the current assignment (and
 * learns from the conflict it may cause).
 */
import type { ForbidClause, RequiresClause } from './clause.js';
import type { ClauseStore } from './clause-store.js';
import {
  negative,
  positive,
  ROOT_VARIABLE,
  solvableOfVariable,
  variableOfSolvable,
  type ClauseId,
  type Literal,
  type NameId,
  type VariableId,
  type VersionSetId,
} from './ids.js';
import type { DependencyProvider } from './provider.js';
import type { SearchParts, SearchState } from './search-state.js';
import type { SolverStats } from './stats.js';
import type { WatchMap } from './watch-map.js';

export interface EncoderOptions {
  readonly provider: DependencyProvider;
  /** Attaches a new clause; false when that proved the problem unsatisfiable. */
  readonly place: (clause: ClauseId) => boolean;
}

export class Encoder {
  readonly #provider: DependencyProvider;
  readonly #state: SearchState;
  readonly #store: ClauseStore;
  readonly #watches: WatchMap;
  readonly #stats: SolverStats;
  readonly #place: (clause: ClauseId) => boolean;
  /** Constrains entries waiting for their name to be reached: name -> [variable, versionSet, ...]. */
  readonly #pendingConstrains = new Map<NameId, number[]>();
  readonly #forbidMemo = new Map<number, ClauseId>();
  /** Set once `place` reported unsatisfiable: nothing more is placed. */
  #failed = false;

  constructor(parts: SearchParts, options: EncoderOptions) {
    this.#provider = options.provider;
    this.#place = options.place;
    this.#state = parts.state;
    this.#store = parts.store;
    this.#watches = parts.watches;
    this.#stats = parts.stats;
    parts.state.ensureVariables(1);
    parts.watches.ensureLiteral(negative(ROOT_VARIABLE));
  }

  /** Adds the root requirement of a user's spec; the caller places it. */
  addRootRequirement(versionSet: VersionSetId): ClauseId {
    this.#loadName(this.#provider.nameOfVersionSet(versionSet));
    return this.#addRequires(ROOT_VARIABLE, versionSet);
  }

  /** Encodes the dependencies of every newly selected solvable; false when unsatisfiable. */
  encodePending(): boolean {
    for (let variable = this.#state.takePending(); variable >= 0; variable = this.#state.takePending()) {
      if (!this.#encodeSolvable(variable as VariableId)) return false;
    }
    return true;
  }

  /** The (¬a ∨ ¬b) clause of two same-name candidates, written down only when a proof needs it. */
  forbidClause(a: VariableId, b: VariableId): ClauseId {
    const low = Math.min(a, b) as VariableId;
    const high = Math.max(a, b) as VariableId;
    const key = low * 0x4000000 + high;
    const known = this.#forbidMemo.get(key);
    if (known !== undefined) return known;
    const forbid: ForbidClause = { kind: 'forbid', a: low, b: high, name: this.#state.nameOf(a) };
    const clause = this.#store.add(forbid, [negative(a), negative(b)]);
    this.#forbidMemo.set(key, clause);
    return clause;
  }

  #ensureVariables(count: number): void {
    if (count <= this.#state.variableCount) return;
    this.#state.ensureVariables(count);
    this.#watches.ensureLiteral((2 * count + 1) as Literal);
    this.#stats.variables = count;
  }

  #loadName(name: NameId): Int32Array {
    const known = this.#state.members(name);
    if (known) return known;
    const candidates = this.#provider.candidates(name).solvables;
    const variables = new Int32Array(candidates.length);
    let highest = 0;
    for (let i = 0; i < candidates.length; i++) {
      variables[i] = variableOfSolvable(candidates[i]);
      if (variables[i] > highest) highest = variables[i];
    }
    this.#ensureVariables(highest + 1);
    this.#state.defineName(name, variables);
    this.#stats.names++;
    const waiting = this.#pendingConstrains.get(name);
    if (waiting) {
      this.#pendingConstrains.delete(name);
      // Once unsatisfiable, the caller's loop sees it after this step; add nothing more.
      for (let i = 0; i < waiting.length && !this.#failed; i += 2) this.#addConstrains(waiting[i] as VariableId, waiting[i + 1]);
    }
    return variables;
  }

  #matching(versionSet: VersionSetId): Int32Array {
    const known = this.#state.matching(versionSet);
    if (known) return known;
    this.#loadName(this.#provider.nameOfVersionSet(versionSet));
    const solvables = this.#provider.matching(versionSet);
    const variables = new Int32Array(solvables.length);
    for (let i = 0; i < solvables.length; i++) variables[i] = variableOfSolvable(solvables[i]);
    this.#state.defineMatching(versionSet, variables);
    return variables;
  }

  #addRequires(parent: VariableId, versionSet: VersionSetId): ClauseId {
    const candidates = this.#matching(versionSet);
    const requires: RequiresClause = { kind: 'requires', parent, versionSet, name: this.#provider.nameOfVersionSet(versionSet) };
    const literals: Literal[] = [negative(parent)];
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i] as VariableId;
      // A solvable that satisfies its own requirement makes the clause a tautology.
      if (candidate === parent) return this.#store.add(requires, [negative(parent), positive(parent)]);
      literals.push(positive(candidate));
    }
    const clause = this.#store.add(requires, literals);
    this.#state.addRequires(clause, parent, versionSet, requires.name);
    return clause;
  }

  /** Adds (¬A ∨ ¬B) for every candidate B the constrains entry rejects; false when unsatisfiable. */
  #addConstrains(parent: VariableId, versionSet: VersionSetId): boolean {
    const rejected = this.#provider.notMatching(versionSet);
    for (let i = 0; i < rejected.length; i++) {
      const target = variableOfSolvable(rejected[i]);
      const literals = target === parent ? [negative(parent)] : [negative(parent), negative(target)];
      const clause = this.#store.add({ kind: 'constrains', parent, target, versionSet }, literals);
      if (!this.#placeClause(clause)) return false;
    }
    return true;
  }

  #encodeSolvable(variable: VariableId): boolean {
    const dependencies = this.#provider.dependencies(solvableOfVariable(variable));
    if (dependencies.kind === 'unknown') {
      const clause = this.#store.add({ kind: 'unknown', variable, reason: dependencies.reason }, [negative(variable)]);
      return this.#placeClause(clause);
    }
    for (const versionSet of dependencies.requires) {
      if (!this.#placeClause(this.#addRequires(variable, versionSet))) return false;
    }
    for (const versionSet of dependencies.constrains) {
      const name = this.#provider.nameOfVersionSet(versionSet);
      if (this.#state.members(name)) {
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

  #placeClause(clause: ClauseId): boolean {
    if (this.#place(clause)) return true;
    this.#failed = true;
    return false;
  }
}
