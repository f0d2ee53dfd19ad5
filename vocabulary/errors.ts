/**
 * The base of every typed error the project throws on purpose, and the vocabulary's own codes.
 *
 * `code` is stable (`CR_ERR_<AREA>_<WHAT>`) so callers, the CLI and the HTTP layer can branch on it;
 * `message` is safe to show a user: it names what was wrong and where, and never carries a stack
 * trace, a local path the user did not give, or a credential.
 *
 * Each layer declares the codes it throws in a table beside its errors (code -> what it means) and
 * adds them to `ErrorCodes` by declaration merging: solver/errors.ts, repodata/errors.ts and the
 * service's src/errors.ts each `declare module` this file. So `code` is the union of every code in
 * the program, a misspelt or undeclared code does not compile, and no layer imports one above it.
 * How the service shows each code (HTTP problem, exit status) is in the registry of src/errors.ts.
 */

/** The codes the vocabulary throws, and what each means. */
export const VOCABULARY_ERROR_CODES = {
  CR_ERR_VERSION_INVALID: 'A version string cannot be parsed.',
  CR_ERR_VERSION_SPEC_INVALID: 'A version spec (the version part of a match spec) cannot be parsed.',
  CR_ERR_MATCH_SPEC_INVALID: 'A match spec cannot be parsed.',
  CR_ERR_CHANNEL_INVALID: 'A channel name or URL cannot be understood.',
  CR_ERR_PLATFORM_INVALID: 'A platform is not a known conda subdir.',
  CR_ERR_VIRTUAL_PACKAGE_INVALID: 'A virtual package entry (--virtual-package, CONDA_OVERRIDE_*) cannot be used.',
} as const;

type VocabularyErrorCodes = typeof VOCABULARY_ERROR_CODES;

/**
 * Every error code of the program, each layer's merged in (code -> description). Merging a code
 * twice with different descriptions is a compile error, so two layers cannot claim one code.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ErrorCodes extends VocabularyErrorCodes {}

export type ErrorCode = keyof ErrorCodes;

export class CondaResolveError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
