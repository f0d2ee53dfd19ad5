/**
 * A bounded pool for network work: at most `size` tasks run at once, the rest wait in order.
 * Shared by every subdir and shard request of one `RepodataStore`, so a request touching many
 * channels, subdirs and shards never opens more than `size` requests at a time.
 */
export class ConcurrencyLimit {
  readonly size: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`concurrency must be a positive integer, got ${size}`);
    this.size = size;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#release();
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
