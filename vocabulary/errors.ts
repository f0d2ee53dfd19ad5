/**
 * The base of every typed error the project throws on purpose.
 *
 * `code` is stable (`CR_ERR_<AREA>_<WHAT>`) so callers, the CLI and the HTTP layer can branch on it;
 * `message` is safe to show a user: it names what was wrong and where, and never carries a stack
 * trace, a local path the user did not give, or a credential.
 */
export class CondaResolveError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}
