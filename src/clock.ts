/**
 * Milliseconds on a monotonic clock, for durations. `performance.now()` is the same clock, but in
 * Node the first use of the global `performance` loads perf_hooks (~1.5 ms of a CLI start).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
