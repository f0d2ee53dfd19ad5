/**
 * The repodata store as a server uses it: a request that gives up (time limit, client gone) stops
 * waiting for its channel indexes, but the loads themselves go on.
 *
 * Why: the store already shares one load per channel subdir among its waiters and stops it only
 * when every waiter has given up (`SharedWork`), which suits a one-shot CLI. A server wants the load
 * finished even then: the index stays in memory and answers the next request without a fetch.
 * Loads stay bounded: the store runs at most one per subdir, and its HTTP client has its own time
 * limits. Solves, the expensive part a request owns alone, are still cancelled with its signal.
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
