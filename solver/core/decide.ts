/**
 * The decision heuristic: which candidate to select next when propagation has nothing to add. The rule
 * is written out on `decideNext`.
 */
import { positive, solvableOfVariable, variableOfSolvable, type Literal, type VariableId } from './ids.js';
import type { TieBreaking } from './provider.js';
import type { SearchState } from './search-state.js';

/**
 * The next decision, by this rule:
 *
 * 1. The user's specs come first, in the order given: the first root requirement that no selected
 *    record satisfies gets its most preferred open candidate. Deciding them before anything else
 *    is what makes requested packages maximised before their dependencies, and deciding them in
 *    order is what makes the answer optimal spec by spec (conda's order).
 * 2. Otherwise, among the open requirements of selected records: the one whose package has the
 *    highest conflict activity (names that keep failing are settled early), then the one with the
 *    fewest open candidates (less to undo if it fails), then the first in encoding order.
 * 3. Always the requirement's first open candidate in the provider's order: the most preferred.
 *    When that candidate is in a run the provider left provisionally ordered (`TieBreaking`), the
 *    provider picks among the run's open candidates in the list.
 *
 * "Open" means no record of that name is selected yet; after a quiet propagation a selected
 * record of the name always satisfies the requirement, because a non-matching selection would
 * have made all its candidates false and the clause a conflict.
 *
 * Returns the literal to decide next, or -1 when every requirement of the selection is satisfied.
 * With `ties`, candidate lists may hold runs in a provisional order: the chosen candidate's run is
 * ordered then, and its most preferred open member is taken (what a fully ordered list would give).
 */
export function decideNext(state: SearchState, ties?: TieBreaking): Literal | -1 {
  const pick: Pick = { list: EMPTY, index: -1 };
  if (!decideRootSpec(state, pick) && !decideOpenRequirement(state, pick)) return -1;
  const first = pick.list[pick.index];
  return ties ? preferredInRun(state, ties, pick) : positive(first as VariableId);
}

/** A decision's candidate list and the index in it of its first open candidate. */
interface Pick {
  list: Int32Array;
  index: number;
}

const EMPTY = new Int32Array(0);

/** The most preferred open candidate of the run of the picked candidate. */
function preferredInRun(state: SearchState, ties: TieBreaking, { list, index }: Pick): Literal {
  const first = list[index];
  const run = ties.tieRun(solvableOfVariable(first as VariableId));
  if (run < 0) return positive(first as VariableId);
  // A list follows its name's order, so the run's members in it are contiguous.
  const value = state.trail.value;
  const open = [solvableOfVariable(first as VariableId)];
  for (let i = index + 1; i < list.length && ties.tieRun(solvableOfVariable(list[i] as VariableId)) === run; i++) {
    if (value[list[i]] === 0) open.push(solvableOfVariable(list[i] as VariableId));
  }
  return positive(variableOfSolvable(open.length === 1 ? open[0] : ties.preferred(open)));
}

// Two functions, with index loops rather than for-of: V8 inlines the search state's accessors
// into each within its inlining budget, which one function holding both loops sometimes
// exceeded (a real solve then ran about 30% slower).

/** Step 1: the first root spec with no selected record, into `pick`; false when there is none. */
function decideRootSpec(state: SearchState, pick: Pick): boolean {
  const value = state.trail.value;
  const roots = state.rootRequires;
  for (let r = 0; r < roots.length; r++) {
    const clause = roots[r];
    if (state.selectedOf(state.requiredName(clause)) >= 0) continue;
    const candidates = state.matching(state.requiredSet(clause))!;
    for (let i = 0; i < candidates.length; i++) {
      if (value[candidates[i]] === 0) {
        pick.list = candidates;
        pick.index = i;
        return true;
      }
    }
  }
  return false;
}

/** Steps 2 and 3: the best open requirement of the selected records, into `pick`; false when there is none. */
function decideOpenRequirement(state: SearchState, pick: Pick): boolean {
  const value = state.trail.value;
  let best = -1;
  let bestActivity = -1;
  let bestCount = 0;
  const trueCount = state.trueCount;
  for (let i = 0; i < trueCount; i++) {
    const requires = state.requiresOf(state.trueAt(i));
    if (!requires) continue;
    for (let r = 0; r < requires.length; r++) {
      const clause = requires[r];
      const name = state.requiredName(clause);
      if (state.selectedOf(name) >= 0) continue;
      const activity = state.activityOf(name);
      if (activity < bestActivity) continue;
      const candidates = state.matching(state.requiredSet(clause))!;
      let first = -1;
      let firstIndex = 0;
      let count = 0;
      for (let k = 0; k < candidates.length; k++) {
        if (value[candidates[k]] !== 0) continue;
        if (first < 0) {
          first = candidates[k];
          firstIndex = k;
        }
        count++;
        if (activity === bestActivity && count >= bestCount) break;
      }
      if (first < 0) continue;
      if (activity > bestActivity || count < bestCount) {
        best = first;
        bestActivity = activity;
        bestCount = count;
        pick.list = candidates;
        pick.index = firstIndex;
      }
    }
  }
  return best >= 0;
}
