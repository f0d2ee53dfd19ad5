/**
 * Bounding and sharing network work. `ConcurrencyLimit`: at most `size` tasks run at once, the rest
 * wait in order; shared by every subdir and shard request of one `RepodataStore`, so a request
 * touching many channels, subdirs and shards never opens more than `size` requests at a time
 * (downloads that run long step aside: see `run`).
 * `SharedWork`: concurrent callers of the same load share one run, which stops only when all of
 * them have given up.
 */
export class ConcurrencyLimit {
  readonly size: number;
  /** How many tasks may run aside at once (a separate, bounded budget). */
  readonly asideSize: number;
  #active = 0;
  #aside = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number, asideSize = size * 4) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`concurrency must be a positive integer, got ${size}`);
    if (!Number.isInteger(asideSize) || asideSize < 0)
      throw new RangeError(`aside budget must be a non-negative integer, got ${asideSize}`);
    this.size = size;
    this.asideSize = asideSize;
  }

  /** Tasks running in a slot now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks that stepped aside and are still running. */
  get aside(): number {
    return this.#aside;
  }

  /**
   * Run `task` in a slot. The task may call `stepAside()` to move from its slot to the aside budget
   * before it ends (a long download does, so one slow server cannot hold the pool while quick
   * requests wait). With the aside budget full, the task keeps its slot: `stepAside` returns false.
   */
  async run<T>(task: (stepAside: () => boolean) => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    let state: 'slot' | 'aside' | 'done' = 'slot';
    const stepAside = (): boolean => {
      if (state !== 'slot') return state === 'aside';
      if (this.#aside >= this.asideSize) return false;
      state = 'aside';
      this.#aside += 1;
      this.#release();
      return true;
    };
    try {
      return await task(stepAside);
    } finally {
      if (state === 'slot') this.#release();
      else if (state === 'aside') this.#aside -= 1;
      state = 'done';
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active < this.size) {
      this.#active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#active += 1;
        resolve();
      };
      const onAbort = (): void => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    this.#active -= 1;
    const next = this.#waiting.shift();
    if (next) next();
  }
}

interface SharedRun<T> {
  readonly promise: Promise<T>;
  readonly controller: AbortController;
  /** Waiters still waiting; the run is aborted when the last one with a signal gives up. */
  waiters: number;
}

/**
 * One run of a task per key, shared by every caller that asks while it runs (a subdir's load, a
 * shard's fetch). The task gets its own signal, which aborts only when every caller has given up:
 * one impatient caller (a client that disconnects, a request past its time limit) stops waiting
 * for itself alone and never fails the others. A caller without a signal never gives up.
 */
export class SharedWork<K, T> {
  readonly #running = new Map<K, SharedRun<T>>();

  /** Runs in progress. */
  get size(): number {
    return this.#running.size;
  }

  run(key: K, task: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let run = this.#running.get(key);
    if (!run) {
      const controller = new AbortController();
      const promise = task(controller.signal).finally(() => {
        if (this.#running.get(key) === run) this.#running.delete(key);
      });
      // Observed here so a run every caller left is never an unhandled rejection.
      promise.catch(() => undefined);
      run = { promise, controller, waiters: 0 };
      this.#running.set(key, run);
    }
    run.waiters += 1;
    if (!signal) return run.promise;
    const joined = run;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        joined.waiters -= 1;
        if (joined.waiters === 0) {
          // Nobody waits any more: stop the work, and let the next caller start afresh.
          if (this.#running.get(key) === joined) this.#running.delete(key);
          joined.controller.abort(signal.reason);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      joined.promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Abort every run (closing down); their callers get `reason`. */
  abortAll(reason: unknown): void {
    const runs = [...this.#running.values()];
    this.#running.clear();
    for (const run of runs) run.controller.abort(reason);
  }
}
