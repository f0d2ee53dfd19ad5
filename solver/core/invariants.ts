/**
 * A debug checker of the invariants the search relies on, run after every quiet propagation when
 * `CoreSolverOptions.checkInvariants` is set (the property tests set it; nothing else should, it
 * costs a pass over every clause).
 */
import type { ClauseStore } from './clause-store.js';
import { asClauseId, ROOT_VARIABLE, variableOf, type ClauseId, type Literal, type VariableId } from './ids.js';
import type { SearchParts, SearchState } from './search-state.js';
import { DECISION, forbiddenBy } from './trail.js';
import { clauseOfLink, END_OF_LIST, slotOfLink, type WatchMap } from './watch-map.js';

/**
 * Throws when one of these does not hold:
 * - Watches: every clause that should be watched (not deleted, two literals or more, not a
 *   forbid clause) is on exactly the lists of its literals at positions 0 and 1, once each, and
 *   no list holds anything else.
 * - Watch invariant: a false watched literal has a true partner assigned at a level no higher.
 * - Trail: every assignment is on the trail once, levels never decrease along it, each level
 *   starts with its decision, and everything is propagated.
 * - Reasons: a propagated variable's reason clause holds its literal, and every other literal of
 *   it is false and assigned earlier on the trail.
 * - Names: at most one candidate per name is true, and it is the one recorded as selected.
 */
export function checkInvariants({ state, store, watches }: SearchParts): void {
  const failures: string[] = [];
  const position = checkTrail(state, failures);
  checkWatches(state, store, watches, failures);
  checkReasons(state, store, position, failures);
  checkNames(state, failures);
  if (failures.length > 0) throw new Error(`solver invariant broken:\n${failures.slice(0, 10).join('\n')}`);
}

/** Position on the trail of a variable that is not on it. */
const OFF_TRAIL = -1;

/** Checks the trail; returns each variable's position on it (`OFF_TRAIL` when it is not). */
function checkTrail(state: SearchState, failures: string[]): Int32Array {
  const t = state.trail;
  const position = new Int32Array(state.variableCount).fill(OFF_TRAIL);
  let previousLevel = 0;
  for (let i = 0; i < t.length; i++) {
    const variable = t.variableAt(i);
    if (position[variable] !== OFF_TRAIL) failures.push(`variable ${variable} is on the trail twice`);
    position[variable] = i;
    if (t.value[variable] === 0) failures.push(`variable ${variable} is on the trail but unassigned`);
    const level = t.level[variable];
    if (level < previousLevel || level > t.currentLevel)
      failures.push(`variable ${variable} at trail ${i} has level ${level} after ${previousLevel}`);
    previousLevel = level;
  }
  for (let level = 1; level <= t.currentLevel; level++) {
    const start = t.levelStart[level];
    const decision = t.variableAt(start);
    if (start >= t.length || t.level[decision] !== level || t.reason[decision] !== DECISION)
      failures.push(`level ${level} does not start with its decision`);
  }
  for (let variable = 0; variable < state.variableCount; variable++) {
    if (t.value[variable] !== 0 && position[variable] === OFF_TRAIL) failures.push(`variable ${variable} is assigned but not on the trail`);
  }
  if (t.head !== t.length) failures.push(`trail propagated to ${t.head} of ${t.length}`);
  return position;
}

function checkWatches(state: SearchState, store: ClauseStore, watches: WatchMap, failures: string[]): void {
  // How many times each (clause, slot) link is on a list.
  const onLists = new Uint32Array(2 * store.count);
  const { head, next } = watches.lists();
  for (let literal = 0; literal < 2 * state.variableCount; literal++) {
    for (let link = head[literal] ?? END_OF_LIST; link !== END_OF_LIST; link = next[link]) {
      const clause = clauseOfLink(link);
      const slot = slotOfLink(link);
      if (link < onLists.length) onLists[link]++;
      else failures.push(`the list of ${literal} holds clause ${clause}, which does not exist`);
      if (!store.isWatched(clause)) failures.push(`clause ${clause} is watched but should not be`);
      else if (store.literalAt(clause, slot) !== literal)
        failures.push(`clause ${clause} is on the list of ${literal} but holds ${store.literalAt(clause, slot)} at ${slot}`);
    }
  }
  for (let c = 0; c < store.count; c++) {
    const clause = asClauseId(c);
    if (!store.isWatched(clause)) continue;
    for (let slot = 0; slot < 2; slot++) {
      const times = onLists[2 * clause + slot];
      if (times !== 1) failures.push(`clause ${clause} slot ${slot} is on its watch list ${times} times`);
    }
    const a = store.literalAt(clause, 0);
    const b = store.literalAt(clause, 1);
    checkWatchedPair(state, clause, a, b, failures);
    checkWatchedPair(state, clause, b, a, failures);
  }
}

/** A false watched literal needs a true partner assigned at a level no higher. */
function checkWatchedPair(state: SearchState, clause: ClauseId, watched: Literal, partner: Literal, failures: string[]): void {
  const t = state.trail;
  if (t.literalValue(watched) !== -1) return;
  const partnerValue = t.literalValue(partner);
  if (partnerValue !== 1 || t.level[variableOf(partner)] > t.level[variableOf(watched)]) {
    failures.push(
      `clause ${clause}: watched ${watched} is false at level ${t.level[variableOf(watched)]} but its partner ${partner} is ${partnerValue === 1 ? `true at level ${t.level[variableOf(partner)]}` : partnerValue === 0 ? 'unassigned' : 'false'}`,
    );
  }
}

function checkReasons(state: SearchState, store: ClauseStore, position: Int32Array, failures: string[]): void {
  const t = state.trail;
  for (let i = 0; i < t.length; i++) {
    const variable = t.variableAt(i);
    const at = position[variable];
    const reason = t.reason[variable];
    if (reason === DECISION) continue;
    if (forbiddenBy(reason) >= 0) {
      const sibling = forbiddenBy(reason) as VariableId;
      if (t.value[variable] !== -1 || t.value[sibling] !== 1 || positionOrEnd(position, sibling) > at)
        failures.push(`variable ${variable} is forbidden by ${sibling}, which was not selected before it`);
      continue;
    }
    const clause = reason as ClauseId;
    const own = ((variable << 1) | (t.value[variable] === 1 ? 0 : 1)) as Literal;
    let holds = false;
    for (let k = 0; k < store.length(clause); k++) {
      const literal = store.literalAt(clause, k);
      if (literal === own) {
        holds = true;
        continue;
      }
      const other = variableOf(literal);
      if (t.literalValue(literal) !== -1 || positionOrEnd(position, other) > at)
        failures.push(`variable ${variable}: reason clause ${clause} has ${literal}, not false before it`);
    }
    if (!holds) failures.push(`variable ${variable}: reason clause ${clause} does not hold its literal`);
  }
}

/** A variable's position on the trail, or past its end when it is not on it. */
function positionOrEnd(position: Int32Array, variable: VariableId): number {
  const at = position[variable];
  return at === OFF_TRAIL ? Infinity : at;
}

function checkNames(state: SearchState, failures: string[]): void {
  const t = state.trail;
  let trueCount = 0;
  for (let variable = 1; variable < state.variableCount; variable++) {
    if (t.value[variable] !== 1 || variable === ROOT_VARIABLE) continue;
    trueCount++;
    const name = state.nameOf(variable as VariableId);
    if (name >= 0 && state.selectedOf(name) !== variable)
      failures.push(`variable ${variable} is true but ${state.selectedOf(name)} is selected for name ${name}`);
  }
  if (trueCount !== state.trueCount) failures.push(`${trueCount} variables are true but ${state.trueCount} are recorded`);
}
