/**
 * Remembers solve outcomes per index generation, and joins identical solves in flight.
 *
 * A shared resolve service sees the same requests over and over (every CI run of a project locks
 * the same environment). A solve is a pure function of its specs, options and the channel indexes
 * it reads, so its outcome can be reused for as long as those same index objects are current: the
 * key holds the identity of each index (the store hands out a new object when it reloads a
 * channel), so a refreshed channel misses the cache by construction and old entries age out.
 * Identical solves that arrive while one is running wait for that one instead of queueing a copy.
 *
 * Only `solved` and `unsatisfiable` outcomes are kept; time-outs, cancellations and internal errors
 * are not. The cache is bounded by entry count (least recently used out first).
 */
import { indexIdentity } from '../../repodata/index-identity.js';
import type { MixedAnswerSource, MixedAnswerStore, PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from './types.js';

export interface SolveCacheStats {
  readonly entries: number;
  readonly hits: number;
  readonly misses: number;
}

interface InFlight {
  readonly promise: Promise<PlatformSolveOutcome>;
  readonly controller: AbortController;
  waiters: number;
}

export class CachingSolver implements PlatformSolver, MixedAnswerSource {
  readonly #inner: PlatformSolver & MixedAnswerSource;
  readonly #maxEntries: number;
  readonly #done = new Map<string, PlatformSolveOutcome>();
  /** Mixed conda+PyPI answers (src/pypi/answer-cache.ts), under the same bound. */
  readonly #answers = new Map<string, string>();
  readonly #running = new Map<string, InFlight>();
  #hits = 0;
  #misses = 0;

  constructor(inner: PlatformSolver & MixedAnswerSource, options: { maxEntries: number }) {
    this.#inner = inner;
    this.#maxEntries = options.maxEntries;
  }

  stats(): SolveCacheStats {
    return { entries: this.#done.size + this.#answers.size, hits: this.#hits, misses: this.#misses };
  }

  /**
   * Mixed answers are solved in the request's thread, not by the inner solver: they are kept here,
   * and in the inner solver's store too when it has one (Redis, shared by replicas), whose conda
   * key (content identities) is then used so that every replica computes the same key.
   */
  readonly mixedAnswers: MixedAnswerStore = {
    condaKey: (input) => (this.#inner.mixedAnswers ? this.#inner.mixedAnswers.condaKey(input) : this.#key(input)),
    get: async (key) => {
      const text = this.#answers.get(key);
      if (text !== undefined) {
        this.#answers.delete(key);
        this.#answers.set(key, text);
        return text;
      }
      return (await this.#inner.mixedAnswers?.get(key)) ?? null;
    },
    set: async (key, text) => {
      if (this.#maxEntries > 0) {
        this.#answers.set(key, text);
        while (this.#answers.size > this.#maxEntries) this.#answers.delete(this.#answers.keys().next().value as string);
      }
      await this.#inner.mixedAnswers?.set(key, text);
    },
    counted: (hit) => {
      if (hit) this.#hits++;
      else this.#misses++;
      this.#inner.mixedAnswers?.counted(hit);
    },
  };

  async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    signal?.throwIfAborted();
    const key = this.#key(input);
    const done = this.#done.get(key);
    if (done) {
      this.#hits++;
      // Refresh its place in the LRU order.
      this.#done.delete(key);
      this.#done.set(key, done);
      return done;
    }
    let flight = this.#running.get(key);
    if (flight) this.#hits++;
    else {
      this.#misses++;
      flight = this.#start(key, input);
    }
    return this.#wait(flight, signal);
  }

  #start(key: string, input: PlatformSolveInput): InFlight {
    const controller = new AbortController();
    const promise = this.#inner.solve(input, controller.signal).then(
      (outcome) => {
        this.#running.delete(key);
        if (outcome.kind !== 'error' && this.#maxEntries > 0) {
          this.#done.set(key, outcome);
          while (this.#done.size > this.#maxEntries) this.#done.delete(this.#done.keys().next().value as string);
        }
        return outcome;
      },
      (error: unknown) => {
        this.#running.delete(key);
        throw error;
      },
    );
    const flight: InFlight = { promise, controller, waiters: 0 };
    this.#running.set(key, flight);
    return flight;
  }

  /** Waits for a shared solve; the solve is cancelled only when every waiter has given up. */
  #wait(flight: InFlight, signal: AbortSignal | undefined): Promise<PlatformSolveOutcome> {
    flight.waiters++;
    if (!signal) return flight.promise.finally(() => flight.waiters--);
    return new Promise<PlatformSolveOutcome>((resolve, reject) => {
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        flight.waiters--;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        leave();
        if (flight.waiters === 0) flight.controller.abort(signal.reason);
        reject(signal.reason instanceof Error ? signal.reason : new Error('The solve was cancelled'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (outcome) => {
          leave();
          resolve(outcome);
        },
        (error: unknown) => {
          leave();
          reject(error);
        },
      );
    });
  }

  /** Everything the outcome depends on; the time limit is left out (it only decides whether one comes). */
  #key(input: PlatformSolveInput): string {
    return JSON.stringify([
      input.specs.map((spec) => spec.source),
      input.channels.map((channel) => [channel.name, channel.sources.map((index) => [indexIdentity(index), index.recordCount])]),
      input.virtualPackages.map((record) => [record.name, record.version, record.build]),
      input.channelPriority,
      input.excludeNewer ?? null,
      input.locked ?? null,
      input.resolution ?? 'highest',
    ]);
  }
}
