/**
 * The plain data the YAML emitter writes (block mappings and sequences of strings, integers,
 * booleans and null) and the error for anything else.
 */
import { CondaResolveError } from '../../../vocabulary/errors.js';

export type YamlScalar = string | number | boolean | null;
/** A mapping keeps insertion order; use a `Map` when keys come from data (a plain object would move integer-like keys first). */
export type YamlMapping = ReadonlyMap<string, YamlValue> | { readonly [key: string]: YamlValue | undefined };
export type YamlValue = YamlScalar | readonly YamlValue[] | YamlMapping;

/** A value the emitter cannot write (a float, a function, a cycle): a programming error in an exporter. */
export class YamlEmitError extends CondaResolveError {
  constructor(message: string) {
    super('CR_ERR_EXPORT_YAML', message);
  }
}

/** A `Map` or a plain object (arrays are sequences). */
export function isMapping(value: unknown): value is YamlMapping {
  return value instanceof Map || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

/** A mapping's entries in insertion order. */
export function mappingEntries(mapping: YamlMapping): [string, YamlValue][] {
  if (mapping instanceof Map) return [...(mapping as ReadonlyMap<string, YamlValue>).entries()];
  const entries: [string, YamlValue][] = [];
  for (const [key, value] of Object.entries(mapping)) {
    // Like JSON.stringify, an undefined property is absent.
    if (value !== undefined) entries.push([key, value as YamlValue]);
  }
  return entries;
}
