/**
 * The validator and serializer compilers of every app this process builds. fastify's defaults
 * make a new Ajv (with its formats) per instance and compile each route's schemas again; these
 * share one Ajv per set of options and keep each compiled function by its schema's JSON, so a
 * second app with the same routes compiles nothing (the tests build many; a process with one
 * server compiles as before). Schemas here are plain JSON data without `$id`.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/** Compiled functions kept per compiler: one app has a few dozen schemas. */
const KEPT_AT_MOST = 1024;

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** `factory` with each compiled function kept under its factory arguments and route schema, as JSON. */
function keptByJson<A extends unknown[], R extends { schema?: unknown }, T>(
  factory: (...args: A) => (route: R) => T,
): (...args: A) => (route: R) => T {
  const kept = new Map<string, T>();
  return (...args) => {
    const compile = factory(...args);
    const prefix = JSON.stringify(args);
    return (route) => {
      const key = `${prefix}\n${JSON.stringify(route.schema)}`;
      let compiled = kept.get(key);
      if (compiled === undefined) {
        // A process building apps of ever new limits keeps no more than this many.
        if (kept.size >= KEPT_AT_MOST) kept.clear();
        kept.set(key, (compiled = compile(route)));
      }
      return compiled;
    };
  };
}

export const SHARED_COMPILERS: Factories = {
  buildValidator: keptByJson(AjvCompiler()),
  buildSerializer: keptByJson(SerializerSelector()),
};
