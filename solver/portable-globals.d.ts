/**
 * The platform globals the solver (and the vocabulary it imports) may use: WHATWG standards that
 * every JavaScript runtime has, declared as narrowly as the code uses them. Only
 * `solver/tsconfig.json` reads this file (it has no Node or DOM types); the main tsconfig
 * excludes it, since `@types/node` declares the same globals in full.
 */
interface AbortSignal {
  readonly aborted: boolean;
}

interface URL {
  readonly href: string;
  readonly protocol: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
}

declare const URL: {
  new (url: string, base?: string): URL;
};

/** WHATWG Encoding (vocabulary/pypi/core-metadata.ts decodes METADATA bytes). */
declare class TextDecoder {
  constructor(label?: string, options?: { readonly fatal?: boolean; readonly ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
