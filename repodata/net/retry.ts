/**
 * When and how long to wait before asking again: connection failures and 429, 500, 502, 503, 504
 * are retried (the other statuses are answers), after `factor * 2^attempt` seconds with jitter
 * (half fixed, half random, so clients that failed together do not come back together), or after
 * the server's `Retry-After` when it gives one.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** The longest `Retry-After` we wait for; a server asking for more fails now with its status. */
export const MAX_RETRY_AFTER_MS = 120_000;
/** The longest computed backoff. */
const MAX_BACKOFF_MS = 60_000;

export function backoffMs(attempt: number, factorSeconds: number, random: () => number): number {
  const full = Math.min(MAX_BACKOFF_MS, factorSeconds * 1000 * 2 ** attempt);
  return Math.round(full / 2 + (random() * full) / 2);
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

/** Wait `ms`, or reject with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 && !signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
