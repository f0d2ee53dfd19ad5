/**
 * Ids and literal packing shared by the core.
 *
 * The provider hands out dense ids for names, solvables and version sets (plain numbers: the
 * provider's own). The core adds one variable per solvable (`solvable + 1`) and variable 0 for
 * the root, which is true before the search starts. A literal packs a variable and a sign as
 * `variable << 1 | negated`, so a literal's negation is `literal ^ 1` and literals index typed
 * arrays directly. The core's packed integers are branded so that a literal cannot be passed
 * where a variable or a clause id is expected; the brands exist only for the compiler.
 */
declare const brand: unique symbol;
type Branded<T, Name extends string> = T & { readonly [brand]: Name };

export type NameId = number;
export type SolvableId = number;
export type VersionSetId = number;
/** A boolean variable of the problem: 0 is the root, `solvable + 1` a solvable. */
export type VariableId = Branded<number, 'VariableId'>;
/** `variable << 1 | negated`. */
export type Literal = Branded<number, 'Literal'>;
/** Index of a clause in the `ClauseStore`; stable for the whole search. */
export type ClauseId = Branded<number, 'ClauseId'>;

export const ROOT_VARIABLE = 0 as VariableId;

export function variableOfSolvable(solvable: SolvableId): VariableId {
  return (solvable + 1) as VariableId;
}

export function solvableOfVariable(variable: VariableId): SolvableId {
  return variable - 1;
}

export function positive(variable: VariableId): Literal {
  return (variable << 1) as Literal;
}

export function negative(variable: VariableId): Literal {
  return ((variable << 1) | 1) as Literal;
}

export function variableOf(literal: Literal): VariableId {
  return (literal >> 1) as VariableId;
}

export function asClauseId(index: number): ClauseId {
  return index as ClauseId;
}

type GrowableArray = Int8Array<ArrayBuffer> | Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/**
 * Returns a typed array of the same type with at least `minLength` elements holding `array`'s
 * contents (the length doubles, so repeated growth is amortised); new elements hold `fill`.
 */
export function grow<T extends GrowableArray>(array: T, minLength: number, fill = 0): T {
  if (array.length >= minLength) return array;
  let length = Math.max(16, array.length);
  while (length < minLength) length *= 2;
  const grown = new (array.constructor as new (length: number) => T)(length);
  grown.set(array as ArrayLike<number> & T);
  if (fill !== 0) grown.fill(fill, array.length);
  return grown;
}
