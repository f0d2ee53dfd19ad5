/**
 * Every clause of a search: what it means (a `Clause`, see `clause.ts`) and its literals.
 *
 * The literals of all clauses live in one packed pool, because propagation and conflict analysis
 * read them in their innermost loops; a clause's first two literals are its watched ones (see
 * `watch-map.ts`). Clause ids stay stable for the whole search: explanations and learnt clauses'
 * `why` refer to clauses by id, so a deleted learnt clause keeps its id and its `Clause`, and
 * only its literals go.
 */
import type { Clause, LearntClause } from './clause.js';
import { asClauseId, grow, type ClauseId, type Literal } from './ids.js';

/** Bits of `#flags`: what the hot checks ask of a clause, without reading its `Clause` object. */
const LEARNT = 1;
const DELETED = 2;
const FORBID = 4;

export class ClauseStore {
  #count = 0;
  readonly #clauses: Clause[] = [];
  #flags = new Uint8Array(256);
  #start = new Int32Array(256);
  #length = new Int32Array(256);
  #literals = new Int32Array(4096);
  #literalsUsed = 0;

  get count(): number {
    return this.#count;
  }

  add(clause: Clause, literals: ArrayLike<Literal>): ClauseId {
    const id = asClauseId(this.#count++);
    if (id >= this.#start.length) {
      const size = this.#start.length * 2;
      this.#flags = grow(this.#flags, size);
      this.#start = grow(this.#start, size);
      this.#length = grow(this.#length, size);
    }
    const n = literals.length;
    if (this.#literalsUsed + n > this.#literals.length) this.#literals = grow(this.#literals, this.#literalsUsed + n);
    const start = this.#literalsUsed;
    for (let i = 0; i < n; i++) this.#literals[start + i] = literals[i];
    this.#literalsUsed += n;
    this.#clauses.push(clause);
    this.#flags[id] = clause.kind === 'learnt' ? LEARNT : clause.kind === 'forbid' ? FORBID : 0;
    this.#start[id] = start;
    this.#length[id] = n;
    return id;
  }

  clause(id: ClauseId): Clause {
    return this.#clauses[id];
  }

  isLearnt(id: ClauseId): boolean {
    return (this.#flags[id] & LEARNT) !== 0;
  }

  isDeleted(id: ClauseId): boolean {
    return (this.#flags[id] & DELETED) !== 0;
  }

  /** The learnt clause `id`, deleted or not. */
  learnt(id: ClauseId): LearntClause {
    return this.#clauses[id] as LearntClause;
  }

  /**
   * Whether the clause belongs on the watch lists: not deleted, two literals or more, and not a
   * forbid clause (at-most-one is propagated without them).
   */
  isWatched(id: ClauseId): boolean {
    return (this.#flags[id] & (DELETED | FORBID)) === 0 && this.#length[id] >= 2;
  }

  length(id: ClauseId): number {
    return this.#length[id];
  }

  literalAt(id: ClauseId, index: number): Literal {
    return this.#literals[this.#start[id] + index] as Literal;
  }

  /**
   * The literal pool and where the clause starts in it, for the loops that walk literals: the
   * pool is replaced when it grows or is compacted, so hold it only while no clause is added.
   */
  get pool(): Int32Array<ArrayBuffer> {
    return this.#literals;
  }

  start(id: ClauseId): number {
    return this.#start[id];
  }

  /** Swaps the literals at positions i and j of a clause that is not yet watched. */
  swap(id: ClauseId, i: number, j: number): void {
    const s = this.#start[id];
    const t = this.#literals[s + i];
    this.#literals[s + i] = this.#literals[s + j];
    this.#literals[s + j] = t;
  }

  /** Marks a learnt clause deleted; `compact` then drops its literals. */
  delete(id: ClauseId): void {
    this.#flags[id] |= DELETED;
  }

  /** Drops deleted clauses' literals from the pool (the watch lists must be rebuilt after). */
  compact(): void {
    const pool = new Int32Array(Math.max(4096, this.#literalsUsed));
    let used = 0;
    for (let c = 0; c < this.#count; c++) {
      if (this.#flags[c] & DELETED) {
        this.#length[c] = 0;
        this.#start[c] = 0;
        continue;
      }
      const s = this.#start[c];
      const n = this.#length[c];
      pool.set(this.#literals.subarray(s, s + n), used);
      this.#start[c] = used;
      used += n;
    }
    this.#literals = pool;
    this.#literalsUsed = used;
  }
}
