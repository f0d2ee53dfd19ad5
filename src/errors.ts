/**
 * The error registry (fastify's `lib/errors.js`): every `CR_ERR_*` code of the program with what it
 * means, the problem an HTTP answer reports it as (its status and `type`), the CLI's exit status,
 * and whether its text may be shown to a remote client. The HTTP error handler and the CLI classify
 * errors by this table and nothing else.
 *
 * Each layer declares the codes it throws beside its errors (vocabulary/errors.ts, solver/errors.ts,
 * repodata/errors.ts, src/exporters/types.ts, src/http/problem.ts, and the service's own below) and
 * merges them into `ErrorCode`; `ERRORS` is typed over that union, so a code without an entry, or an
 * entry without a code, does not compile. test/errors/error-codes.test.ts checks that every code
 * literal in the sources is a key here.
 */
import { CondaResolveError, VOCABULARY_ERROR_CODES, type ErrorCode } from '../vocabulary/errors.js';
import { redactSecrets } from '../vocabulary/channel.js';
import { SOLVER_ERROR_CODES } from '../solver/errors.js';
import { REPODATA_ERROR_CODES } from '../repodata/errors.js';
import { PYPI_ERROR_CODES } from '../repodata/pypi/errors.js';
import { PYPI_VOCABULARY_ERROR_CODES } from '../vocabulary/pypi/errors.js';
import { PYPI_DISTRIBUTION_ERROR_CODES } from '../vocabulary/pypi/distribution-errors.js';
import { EXPORTER_ERROR_CODES } from './exporters/types.js';
import { AUDIT_ERROR_CODES } from './audit/errors.js';
import { PYPI_MAPPING_ERROR_CODES } from './pypi-mapping/index.js';
import { httpProblemCode, PROBLEM_KINDS, type HttpProblemCode, type ProblemKind } from './problem-kinds.js';

export { CondaResolveError, type ErrorCode };

/** The codes the service itself throws (requests, input files, the pool, the CLI and the server). */
export const SERVICE_ERROR_CODES = {
  CR_ERR_INPUT_FILE_UNREADABLE: 'An input file could not be read (missing, a directory, no permission).',
  CR_ERR_INPUT_FILE_TYPE: 'An input file name is not one of the supported kinds (environment.yml/.yaml, *.txt, @EXPLICIT).',
  CR_ERR_INPUT_YAML: 'An environment file is not valid YAML.',
  CR_ERR_INPUT_FILE_TOO_LARGE: 'An environment file is larger than the limit (256 KiB).',
  CR_ERR_INPUT_SHAPE: 'An environment file has a field of the wrong shape.',
  CR_ERR_INPUT_EXPLICIT: 'A line of an @EXPLICIT file is not a package URL.',
  CR_ERR_INPUT_SPEC: 'A package spec of the request cannot be parsed.',
  CR_ERR_INPUT_NO_SPECS: 'Neither specs nor an environment file listing packages were given.',
  CR_ERR_INPUT_TOO_MANY_SPECS: 'A request (with its files) has more distinct specs than the limit.',
  CR_ERR_INPUT_TOO_MANY_PYPI_PROJECTS:
    "The PyPI requirements of a request reach more projects than the limit of one request (the server's --max-pypi-projects).",
  CR_ERR_INPUT_PLATFORM: 'A platform is not a known conda target subdir.',
  CR_ERR_INPUT_CHANNEL: 'A channel of the request cannot be understood.',
  CR_ERR_INPUT_DATE: 'An exclude-newer date cannot be parsed.',
  CR_ERR_INPUT_LOCK: 'A lock file (pixi.lock, conda-lock.yml) cannot be read: not YAML, an unsupported version, or a malformed entry.',
  CR_ERR_INPUT_LOCK_ENVIRONMENT: 'A lock file or pixi manifest has no environment of the name asked for (-e).',
  CR_ERR_INPUT_PIP:
    "An environment file's pip: section cannot be read: an option without its value, a -r file that cannot be read here, or that includes itself.",
  CR_ERR_INPUT_PIP_NEEDS_BUILD:
    'A PyPI requirement needs a build (an editable install, a local project path, a VCS URL, a source archive), which a resolve does not do.',
  CR_ERR_INPUT_MANIFEST:
    'A pixi manifest (pixi.toml, pyproject.toml [tool.pixi]) cannot be read: not TOML, a missing table, or a field of the wrong shape.',
  CR_ERR_INPUT_LOCK_USAGE:
    'Lock options that do not go together (a lock file with specs, --update or --check without --lock, a platform the lock lacks).',
  CR_ERR_INPUT_LOCK_UPDATE: 'A name to update (--update, `update`) that no environment of the lock locks.',
  CR_ERR_INPUT_OPTION: 'An option has an invalid value (channel priority, virtual packages, an argument of the library API).',
  CR_ERR_CHANNEL_REFUSED:
    "A channel policy refuses a channel: the server's (not allowlisted, local, a private address) or allowlist_channels/denylist_channels of configuration.",
  CR_ERR_CONFIG_FILE: 'A configuration file (.condarc, pixi config.toml, .netrc, the auth file) or a CONDA_* variable cannot be used.',
  CR_ERR_CONFIG_VALUE: 'A server setting (flag or CONDA_RESOLVE_* variable) has an invalid value.',
  CR_ERR_OUTPUT_FILE: 'The -o file cannot be written.',
  CR_ERR_OUTPUT_TOO_LARGE: "The answer (native JSON or a format's text) would be larger than the limit (128 MiB); nothing was sent.",
  CR_ERR_CACHE_DIR: 'The repodata cache directory cannot be read or cleaned (conda-resolve info, conda-resolve cache clean).',
  CR_ERR_POOL_BUSY: 'The solve queue is full.',
  CR_ERR_POOL_CLOSED: 'The solver pool is shutting down.',
  CR_ERR_REDIS_UNAVAILABLE: 'serve --redis: Redis (the shared solve cache and job queue) cannot be reached.',
  CR_ERR_SOLVE_UNSATISFIABLE: 'No set of packages satisfies the request on a platform.',
  CR_ERR_EXPORT_UNSOLVED: 'An export was asked of a resolution in which a platform did not solve (library API).',
  CR_ERR_INTERNAL: 'An unexpected failure (a worker that crashed, a missing index); its texts are written to be generic.',
} as const;

type ServiceErrorCodes = typeof SERVICE_ERROR_CODES;
type ExporterErrorCodes = typeof EXPORTER_ERROR_CODES;

declare module '../vocabulary/errors.js' {
  // The service's codes, and the exporters' (declared with their errors in exporters/types.ts).
  interface ErrorCodes extends ServiceErrorCodes, ExporterErrorCodes {}
}

/** The CLI's exit status for a command an error ended (docs/command-line.md lists them). */
export type ErrorExitStatus = typeof EXIT_FAILED | typeof EXIT_USAGE;
/** A solve, an export or the service failed. */
const EXIT_FAILED = 1;
/** A usage error: the command line or an input was wrong. */
const EXIT_USAGE = 2;

/** Where an input error's field becomes `file`: see `ErrorSpec.fileField`. */
export type FileFieldRule = 'names-file' | 'file-given';

export interface ErrorSpec {
  /** What the code means. */
  readonly description: string;
  /** The problem (HTTP status, `type`, `title`) an answer reports this error as. */
  readonly problem: ProblemKind;
  /**
   * For errors that refuse a request's input: the request field at fault, sent as the problem's
   * `field`. A wrapped error's field wins over its wrapper's (an option error wrapping a virtual
   * package error is about `virtual_packages`).
   */
  readonly field?: string;
  /**
   * When the field is `file` instead: `names-file`, when the error names the request's file (an
   * `InputFileError`: a spec on one of its lines); `file-given`, whenever the request carried a
   * file (the count of specs covers the file's too).
   */
  readonly fileField?: FileFieldRule;
  /** The CLI's exit status when this error ends a command. */
  readonly exit: ErrorExitStatus;
  /**
   * Whether the message may be shown to a remote client (local paths and credentials are scrubbed
   * from it all the same). The others only ever reach the operator or the CLI's user; a client
   * would see a generic line.
   */
  readonly exposed: boolean;
}

type Presentation = Omit<ErrorSpec, 'description'>;

/** Bad input: a 400 naming the field, exit status 2. */
function refusal(problem: ProblemKind, field: string, fileField?: FileFieldRule): Presentation {
  return { problem, field, ...(fileField ? { fileField } : {}), exit: EXIT_USAGE, exposed: true };
}

/** A vocabulary error: bad input when a request wraps it, exit status 1 when bare. */
function vocabulary(problem: ProblemKind, field: string): Presentation {
  return { ...refusal(problem, field), exit: EXIT_FAILED };
}

/** A failure of the work itself: exit status 1. */
function failure(problem: ProblemKind, options: { exposed?: boolean; exit?: ErrorExitStatus } = {}): Presentation {
  return { problem, exit: options.exit ?? EXIT_FAILED, exposed: options.exposed ?? true };
}

/** A problem thrown from a route or hook is its own answer. */
const HTTP_PRESENTATION = Object.fromEntries(
  (Object.keys(PROBLEM_KINDS) as ProblemKind[]).map((kind) => [httpProblemCode(kind), failure(kind)]),
) as Record<HttpProblemCode, Presentation>;

const HTTP_DESCRIPTIONS = Object.fromEntries(
  (Object.keys(PROBLEM_KINDS) as ProblemKind[]).map((kind) => [
    httpProblemCode(kind),
    `A "${PROBLEM_KINDS[kind].title}" problem thrown from a route or hook.`,
  ]),
) as Record<HttpProblemCode, string>;

const PRESENTATION: { readonly [C in ErrorCode]: Presentation } = {
  // vocabulary: met in a request wrapped in an input error, whose field they refine. Bare, they
  // end a command only when the host has no conda subdir (exit 1: nothing the user typed was wrong).
  CR_ERR_VERSION_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_VERSION_SPEC_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_MATCH_SPEC_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_CHANNEL_INVALID: vocabulary('invalid-channel', 'channels'),
  CR_ERR_PLATFORM_INVALID: vocabulary('invalid-platform', 'platforms'),
  CR_ERR_VIRTUAL_PACKAGE_INVALID: vocabulary('invalid-option', 'virtual_packages'),
  // Python's vocabulary (vocabulary/pypi/): the pip entries of a request.
  CR_ERR_PYPI_NAME_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_VERSION_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_SPECIFIER_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_REQUIREMENT_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_MARKER_INVALID: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_MARKER_EVALUATION: vocabulary('invalid-spec', 'specs'),
  CR_ERR_PYPI_ENVIRONMENT: failure('solve-failed'),
  // PyPI distributions: met while solving a pip section (an index's files, their metadata, the tags a platform accepts)
  CR_ERR_PYPI_FILENAME_INVALID: failure('solve-failed'),
  CR_ERR_PYPI_METADATA_INVALID: failure('solve-failed'),
  CR_ERR_PYPI_TAG_TARGET_INVALID: failure('solve-failed'),
  CR_ERR_PYPI_NO_COMPATIBLE_WHEEL: failure('solve-failed'),

  // the request and its input files
  CR_ERR_INPUT_FILE_UNREADABLE: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_FILE_TYPE: refusal('invalid-file', 'filename'),
  CR_ERR_INPUT_YAML: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_FILE_TOO_LARGE: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_SHAPE: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_EXPLICIT: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_LOCK: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_LOCK_ENVIRONMENT: refusal('invalid-file', 'environment'),
  CR_ERR_INPUT_LOCK_USAGE: refusal('invalid-option', 'lock'),
  CR_ERR_INPUT_MANIFEST: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_PIP: refusal('invalid-file', 'file'),
  CR_ERR_INPUT_PIP_NEEDS_BUILD: refusal('invalid-spec', 'specs', 'names-file'),
  CR_ERR_INPUT_LOCK_UPDATE: refusal('invalid-option', 'update'),
  CR_ERR_INPUT_SPEC: refusal('invalid-spec', 'specs', 'names-file'),
  CR_ERR_INPUT_NO_SPECS: refusal('no-specs', 'specs', 'file-given'),
  CR_ERR_INPUT_TOO_MANY_SPECS: refusal('too-many-specs', 'specs', 'file-given'),
  CR_ERR_INPUT_TOO_MANY_PYPI_PROJECTS: refusal('too-many-specs', 'pypi'),
  CR_ERR_INPUT_PLATFORM: refusal('invalid-platform', 'platforms'),
  CR_ERR_INPUT_CHANNEL: refusal('invalid-channel', 'channels'),
  CR_ERR_INPUT_DATE: refusal('invalid-option', 'exclude_newer'),
  // Unwrapped only for the channel priority; virtual packages wrap CR_ERR_VIRTUAL_PACKAGE_INVALID.
  CR_ERR_INPUT_OPTION: refusal('invalid-option', 'channel_priority'),
  // Refused by the server before anything is fetched; met by the CLI only in a bad allowlist.
  CR_ERR_CHANNEL_REFUSED: { ...refusal('channel-refused', 'channels'), exit: EXIT_FAILED },

  // formats: the name is checked before any work
  CR_ERR_FORMAT_UNKNOWN: refusal('unknown-format', 'format'),
  CR_ERR_FORMAT_NOT_DETECTED: refusal('unknown-format', 'format'),
  CR_ERR_FORMAT_AMBIGUOUS: refusal('unknown-format', 'format'),
  // Start-up: two exporters claim one name, a plugin is not an exporter.
  CR_ERR_FORMAT_CONFLICT: failure('internal-error', { exposed: false, exit: EXIT_USAGE }),
  CR_ERR_EXPORT_INVALID_PLUGIN: failure('internal-error', { exposed: false }),

  // rendering a solved environment
  CR_ERR_EXPORT_NO_ENVIRONMENTS: failure('export-failed'),
  CR_ERR_EXPORT_NO_URL: failure('export-failed'),
  CR_ERR_EXPORT_SHARED_SUBDIR: failure('export-failed'),
  CR_ERR_EXPORT_EXPLICIT_NO_PACKAGES: failure('export-failed'),
  CR_ERR_EXPORT_EXPLICIT_MISSING_PACKAGES: failure('export-failed'),
  CR_ERR_EXPORT_EXPLICIT_EXTERNAL_PACKAGES: failure('export-failed'),
  CR_ERR_EXPORT_PYLOCK: failure('export-failed'),
  CR_ERR_EXPORT_REQUIREMENTS_NO_SPECS: failure('export-failed'),
  CR_ERR_EXPORT_CONTROL_CHARACTER: failure('export-failed'),
  CR_ERR_EXPORT_YAML: failure('export-failed'),
  CR_ERR_EXPORT_FAILED: failure('export-failed'),
  CR_ERR_EXPORT_UNSOLVED: failure('solve-failed'),

  // solving a platform: reported per platform, a 500 when a format was asked for
  CR_ERR_SOLVE_UNSATISFIABLE: failure('solve-failed'),
  CR_ERR_SOLVE_SPEC: failure('solve-failed'),
  CR_ERR_SOLVE_ABORTED: failure('solve-failed'),
  CR_ERR_SOLVE_TIMEOUT: failure('time-limit'),
  CR_ERR_REPODATA_FETCH: failure('solve-failed'),
  CR_ERR_REPODATA_CORRUPT: failure('solve-failed'),
  CR_ERR_REPODATA_TOO_LARGE: failure('solve-failed'),
  CR_ERR_REPODATA_TIMEOUT: failure('solve-failed'),
  CR_ERR_REPODATA_CHANNEL_NOT_FOUND: failure('solve-failed'),
  CR_ERR_REPODATA_OFFLINE: failure('solve-failed'),
  CR_ERR_REPODATA_URL_REFUSED: failure('solve-failed'),
  CR_ERR_REPODATA_CACHE: failure('solve-failed'),
  CR_ERR_REPODATA_SHARD_NOT_LOADED: failure('solve-failed'),
  CR_ERR_REPODATA_STORE_CLOSED: failure('solve-failed'),
  CR_ERR_REPODATA_PARSE: failure('solve-failed'),
  CR_ERR_REPODATA_VERSION: failure('solve-failed'),
  CR_ERR_REPODATA_RECORD_TOO_LARGE: failure('solve-failed'),
  CR_ERR_REPODATA_INDEX_UNSUPPORTED: failure('solve-failed'),
  CR_ERR_REPODATA_ZSTD: failure('solve-failed'),

  // the Python package index client (repodata/pypi/)
  CR_ERR_PYPI_FETCH: failure('solve-failed'),
  CR_ERR_PYPI_PROJECT_NOT_FOUND: failure('solve-failed'),
  CR_ERR_PYPI_INDEX_PAGE: failure('solve-failed'),
  CR_ERR_PYPI_INDEX_URL: failure('solve-failed'),
  CR_ERR_PYPI_CORRUPT: failure('solve-failed'),
  CR_ERR_PYPI_TOO_LARGE: failure('solve-failed'),
  CR_ERR_PYPI_NEEDS_BUILD: failure('solve-failed'),
  CR_ERR_PYPI_OFFLINE: failure('solve-failed'),

  // the service
  CR_ERR_POOL_BUSY: failure('overloaded'),
  CR_ERR_POOL_CLOSED: failure('overloaded'),
  CR_ERR_REDIS_UNAVAILABLE: failure('overloaded'),
  CR_ERR_INTERNAL: failure('internal-error'),
  CR_ERR_CONFIG_FILE: failure('internal-error', { exposed: false, exit: EXIT_USAGE }),
  CR_ERR_CONFIG_VALUE: failure('internal-error', { exposed: false, exit: EXIT_USAGE }),
  CR_ERR_OUTPUT_FILE: failure('internal-error', { exposed: false }),
  CR_ERR_OUTPUT_TOO_LARGE: failure('answer-too-large'),
  CR_ERR_CACHE_DIR: failure('internal-error', { exposed: false }),

  // audit: the database is the operator's setting on a server (its text stays in the log); the
  // CLI's user sees it, exit 1 (the audit could not be done)
  CR_ERR_AUDIT_NO_DATABASE: failure('internal-error', { exposed: false }),
  CR_ERR_AUDIT_DB_UNREADABLE: failure('internal-error', { exposed: false }),
  CR_ERR_AUDIT_DB_CORRUPT: failure('internal-error', { exposed: false }),
  CR_ERR_AUDIT_DB_TOO_LARGE: failure('internal-error', { exposed: false }),
  CR_ERR_AUDIT_RECORD_INVALID: failure('internal-error', { exposed: false }),
  CR_ERR_AUDIT_API: failure('internal-error', { exposed: false }),
  CR_ERR_PYPI_MAPPING_FILE: failure('internal-error', { exposed: false }),
  ...HTTP_PRESENTATION,
};

const DESCRIPTIONS: { readonly [C in ErrorCode]: string } = {
  ...VOCABULARY_ERROR_CODES,
  ...PYPI_VOCABULARY_ERROR_CODES,
  ...PYPI_DISTRIBUTION_ERROR_CODES,
  ...SOLVER_ERROR_CODES,
  ...REPODATA_ERROR_CODES,
  ...PYPI_ERROR_CODES,
  ...EXPORTER_ERROR_CODES,
  ...SERVICE_ERROR_CODES,
  ...AUDIT_ERROR_CODES,
  ...PYPI_MAPPING_ERROR_CODES,
  ...HTTP_DESCRIPTIONS,
};

/** Every code of the program and what it means (the public list; `ERRORS` has the rest). */
export const ERROR_CODES: { readonly [C in ErrorCode]: string } = Object.freeze(DESCRIPTIONS);

/** The registry: every code of the program and how the service shows it. */
export const ERRORS: { readonly [C in ErrorCode]: ErrorSpec } = Object.freeze(
  Object.fromEntries(
    (Object.keys(PRESENTATION) as ErrorCode[]).map((code) => [
      code,
      Object.freeze({ description: DESCRIPTIONS[code], ...PRESENTATION[code] }),
    ]),
  ) as {
    [C in ErrorCode]: ErrorSpec;
  },
);

/** The registry's entry for an error, or undefined for an untyped error (or a code it lacks, from a plugin written in JS). */
export function errorSpec(error: unknown): ErrorSpec | undefined {
  return error instanceof CondaResolveError ? (ERRORS as Partial<Record<string, ErrorSpec>>)[error.code] : undefined;
}

/** The problem kind the registry gives a code, for codes carried as text (a platform's `errorCode`). */
export function problemOfCode(code: string): ProblemKind | undefined {
  return (ERRORS as Partial<Record<string, ErrorSpec>>)[code]?.problem;
}

/** The CLI's exit status for a command this error ended: 1 for anything the registry does not call a usage error. */
export function exitStatusOf(error: unknown): ErrorExitStatus {
  return errorSpec(error)?.exit ?? EXIT_FAILED;
}

/** Bad input from the user: an unparsable spec, an unreadable file, an unknown platform or format. */
export class UsageError extends CondaResolveError {}

/** An input file could not be read or understood. `file` is the name the user gave. */
export class InputFileError extends UsageError {
  readonly file: string;
  /** The bound the file exceeds, when that is the fault. */
  readonly limit: number | undefined;
  constructor(code: ErrorCode, file: string, message: string, options?: { cause?: unknown; limit?: number }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = file;
    this.limit = options?.limit;
  }
}

/** Patterns that would leak local detail if shown to a client: absolute paths and stack frames. */
// Any file:// URL, and any absolute path of two segments or more that does not continue a word, a
// URL or a version ("linux-64/noarch", "https://host/a/b" and "POST /resolve" stay), whatever
// folder it starts in. A path's last character is not a colon: "cannot create /tmp/x: read-only"
// keeps its colon.
const LOCAL_PATH =
  /file:\/\/[^\s'"`,;)]*[^\s'"`,;):]|(?<![\w:/.~<>-])\/[^\s'"`,;)/]+\/(?:[^\s'"`,;)]*[^\s'"`,;):])?|[A-Za-z]:\\[^\s'"`,;)]*/g;
const STACK_LINE = /\n\s+at .*/g;

const UNEXPECTED = 'Internal error: the solve failed unexpectedly';

/**
 * The text of an error as a user may see it: typed errors keep their message (already written to
 * be safe), stack traces are cut, credentials redacted, and unexpected errors become a generic line.
 * `hidePaths` is for a remote client: local paths are hidden too, and a code the registry does not
 * mark `exposed` becomes the generic line.
 */
export function userMessage(error: unknown, options: { hidePaths?: boolean } = {}): string {
  const spec = errorSpec(error);
  if (!(error instanceof CondaResolveError) || (options.hidePaths && spec?.exposed === false)) return UNEXPECTED;
  let text = redactSecrets(error.message).replace(STACK_LINE, '');
  if (options.hidePaths) text = text.replace(LOCAL_PATH, '<path>');
  return text;
}
