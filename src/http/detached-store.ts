/**
 * The repodata store as a server uses it: a request that gives up (time limit, client gone) stops
 * waiting for its channel indexes, but the loads themselves go on.
 *
 * Why: the store shares one in-flight load per channel subdir among every request that wants it,
 * and the load is bound to the signal of the request that started it. Passing a request's signal
 * down would let one impatient client fail every other request waiting on the same channel ("The
 * client disconnected" in someone else's answer). Letting the load finish also leaves the index in
 * memory for the next request, which is what a shared service wants. Loads stay bounded: the store
 * runs at most one per subdir, and its HTTP client has its own time limits. Solves, which are the
 * expensive part a request owns alone, are still cancelled with the request's signal.
 */
import { RepodataStore, type LoadOptions } from '../../repodata/store.js';
import type { SubdirIndex } from '../../repodata/types.js';
import type { Channel } from '../../vocabulary/channel.js';

export class DetachedLoadStore extends RepodataStore {
  override prepare(channels: readonly Channel[], subdirs: readonly string[], rootNames: readonly string[], options: LoadOptions = {}): Promise<SubdirIndex[]> {
    const loading = super.prepare(channels, subdirs, rootNames, {});
    const signal = options.signal;
    if (!signal) return loading;
    return new Promise<SubdirIndex[]>((resolve, reject) => {
      const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled'));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      // Settling an already rejected promise is a no-op, so a late failure is never unhandled.
      loading.then(
        (indexes) => {
          signal.removeEventListener('abort', onAbort);
          resolve(indexes);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
