/**
 * Every clause of a search: what it means (a `Clause`, see `clause.ts`) and its literals.
 *
 * The literals of all clauses live in one packed pool, because propagation and conflict analysis
 * read them in their innermost loops; a clause's first two literals are its watched ones (see
 * `watch-map.ts`). An original clause keeps its `Clause` object; a learnt clause, written at every
 * conflict, keeps its LBD and derivation in typed arrays, so learning allocates nothing that
 * outlives the conflict, and `clause()` builds its `LearntClause` view on demand. Clause ids stay
 * stable for the whole search: explanations and derivations refer to clauses by id, so a deleted
 * learnt clause keeps its id and its data, and only its literals go.
 */
import type { Clause, LearntClause } from './clause.js';
import { asClauseId, grow, type ClauseId, type Literal } from './ids.js';

/** A clause that comes from the problem, not from conflict analysis. */
export type OriginalClause = Exclude<Clause, LearntClause>;

/** `whyLength` of a learnt clause whose derivation was not kept (the why pool was full). */
export const NO_DERIVATION = -1;

/**
 * Where the literals are: clause c's are `pool[start[c]]` to `pool[start[c] + length[c] - 1]`.
 * The store replaces this object (never edits it) when an array grows or the pool is compacted,
 * so a loop may hold its arrays in locals while no clause is added.
 */
export interface ClauseLayout {
  readonly pool: Int32Array<ArrayBuffer>;
  readonly start: Int32Array<ArrayBuffer>;
  readonly length: Int32Array<ArrayBuffer>;
}

/** Bits of `#flags`: what the hot checks ask of a clause, without reading its `Clause` object. */
const LEARNT = 1;
const DELETED = 2;
const FORBID = 4;

export class ClauseStore {
  #count = 0;
  /** Per clause: the original clause's meaning, undefined for a learnt clause. */
  readonly #original: (OriginalClause | undefined)[] = [];
  #flags = new Uint8Array(256);
  #layout: ClauseLayout = { pool: new Int32Array(4096), start: new Int32Array(256), length: new Int32Array(256) };
  #literalsUsed = 0;
  /** Per learnt clause: its LBD, and its derivation's range in the analyser's why pool. */
  #lbd = new Int32Array(256);
  #whyStart = new Int32Array(256);
  #whyLength = new Int32Array(256);

  get count(): number {
    return this.#count;
  }

  /** Adds an original clause. */
  add(clause: OriginalClause, literals: ArrayLike<Literal>): ClauseId {
    const id = this.#append(literals, literals.length);
    this.#original[id] = clause;
    this.#flags[id] = clause.kind === 'forbid' ? FORBID : 0;
    return id;
  }

  /**
   * Adds a learnt clause: its first `length` literals of `literals`, its LBD, and where its
   * derivation is in the why pool (`whyLength` NO_DERIVATION when it was not kept).
   */
  addLearnt(literals: ArrayLike<Literal>, length: number, lbd: number, whyStart: number, whyLength: number): ClauseId {
    const id = this.#append(literals, length);
    this.#original[id] = undefined;
    this.#flags[id] = LEARNT;
    this.#lbd[id] = lbd;
    this.#whyStart[id] = whyStart;
    this.#whyLength[id] = whyLength;
    return id;
  }

  /** What the clause means (a learnt clause's view is built on each call). */
  clause(id: ClauseId): Clause {
    const original = this.#original[id];
    if (original) return original;
    const whyLength = this.#whyLength[id];
    const why = whyLength === NO_DERIVATION ? null : { start: this.#whyStart[id], length: whyLength };
    return { kind: 'learnt', why, lbd: this.#lbd[id] };
  }

  isLearnt(id: ClauseId): boolean {
    return (this.#flags[id] & LEARNT) !== 0;
  }

  isDeleted(id: ClauseId): boolean {
    return (this.#flags[id] & DELETED) !== 0;
  }

  /** A learnt clause's LBD. */
  lbd(id: ClauseId): number {
    return this.#lbd[id];
  }

  /** Where a learnt clause's derivation starts in the why pool. */
  whyStart(id: ClauseId): number {
    return this.#whyStart[id];
  }

  /** How long a learnt clause's derivation is, or NO_DERIVATION. */
  whyLength(id: ClauseId): number {
    return this.#whyLength[id];
  }

  /**
   * Whether the clause belongs on the watch lists: not deleted, two literals or more, and not a
   * forbid clause (at-most-one is propagated without them).
   */
  isWatched(id: ClauseId): boolean {
    return (this.#flags[id] & (DELETED | FORBID)) === 0 && this.#layout.length[id] >= 2;
  }

  length(id: ClauseId): number {
    return this.#layout.length[id];
  }

  literalAt(id: ClauseId, index: number): Literal {
    const { pool, start } = this.#layout;
    return pool[start[id] + index] as Literal;
  }

  /** The literal arrays as they are now, for the loops that walk literals (see `ClauseLayout`). */
  layout(): ClauseLayout {
    return this.#layout;
  }

  /** Swaps the literals at positions i and j of a clause that is not yet watched. */
  swap(id: ClauseId, i: number, j: number): void {
    const { pool, start } = this.#layout;
    const s = start[id];
    const t = pool[s + i];
    pool[s + i] = pool[s + j];
    pool[s + j] = t;
  }

  /** Marks a learnt clause deleted; `compact` then drops its literals. */
  delete(id: ClauseId): void {
    this.#flags[id] |= DELETED;
  }

  /** Drops deleted clauses' literals from the pool (the watch lists must be rebuilt after). */
  compact(): void {
    const { pool: old, start, length } = this.#layout;
    const pool = new Int32Array(Math.max(4096, this.#literalsUsed));
    let used = 0;
    for (let c = 0; c < this.#count; c++) {
      if (this.#flags[c] & DELETED) {
        length[c] = 0;
        start[c] = 0;
        continue;
      }
      const s = start[c];
      const n = length[c];
      pool.set(old.subarray(s, s + n), used);
      start[c] = used;
      used += n;
    }
    this.#layout = { pool, start, length };
    this.#literalsUsed = used;
  }

  /** Gives the next id the first `n` of `literals`. */
  #append(literals: ArrayLike<Literal>, n: number): ClauseId {
    const id = asClauseId(this.#count++);
    let { pool, start, length } = this.#layout;
    if (id >= start.length || this.#literalsUsed + n > pool.length) {
      if (id >= start.length) {
        const size = start.length * 2;
        this.#flags = grow(this.#flags, size);
        this.#lbd = grow(this.#lbd, size);
        this.#whyStart = grow(this.#whyStart, size);
        this.#whyLength = grow(this.#whyLength, size);
        start = grow(start, size);
        length = grow(length, size);
      }
      pool = grow(pool, this.#literalsUsed + n);
      this.#layout = { pool, start, length };
    }
    const at = this.#literalsUsed;
    for (let i = 0; i < n; i++) pool[at + i] = literals[i];
    this.#literalsUsed += n;
    start[id] = at;
    length[id] = n;
    return id;
  }
}
