/**
 * Which clauses watch which literal (two watched literals per clause, as in MiniSat and resolvo).
 *
 * A clause watches the literals at its positions 0 and 1. Each literal heads a singly linked list
 * threaded through the clauses: link `2 * clause + slot` stands for "clause watches the literal at
 * its position `slot`", and `next[link]` is the following link in that literal's list. Walking and
 * editing a list goes through the `WatchCursor`, so the unlinking is written once.
 */
import type { ClauseStore } from './clause-store.js';
import { asClauseId, grow, type ClauseId, type Literal } from './ids.js';

const END = -1;

export class WatchMap {
  readonly #store: ClauseStore;
  #head = new Int32Array(64).fill(END);
  #next = new Int32Array(512).fill(END);
  readonly #cursor: WatchCursor;

  constructor(store: ClauseStore) {
    this.#store = store;
    this.#cursor = new WatchCursor(store);
  }

  /** Makes room for literals up to `literal`. */
  ensureLiteral(literal: Literal): void {
    if (literal >= this.#head.length) this.#head = grow(this.#head, literal + 1, END);
  }

  /** Puts the clause on the lists of its first two literals (resolvo's `start_watching`). */
  watch(clause: ClauseId): void {
    const a = this.#store.literalAt(clause, 0);
    const b = this.#store.literalAt(clause, 1);
    this.ensureLiteral(Math.max(a, b) as Literal);
    if (2 * clause + 1 >= this.#next.length) this.#next = grow(this.#next, 2 * clause + 2, END);
    this.#push(a, 2 * clause);
    this.#push(b, 2 * clause + 1);
  }

  /** Empties every list (before the watched clauses are watched again after a compaction). */
  clear(): void {
    this.#head.fill(END);
    this.#next.fill(END);
  }

  /**
   * A cursor on the first clause watching `literal`. There is one cursor per map, reused by every
   * call: propagation walks one list at a time, and the walk allocates nothing.
   */
  cursor(literal: Literal): WatchCursor {
    this.#cursor.start(literal, this.#head, this.#next);
    return this.#cursor;
  }

  /** The clauses watching `literal`, with the slot they watch it in (for the invariant checker). */
  *watching(literal: Literal): Generator<{ clause: ClauseId; slot: number }> {
    for (let link = this.#head[literal] ?? END; link !== END; link = this.#next[link]) {
      yield { clause: asClauseId(link >> 1), slot: link & 1 };
    }
  }

  #push(literal: Literal, link: number): void {
    this.#next[link] = this.#head[literal];
    this.#head[literal] = link;
  }
}

/**
 * A position in one literal's watch list: `next` steps over the current clause, `update` moves
 * the current clause's watch to another of its literals and steps to the following clause.
 * Both return whether the cursor is still on a clause.
 */
export class WatchCursor {
  #head = new Int32Array(0);
  #next = new Int32Array(0);
  readonly #store: ClauseStore;
  #literal = 0 as Literal;
  #previous = END;
  #current = END;

  constructor(store: ClauseStore) {
    this.#store = store;
  }

  /** Points the cursor at the head of `literal`'s list (the map's arrays, as they are now). */
  start(literal: Literal, head: Int32Array<ArrayBuffer>, next: Int32Array<ArrayBuffer>): boolean {
    this.#literal = literal;
    this.#head = head;
    this.#next = next;
    this.#previous = END;
    this.#current = head[literal];
    return this.#current !== END;
  }

  get done(): boolean {
    return this.#current === END;
  }

  get clause(): ClauseId {
    return asClauseId(this.#current >> 1);
  }

  /** The position (0 or 1) at which the current clause holds the cursor's literal. */
  get slot(): number {
    return this.#current & 1;
  }

  next(): boolean {
    this.#previous = this.#current;
    this.#current = this.#next[this.#current];
    return this.#current !== END;
  }

  /**
   * Moves the current clause's watch from the cursor's literal to the literal at `poolIndex` (an
   * index into the store's pool, among the clause's unwatched literals): the two literals swap
   * positions, the clause leaves this list and joins the new literal's.
   */
  update(poolIndex: number): boolean {
    const link = this.#current;
    const following = this.#next[link];
    const pool = this.#store.pool;
    const watchedAt = this.#store.start(asClauseId(link >> 1)) + (link & 1);
    const replacement = pool[poolIndex];
    pool[poolIndex] = this.#literal;
    pool[watchedAt] = replacement;
    if (this.#previous === END) this.#head[this.#literal] = following;
    else this.#next[this.#previous] = following;
    this.#next[link] = this.#head[replacement];
    this.#head[replacement] = link;
    this.#current = following;
    return following !== END;
  }
}
