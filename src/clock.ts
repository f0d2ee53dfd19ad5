/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `ms` as a timer delay: a time limit longer than a timer can wait is as good as none, so it waits
 * as long as it can instead of firing at once with a TimeoutOverflowWarning.
 */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}
