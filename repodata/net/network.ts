/**
 * What stands between a GET and the wire: mirrors (each URL tried in turn), credentials from the
 * auth file or `.netrc` for hosts the URL carries none for, and retries of connection failures and
 * busy or failing servers. Only whole exchanges are retried, before any body byte is used, so a
 * retry never mixes two answers in the cache. Waits end when the request's signal does (the
 * overall time limit). `log` receives one line per request and retry, with secrets redacted.
 */
import { redactSecrets } from '../../vocabulary/channel.js';
import { RepodataFetchError } from '../fetch-errors.js';
import { applyCredential, type CredentialStore } from './auth.js';
import { mirrorUrls, type MirrorTable } from './mirrors.js';
import { abortableSleep, backoffMs, MAX_RETRY_AFTER_MS, parseRetryAfter, RETRYABLE_STATUSES } from './retry.js';

export interface NetworkOptions {
  /** Retries after the first attempt (`remote_max_retries`); default 3. */
  readonly maxRetries?: number;
  /** Seconds (`remote_backoff_factor`); default 1. */
  readonly backoffFactor?: number;
  readonly mirrors?: MirrorTable | undefined;
  readonly credentials?: CredentialStore | undefined;
  readonly log?: ((line: string) => void) | undefined;
  /** For tests: how to wait, and the jitter source. */
  readonly sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
}

/** The answer of one exchange as the network layer needs it (fetch.ts `HttpResponse` fits). */
export interface NetworkResponse {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { dump(): Promise<void> };
}

/** One GET of a URL with an optional Authorization header, without retries (fetch.ts `httpGetOnce`). */
export type SendOnce<R extends NetworkResponse> = (url: string, authorization: string | undefined) => Promise<R>;

/** An error's message without the "Cannot fetch repodata for <channel>: " head and the URL tail. */
function detail(message: string): string {
  return message.replace(/^Cannot fetch repodata for .*?: /, '').replace(/ \((?:https?|file):\/\/[^)]*\)$/, '');
}

export class NetworkPolicy {
  readonly #options: NetworkOptions;

  constructor(options: NetworkOptions = {}) {
    this.#options = options;
  }

  async get<R extends NetworkResponse>(url: string, signal: AbortSignal | undefined, send: SendOnce<R>): Promise<R> {
    const candidates = mirrorUrls(url, this.#options.mirrors);
    for (let i = 0; i < candidates.length; i++) {
      const last = i === candidates.length - 1;
      const credential = this.#options.credentials?.lookup(new URL(candidates[i]!));
      const request = applyCredential(candidates[i]!, credential);
      try {
        const response = await this.#withRetries(request.url, request.authorization, signal, send);
        if (!last && RETRYABLE_STATUSES.has(response.status)) {
          await response.body.dump();
          this.#log(`mirror ${redactSecrets(candidates[i]!)} answered HTTP ${response.status}; trying the next mirror`);
          continue;
        }
        return response;
      } catch (error) {
        if (signal?.aborted || last || !(error instanceof RepodataFetchError) || error.status !== null) throw error;
        this.#log(`mirror ${redactSecrets(candidates[i]!)} failed (${detail(error.message)}); trying the next mirror`);
      }
    }
    /* c8 ignore next */
    throw new Error('unreachable: the last mirror returns or throws');
  }

  /**
   * After a download whose body was cut off (the caller discarded what it had written): wait and
   * return true when another whole attempt is allowed, else false.
   */
  async retryBody(attempt: number, url: string, why: string, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted || attempt >= (this.#options.maxRetries ?? 3)) return false;
    await this.#wait(attempt, null, `${redactSecrets(url)} was cut off (${detail(why)})`, signal);
    return true;
  }

  async #withRetries<R extends NetworkResponse>(
    url: string,
    authorization: string | undefined,
    signal: AbortSignal | undefined,
    send: SendOnce<R>,
  ): Promise<R> {
    const max = this.#options.maxRetries ?? 3;
    const shown = redactSecrets(url);
    for (let attempt = 0; ; attempt++) {
      this.#log(`GET ${shown}${attempt > 0 ? ` (retry ${attempt} of ${max})` : ''}`);
      let response: R;
      try {
        response = await send(url, authorization);
      } catch (error) {
        // A connection that failed (no status): worth another try; anything else is final.
        if (signal?.aborted || attempt >= max || !(error instanceof RepodataFetchError) || error.status !== null) throw error;
        await this.#wait(attempt, null, `${shown} failed: ${detail(error.message)}`, signal);
        continue;
      }
      if (!RETRYABLE_STATUSES.has(response.status) || attempt >= max) return response;
      const retryAfter = parseRetryAfter(response.retryAfter, (this.#options.now ?? Date.now)());
      if (retryAfter !== null && retryAfter > MAX_RETRY_AFTER_MS) return response;
      await response.body.dump();
      await this.#wait(attempt, retryAfter, `${shown} answered HTTP ${response.status}`, signal);
    }
  }

  async #wait(attempt: number, retryAfter: number | null, why: string, signal: AbortSignal | undefined): Promise<void> {
    const ms = retryAfter ?? backoffMs(attempt, this.#options.backoffFactor ?? 1, this.#options.random ?? Math.random);
    this.#log(`${why}; retrying in ${(ms / 1000).toFixed(1)} s${retryAfter !== null ? ' (Retry-After)' : ''}`);
    await (this.#options.sleep ?? abortableSleep)(ms, signal);
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}
