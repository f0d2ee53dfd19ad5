/**
 * A signal of our own that follows the caller's, allowed any number of listeners. Work that fans
 * out (every channel subdir of a request, every shard of a closure) adds one abort listener per
 * piece; on the caller's signal that prints Node's "possible EventTarget memory leak" warning past
 * 10 listeners (MaxListenersExceededWarning), and raising the caller's limit is not ours to do.
 * The follower adds one listener to each signal it follows; `unlink` removes them when the work is
 * done. `abort` stops the pieces still running when one has failed and nobody wants the rest.
 * Following several signals this way replaces `AbortSignal.any`, whose weak references and
 * finalization made a cached answer's request cost a fifth more CPU (bench/RESULTS.md, http-load).
 */
import { setMaxListeners } from 'node:events';

export interface FollowingSignal {
  readonly signal: AbortSignal;
  unlink(): void;
  abort(reason: unknown): void;
}

/** A signal that aborts when any of `outers` does (with its reason), or when `abort` is called. */
export function followSignal(...outers: readonly (AbortSignal | undefined)[]): FollowingSignal {
  const inner = new AbortController();
  setMaxListeners(0, inner.signal);
  const abort = (reason: unknown): void => inner.abort(reason);
  const links: (() => void)[] = [];
  for (const outer of outers) {
    if (!outer) continue;
    if (outer.aborted) {
      if (!inner.signal.aborted) inner.abort(outer.reason);
      continue;
    }
    const follow = (): void => inner.abort(outer.reason);
    outer.addEventListener('abort', follow, { once: true });
    links.push(() => outer.removeEventListener('abort', follow));
  }
  const unlink = (): void => {
    for (const link of links.splice(0)) link();
  };
  return { signal: inner.signal, unlink, abort };
}
