/**
 * How deep the property and load tests go. `npm test` runs them at a depth that keeps the suite
 * under 3 minutes on a 2-core machine; `CR_DEEP=1 npm test` (before a release, or after touching
 * the solver core or the server's admission) runs the full depth: more cases, bigger problems,
 * heavier loads. Each use says what the deep run adds.
 */
export const DEEP = process.env.CR_DEEP === '1';

/** `normal` in a plain run, `deep` under CR_DEEP=1. */
export function depth<T>(normal: T, deep: T): T {
  return DEEP ? deep : normal;
}
