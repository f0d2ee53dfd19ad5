/**
 * A request's own decoding budget (issue 32, item 5): the decoded bytes of the repodata loads one
 * request waits for, at once, beside the process's global budget (`DownloadRules.maxDecodingBytes`).
 * Without it one request for 8 platforms of a hostile channel could take the whole global budget,
 * and other requests' loads failed while it held it.
 *
 * Loads are shared between requests (`SharedWork`), so a load's bytes are charged to every request
 * waiting for it (once per request, however many of its platforms wait), through the load's
 * `DecodingMeter`. A budget that is passed is spent for the rest of its request: its signal aborts,
 * so the request stops waiting for its loads, a load nobody else waits for stops and gives its bytes
 * back, and a load another request waits for goes on for that request.
 */
import { setMaxListeners } from 'node:events';
import { RepodataRequestBudgetError } from './fetch-errors.js';

export class DecodingBudget {
  readonly limitBytes: number;
  #used = 0;
  readonly #spent = new AbortController();

  constructor(limitBytes: number) {
    if (!(limitBytes > 0)) throw new RangeError(`a decoding budget must be positive, got ${limitBytes}`);
    this.limitBytes = limitBytes;
    // Every load of the request listens to it (through its prepare's signal).
    setMaxListeners(0, this.#spent.signal);
  }

  /** Aborts, with a `RepodataRequestBudgetError` naming the load that passed the limit, once spent. */
  get signal(): AbortSignal {
    return this.#spent.signal;
  }

  get spent(): boolean {
    return this.#spent.signal.aborted;
  }

  /** Decoded bytes of the loads this budget's request waits for, now. */
  get usedBytes(): number {
    return this.#used;
  }

  /** The error a load of `channel`/`subdir` fails with once the budget is spent. */
  errorFor(channel: string, subdir: string): RepodataRequestBudgetError {
    return new RepodataRequestBudgetError(channel, subdir, this.limitBytes);
  }

  charge(bytes: number, channel: string, subdir: string): void {
    this.#used += bytes;
    if (this.#used > this.limitBytes && !this.spent) this.#spent.abort(this.errorFor(channel, subdir));
  }

  refund(bytes: number): void {
    this.#used -= bytes;
  }
}

/** What a download reports its decoded bytes to (`FetchContext.meter`). */
export interface DecodedBytesMeter {
  add(bytes: number): void;
  release(bytes: number): void;
}

/**
 * The decoded bytes of one (channel, subdir) load under way, charged to the budgets of the requests
 * waiting for it. A budget joining a load under way is charged what it has decoded so far.
 */
export class DecodingMeter implements DecodedBytesMeter {
  readonly channel: string;
  readonly subdir: string;
  #bytes = 0;
  /** Callers waiting, with or without a budget: the meter is dropped when none is left. */
  #waiters = 0;
  /** Each budget with how many of its request's callers wait (8 platforms share one noarch load). */
  readonly #budgets = new Map<DecodingBudget, number>();

  constructor(channel: string, subdir: string) {
    this.channel = channel;
    this.subdir = subdir;
  }

  get idle(): boolean {
    return this.#waiters === 0;
  }

  join(budget: DecodingBudget | undefined): void {
    this.#waiters += 1;
    if (!budget) return;
    const count = this.#budgets.get(budget) ?? 0;
    this.#budgets.set(budget, count + 1);
    if (count === 0) budget.charge(this.#bytes, this.channel, this.subdir);
  }

  leave(budget: DecodingBudget | undefined): void {
    this.#waiters -= 1;
    if (!budget) return;
    const count = this.#budgets.get(budget) ?? 0;
    if (count > 1) {
      this.#budgets.set(budget, count - 1);
      return;
    }
    this.#budgets.delete(budget);
    if (count === 1) budget.refund(this.#bytes);
  }

  add(bytes: number): void {
    this.#bytes += bytes;
    for (const budget of [...this.#budgets.keys()]) budget.charge(bytes, this.channel, this.subdir);
  }

  release(bytes: number): void {
    this.#bytes -= bytes;
    for (const budget of this.#budgets.keys()) budget.refund(bytes);
  }
}
