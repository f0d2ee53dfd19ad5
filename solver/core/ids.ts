/**
 * Ids and literal packing shared by the core.
 *
 * The provider hands out dense ids for names, solvables and version sets. The core adds one
 * variable per solvable (`solvable + 1`) and variable 0 for the root, which is true before the
 * search starts. A literal packs a variable and a sign as `variable << 1 | negated`, so a literal's
 * negation is `literal ^ 1` and literals index typed arrays directly.
 */
export type NameId = number;
export type SolvableId = number;
export type VersionSetId = number;
export type VariableId = number;
export type Literal = number;
export type ClauseId = number;

export const ROOT_VARIABLE: VariableId = 0;

export function variableOfSolvable(solvable: SolvableId): VariableId {
  return solvable + 1;
}

export function solvableOfVariable(variable: VariableId): SolvableId {
  return variable - 1;
}

export function positive(variable: VariableId): Literal {
  return variable << 1;
}

export function negative(variable: VariableId): Literal {
  return (variable << 1) | 1;
}

export function variableOf(literal: Literal): VariableId {
  return literal >> 1;
}

export function isNegated(literal: Literal): boolean {
  return (literal & 1) === 1;
}

/** Returns a typed array of at least `minLength` elements holding `array`'s contents (doubling). */
export function growInt32(array: Int32Array<ArrayBuffer>, minLength: number, fill = 0): Int32Array<ArrayBuffer> {
  if (array.length >= minLength) return array;
  let length = Math.max(16, array.length);
  while (length < minLength) length *= 2;
  const grown = new Int32Array(length);
  grown.set(array);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}

export function growInt8(array: Int8Array<ArrayBuffer>, minLength: number): Int8Array<ArrayBuffer> {
  if (array.length >= minLength) return array;
  let length = Math.max(16, array.length);
  while (length < minLength) length *= 2;
  const grown = new Int8Array(length);
  grown.set(array);
  return grown;
}

export function growFloat64(array: Float64Array<ArrayBuffer>, minLength: number): Float64Array<ArrayBuffer> {
  if (array.length >= minLength) return array;
  let length = Math.max(16, array.length);
  while (length < minLength) length *= 2;
  const grown = new Float64Array(length);
  grown.set(array);
  return grown;
}
