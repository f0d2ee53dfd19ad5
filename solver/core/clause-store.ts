/**
 * Clauses as parallel typed arrays, with two watched literals per clause.
 *
 * Kinds come from the package domain, each with its SAT form:
 * - `requires`   (¬A ∨ B1 ∨ … ∨ Bn): if A is selected, one candidate Bi of the version set is.
 *                A is the root for the user's specs. With no candidates it is the unit (¬A).
 * - `constrains` (¬A ∨ ¬B): A's `constrains` entry rejects B, so they cannot both be selected.
 * - `forbid`     (¬A ∨ ¬B): A and B share a name. At-most-one per name is propagated natively
 *                (see `solver.ts`); such a clause is only written down when a conflict needs it,
 *                and it is never watched.
 * - `unknown`    (¬A): A's dependencies could not be read.
 * - `learnt`     derived by conflict analysis; `why` lists the clauses it came from, so an
 *                explanation never shows a learnt clause.
 *
 * Literals live in one pool; a clause's first two literals are the watched ones. Watch lists are
 * singly linked through the clauses (`next`), one list head per literal: entry `2c + slot` means
 * clause c watches the literal at its position `slot`.
 */
import { growInt32, type ClauseId, type Literal } from './ids.js';

export const ClauseKind = {
  Requires: 1,
  Constrains: 2,
  Forbid: 3,
  Unknown: 4,
  Learnt: 5,
  Deleted: 6,
} as const;
export type ClauseKind = (typeof ClauseKind)[keyof typeof ClauseKind];

export class ClauseStore {
  count = 0;
  kind = new Uint8Array(256);
  start = new Int32Array(256);
  length = new Int32Array(256);
  /** requires: parent variable; constrains: parent variable; forbid: first variable; unknown: variable; learnt: why start. */
  meta0 = new Int32Array(256);
  /** requires: version set; constrains: constrained variable; forbid: second variable; unknown: reason index; learnt: why length. */
  meta1 = new Int32Array(256);
  /** requires: name of the version set; constrains: version set; forbid: name; learnt: LBD. */
  meta2 = new Int32Array(256);
  next = new Int32Array(512);
  literals = new Int32Array(4096);
  literalsUsed = 0;
  watchHead = new Int32Array(64).fill(-1);
  learntCount = 0;

  /** Makes room for literals up to `literal` in the watch heads. */
  ensureLiteral(literal: Literal): void {
    if (literal >= this.watchHead.length) this.watchHead = growInt32(this.watchHead, literal + 1, -1);
  }

  add(kind: ClauseKind, lits: ArrayLike<number>, meta0: number, meta1: number, meta2: number): ClauseId {
    const id = this.count++;
    if (id >= this.kind.length) {
      const size = this.kind.length * 2;
      const kinds = new Uint8Array(size);
      kinds.set(this.kind);
      this.kind = kinds;
      this.start = growInt32(this.start, size);
      this.length = growInt32(this.length, size);
      this.meta0 = growInt32(this.meta0, size);
      this.meta1 = growInt32(this.meta1, size);
      this.meta2 = growInt32(this.meta2, size);
      this.next = growInt32(this.next, size * 2);
    }
    const n = lits.length;
    this.literals = growInt32(this.literals, this.literalsUsed + n);
    const start = this.literalsUsed;
    for (let i = 0; i < n; i++) this.literals[start + i] = lits[i];
    this.literalsUsed += n;
    this.kind[id] = kind;
    this.start[id] = start;
    this.length[id] = n;
    this.meta0[id] = meta0;
    this.meta1[id] = meta1;
    this.meta2[id] = meta2;
    this.next[2 * id] = -1;
    this.next[2 * id + 1] = -1;
    if (kind === ClauseKind.Learnt) this.learntCount++;
    return id;
  }

  /** Puts the clause on the watch lists of its first two literals. */
  watch(clause: ClauseId): void {
    const s = this.start[clause];
    const a = this.literals[s];
    const b = this.literals[s + 1];
    this.ensureLiteral(Math.max(a, b));
    this.next[2 * clause] = this.watchHead[a];
    this.watchHead[a] = 2 * clause;
    this.next[2 * clause + 1] = this.watchHead[b];
    this.watchHead[b] = 2 * clause + 1;
  }

  /** Swaps the literals at positions i and j of a clause that is not yet watched. */
  swap(clause: ClauseId, i: number, j: number): void {
    const s = this.start[clause];
    const t = this.literals[s + i];
    this.literals[s + i] = this.literals[s + j];
    this.literals[s + j] = t;
  }

  literalAt(clause: ClauseId, index: number): Literal {
    return this.literals[this.start[clause] + index];
  }

  /**
   * Drops deleted clauses' literals and rebuilds every watch list. Clause ids stay stable: the
   * metadata arrays are per id, and explanations refer to clauses by id.
   */
  compact(isWatched: (clause: ClauseId) => boolean): void {
    const pool = new Int32Array(Math.max(4096, this.literalsUsed));
    let used = 0;
    this.watchHead.fill(-1);
    for (let c = 0; c < this.count; c++) {
      if (this.kind[c] === ClauseKind.Deleted) {
        this.length[c] = 0;
        this.start[c] = 0;
        continue;
      }
      const s = this.start[c];
      const n = this.length[c];
      pool.set(this.literals.subarray(s, s + n), used);
      this.start[c] = used;
      used += n;
      this.next[2 * c] = -1;
      this.next[2 * c + 1] = -1;
    }
    this.literals = pool;
    this.literalsUsed = used;
    // Watch only once the literals are in the new pool (`watch` reads them).
    for (let c = 0; c < this.count; c++) {
      if (this.kind[c] !== ClauseKind.Deleted && this.length[c] >= 2 && isWatched(c)) this.watch(c);
    }
  }
}
