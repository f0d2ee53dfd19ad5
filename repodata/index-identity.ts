/**
 * One process-wide identity for index objects. The store hands out a new `SubdirIndex` object
 * whenever it reloads a subdir, so a key built from these numbers changes exactly when the records
 * behind it may have: solve caches, shared-index handles and closure memos all key on it.
 */
import type { SubdirIndex } from './types.js';

const identities = new WeakMap<SubdirIndex, number>();
let nextIdentity = 1;

/** A number unique to this index object for the life of the process. */
export function indexIdentity(index: SubdirIndex): number {
  let identity = identities.get(index);
  if (identity === undefined) {
    identity = nextIdentity++;
    identities.set(index, identity);
  }
  return identity;
}
