/** Types for toml-subset.mjs (plain JavaScript so the pixi stand-in runs without a TypeScript loader). */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };
export declare function parseTomlSubset(text: string): Record<string, TomlValue>;
