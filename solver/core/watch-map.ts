/**
 * Which clauses watch which literal (two watched literals per clause, as in MiniSat and resolvo).
 *
 * A clause watches the literals at its positions 0 and 1. Each literal heads a singly linked list
 * threaded through the clauses: link `2 * clause + slot` stands for "clause watches the literal at
 * its position `slot`", and `next[link]` is the following link in that literal's list. The
 * propagation loop walks a list itself, as resolvo's cursor does but with the position in locals;
 * every edit goes through `watch` and `moveWatch`, so the unlinking is written once.
 */
import type { ClauseStore } from './clause-store.js';
import { asClauseId, grow, type ClauseId, type Literal } from './ids.js';

/** The end of a watch list: the `next` of the last link, and `previous` at the head. */
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
  /** Replaced (not edited) when an array grows, so `lists()` hands out no allocation. */
  #lists: WatchLists = { head: new Int32Array(64).fill(END), next: new Int32Array(512).fill(END) };

  constructor(store: ClauseStore) {
    this.#store = store;
  }

  /** Makes room for literals up to `literal`. */
  ensureLiteral(literal: Literal): void {
    const { head, next } = this.#lists;
    if (literal >= head.length) this.#lists = { head: grow(head, literal + 1, END), next };
  }

  /** Puts the clause on the lists of its first two literals (resolvo's `start_watching`). */
  watch(clause: ClauseId): void {
    const a = this.#store.literalAt(clause, 0);
    const b = this.#store.literalAt(clause, 1);
    this.ensureLiteral(Math.max(a, b) as Literal);
    const { head, next } = this.#lists;
    if (2 * clause + 1 >= next.length) this.#lists = { head, next: grow(next, 2 * clause + 2, END) };
    this.#push(a, 2 * clause);
    this.#push(b, 2 * clause + 1);
  }

  /** Empties every list (before the watched clauses are watched again after a compaction). */
  clear(): void {
    this.#lists.head.fill(END);
    this.#lists.next.fill(END);
  }

  /**
   * The lists' arrays as they are now, for the propagation loop to hold in locals (its innermost
   * loop: a field load per step costs it several percent). Valid until the next `watch`, which
   * may grow them. Read a list with `head[literal]` and `next[link]`; edit it with `moveWatch`.
   */
  lists(): WatchLists {
    return this.#lists;
  }

  #push(literal: Literal, link: number): void {
    const { head, next } = this.#lists;
    next[link] = head[literal];
    head[literal] = link;
  }
}

/** A `WatchMap`'s arrays: `head[literal]` is a list's first link, `next[link]` the link after. */
export interface WatchLists {
  readonly head: Int32Array<ArrayBuffer>;
  readonly next: Int32Array<ArrayBuffer>;
}

/**
 * Moves the watch `link` on `literal`'s list (after `previous`, END_OF_LIST at the head) to
 * another literal of its clause, and returns the link that followed it (resolvo's cursor
 * `update`, with the position held by the caller). `pool` is the store's literal pool,
 * `watchedAt` the pool index of the watched literal (the clause's start plus its slot) and
 * `poolIndex` that of the replacement, one of the clause's unwatched literals. The two literals
 * swap positions; the clause leaves this list and joins the replacement's.
 */
export function moveWatch(
  head: Int32Array,
  next: Int32Array,
  literal: Literal,
  previous: WatchLink,
  link: WatchLink,
  pool: Int32Array,
  watchedAt: number,
  poolIndex: number,
): WatchLink {
  const following = next[link];
  const replacement = pool[poolIndex];
  pool[poolIndex] = literal;
  pool[watchedAt] = replacement;
  if (previous === END) head[literal] = following;
  else next[previous] = following;
  next[link] = head[replacement];
  head[replacement] = link;
  return following;
}
