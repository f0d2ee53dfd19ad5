/**
 * The service's error codes: one registry, so the CLI's exit status and the HTTP status of every
 * typed error come from one place (fastify's `lib/errors.js` habit). Errors thrown by the lower
 * layers (vocabulary, repodata, solver) carry their own `CR_ERR_*` codes; `classifyError` maps any
 * of them to what a user sees.
 */
import { CondaResolveError } from '../vocabulary/errors.js';
import { redactSecrets } from '../vocabulary/channel.js';

export { CondaResolveError };

/** Bad input from the user: an unparsable spec, an unreadable file, an unknown platform or format. */
export class UsageError extends CondaResolveError {}

/** An input file could not be read or understood. `file` is the name the user gave. */
export class InputFileError extends UsageError {
  readonly file: string;
  /** The bound the file exceeds, when that is the fault. */
  readonly limit: number | undefined;
  constructor(code: string, file: string, message: string, options?: { cause?: unknown; limit?: number }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = file;
    this.limit = options?.limit;
  }
}

export const ERROR_CODES = {
  CR_ERR_INPUT_FILE_UNREADABLE: 'An input file could not be read (missing, a directory, no permission).',
  CR_ERR_INPUT_FILE_TYPE: 'An input file name is not one of the supported kinds (environment.yml/.yaml, *.txt, @EXPLICIT).',
  CR_ERR_INPUT_YAML: 'An environment file is not valid YAML.',
  CR_ERR_INPUT_FILE_TOO_LARGE: 'An environment file is larger than the limit (256 KiB).',
  CR_ERR_INPUT_SHAPE: 'An environment file has a field of the wrong shape.',
  CR_ERR_INPUT_EXPLICIT: 'A line of an @EXPLICIT file is not a package URL.',
  CR_ERR_INPUT_SPEC: 'A package spec cannot be parsed.',
  CR_ERR_INPUT_NO_SPECS: 'Neither specs nor an environment file were given.',
  CR_ERR_INPUT_TOO_MANY_SPECS: 'A request (with its files) has more distinct specs than the limit.',
  CR_ERR_INPUT_PLATFORM: 'A platform is not a known conda subdir.',
  CR_ERR_INPUT_CHANNEL: 'A channel cannot be understood.',
  CR_ERR_INPUT_DATE: 'An --exclude-newer date cannot be parsed.',
  CR_ERR_INPUT_OPTION: 'An option has an invalid value.',
  CR_ERR_SOLVE_UNSATISFIABLE: 'No set of packages satisfies the request on a platform.',
  CR_ERR_EXPORT_UNSOLVED: 'An export was asked of a resolution in which a platform did not solve (library API).',
  CR_ERR_INTERNAL: 'An unexpected failure; the message shown is generic.',
} as const;

/** Patterns that would leak local detail if shown to a client: absolute paths and stack frames. */
// A path's last character is not a colon: "cannot create /tmp/x: read-only" keeps its colon.
const LOCAL_PATH = /(?:file:\/\/)?(?:\/(?:home|root|tmp|var|usr|opt|etc|Users|private|work|srv|mnt)\/(?:[^\s'"`,;)]*[^\s'"`,;):])?)|[A-Za-z]:\\[^\s'"`,;)]*/g;
const STACK_LINE = /\n\s+at .*/g;

/**
 * The text of an error as a user may see it: typed errors keep their message (already written to
 * be safe), stack traces are cut, credentials redacted, and unexpected errors become a generic line.
 */
export function userMessage(error: unknown, options: { hidePaths?: boolean } = {}): string {
  if (error instanceof CondaResolveError) {
    let text = redactSecrets(error.message).replace(STACK_LINE, '');
    if (options.hidePaths) text = text.replace(LOCAL_PATH, '<path>');
    return text;
  }
  return 'Internal error: the solve failed unexpectedly';
}
