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

/** The end of a watch list: what `next` and `update` return past the last clause. */
export const END_OF_LIST = -1;
const END = END_OF_LIST;

/** `2 * clause + slot`: the clause watches the list's literal at its position `slot` (0 or 1). */
export type WatchLink = number;

export function clauseOfLink(link: WatchLink): ClauseId {
  return asClauseId(link >> 1);
}

export function slotOfLink(link: WatchLink): number {
  return link & 1;
}

export class WatchMap {
  readonly #store: ClauseStore;
  #head = new Int32Array(64).fill(END);
  #next = new Int32Array(512).fill(END);
  readonly #cursor: WatchCursor;

  constructor(store: ClauseStore) {
    this.#store = store;
    this.#cursor = new WatchCursor();
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
      yield { clause: clauseOfLink(link), slot: slotOfLink(link) };
    }
  }

  #push(literal: Literal, link: number): void {
    this.#next[link] = this.#head[literal];
    this.#head[literal] = link;
  }
}

/**
 * A position in one literal's watch list: `next` steps over the current clause, `update` moves
 * the current clause's watch to another of its literals and steps to the following clause. Both
 * return the new current link, or END_OF_LIST; the caller keeps it in a local (cheaper, in the
 * innermost loop of the search, than reading it back from the cursor).
 */
export class WatchCursor {
  #head = new Int32Array(0);
  #next = new Int32Array(0);
  #literal = 0 as Literal;
  #previous = END;
  #current = END;

  /** Points the cursor at the head of `literal`'s list (the map's arrays, as they are now). */
  start(literal: Literal, head: Int32Array<ArrayBuffer>, next: Int32Array<ArrayBuffer>): void {
    this.#literal = literal;
    this.#head = head;
    this.#next = next;
    this.#previous = END;
    this.#current = head[literal];
  }

  /** The current link, or END_OF_LIST. */
  get link(): WatchLink {
    return this.#current;
  }

  next(): WatchLink {
    this.#previous = this.#current;
    return (this.#current = this.#next[this.#current]);
  }

  /**
   * Moves the current clause's watch from the cursor's literal to another of its literals:
   * `pool` is the store's literal pool, `watchedAt` the pool index of the watched literal (the
   * clause's start plus `slot`) and `poolIndex` that of the replacement, one of the clause's
   * unwatched literals. The two literals swap positions; the clause leaves this list and joins
   * the replacement's.
   */
  update(pool: Int32Array, watchedAt: number, poolIndex: number): WatchLink {
    const link = this.#current;
    const following = this.#next[link];
    const replacement = pool[poolIndex];
    pool[poolIndex] = this.#literal;
    pool[watchedAt] = replacement;
    if (this.#previous === END) this.#head[this.#literal] = following;
    else this.#next[this.#previous] = following;
    this.#next[link] = this.#head[replacement];
    this.#head[replacement] = link;
    return (this.#current = following);
  }
}
