/**
 * The assignment: a value, a decision level and a reason per variable, and the trail of
 * assignments in the order they were made (grouped by level, as CDCL needs for backjumping).
 */
import { growInt32, growInt8, type VariableId } from './ids.js';

/** `reason` of a decision (and of the root). */
export const DECISION = -1;

/**
 * `reason` of a variable set false because another candidate of its name was selected:
 * `FORBIDDEN_BY - sibling`, decoded with `forbiddenBy`.
 */
export const FORBIDDEN_BY = -2;

export function forbiddenBy(reason: number): VariableId {
  return FORBIDDEN_BY - reason;
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
      this.value = growInt8(this.value, count);
      this.level = growInt32(this.level, count);
      this.reason = growInt32(this.reason, count);
      this.order = growInt32(this.order, count);
    }
  }

  /** Value of a literal: 1 true, -1 false, 0 unassigned. */
  literalValue(literal: number): number {
    const v = this.value[literal >> 1];
    return literal & 1 ? -v : v;
  }

  /** Makes `literal` true at the current level. */
  assign(literal: number, reason: number): void {
    const variable = literal >> 1;
    this.value[variable] = literal & 1 ? -1 : 1;
    this.level[variable] = this.currentLevel;
    this.reason[variable] = reason;
    this.order[this.length++] = variable;
  }

  newLevel(): void {
    this.currentLevel++;
    this.levelStart[this.currentLevel] = this.length;
  }

  /**
   * Undoes every assignment above `level`. `onUnassign` sees each variable that was true, so the
   * solver can keep its per-name bookkeeping in step.
   */
  backjump(level: number, onUnassignTrue: (variable: VariableId) => void): void {
    if (level >= this.currentLevel) return;
    const keep = this.levelStart[level + 1];
    for (let i = this.length - 1; i >= keep; i--) {
      const variable = this.order[i];
      if (this.value[variable] === 1) onUnassignTrue(variable);
      this.value[variable] = 0;
    }
    this.length = keep;
    if (this.head > keep) this.head = keep;
    this.currentLevel = level;
  }
}
