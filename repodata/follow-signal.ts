/**
 * A signal of our own that follows the caller's, allowed any number of listeners. Work that fans
 * out (every channel subdir of a request, every shard of a closure) adds one abort listener per
 * piece; on the caller's signal that prints Node's "possible EventTarget memory leak" warning past
 * 10 listeners (MaxListenersExceededWarning), and raising the caller's limit is not ours to do.
 * The follower adds one listener to the caller's signal; `unlink` removes it when the work is done.
 * `abort` stops the pieces still running when one has failed and nobody wants the rest.
 */
import { setMaxListeners } from 'node:events';

export interface FollowingSignal {
  readonly signal: AbortSignal;
  unlink(): void;
  abort(reason: unknown): void;
}

export function followSignal(outer: AbortSignal | undefined): FollowingSignal {
  const inner = new AbortController();
  setMaxListeners(0, inner.signal);
  const abort = (reason: unknown): void => inner.abort(reason);
  if (!outer) return { signal: inner.signal, unlink: () => undefined, abort };
  const follow = (): void => inner.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  return { signal: inner.signal, unlink: () => outer.removeEventListener('abort', follow), abort };
}
