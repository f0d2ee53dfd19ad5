/** Types for toml-subset.mjs (plain JavaScript: it once ran in the pixi stand-in, without a TypeScript loader). */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };
export declare function parseTomlSubset(text: string): Record<string, TomlValue>;
