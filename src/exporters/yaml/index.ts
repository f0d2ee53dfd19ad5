/**
 * The ruamel-compatible YAML emitter the exporters write with: the data it takes in `data.ts`,
 * scalar analysis and quoting in `scalars.ts`, YAML 1.2 implicit types in `resolver.ts`, and the
 * emitter's layout and line folding in `emitter.ts`.
 */
export { YamlEmitError, type YamlMapping, type YamlScalar, type YamlValue } from './data.js';
export { emitYaml, type YamlEmitOptions } from './emitter.js';
export { resolvePlainScalar } from './resolver.js';
