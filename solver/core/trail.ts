/**
 * The assignment: a value, a decision level and a reason per variable, and the trail of
 * assignments in the order they were made (grouped by level, as CDCL needs for backjumping).
 */
import { grow, type ClauseId, type Literal, type VariableId } from './ids.js';

/**
 * Why a variable has its value: a clause id (the clause that became unit), `DECISION` (and the
 * root), or, for a variable set false because another candidate of its name was selected,
 * `forbiddenReason(sibling)`, decoded with `forbiddenBy`.
 */
export type Reason = ClauseId | number;

export const DECISION = -1;
const FORBIDDEN_BY = -2;

export function forbiddenReason(sibling: VariableId): Reason {
  return FORBIDDEN_BY - sibling;
}

/** The selected sibling behind a forbidden reason, or -1 when the reason is not one. */
export function forbiddenBy(reason: Reason): VariableId | -1 {
  return reason <= FORBIDDEN_BY ? ((FORBIDDEN_BY - reason) as VariableId) : -1;
}

export class Trail {
  /** Per variable: 0 unassigned, 1 true, -1 false. */
  value = new Int8Array(64);
  level = new Int32Array(64);
  reason = new Int32Array(64);
  order = new Int32Array(64);
  length = 0;
  /** Index of the next trail entry to propagate. */
  head = 0;
  currentLevel = 0;
  /** `levelStart[L]` is the trail index of level L's first assignment (L >= 1). */
  levelStart: number[] = [0];

  ensureVariables(count: number): void {
    if (count > this.value.length) {
      this.value = grow(this.value, count);
      this.level = grow(this.level, count);
      this.reason = grow(this.reason, count);
      this.order = grow(this.order, count);
    }
  }

  /** Value of a literal: 1 true, -1 false, 0 unassigned. */
  literalValue(literal: Literal): number {
    const v = this.value[literal >> 1];
    return literal & 1 ? -v : v;
  }

  /** Makes `literal` true at the current level. */
  assign(literal: Literal, reason: Reason): void {
    const variable = literal >> 1;
    this.value[variable] = literal & 1 ? -1 : 1;
    this.level[variable] = this.currentLevel;
    this.reason[variable] = reason;
    this.order[this.length++] = variable;
  }

  /** The variable assigned at trail position `index`. */
  variableAt(index: number): VariableId {
    return this.order[index] as VariableId;
  }

  newLevel(): void {
    this.currentLevel++;
    this.levelStart[this.currentLevel] = this.length;
  }

  /**
   * Undoes every assignment above `level`. `onUnassignTrue` sees each variable that was true, so
   * the search state can keep its per-name bookkeeping in step.
   */
  backjump(level: number, onUnassignTrue: (variable: VariableId) => void): void {
    if (level >= this.currentLevel) return;
    const keep = this.levelStart[level + 1];
    for (let i = this.length - 1; i >= keep; i--) {
      const variable = this.order[i] as VariableId;
      if (this.value[variable] === 1) onUnassignTrue(variable);
      this.value[variable] = 0;
    }
    this.length = keep;
    if (this.head > keep) this.head = keep;
    this.currentLevel = level;
  }
}
