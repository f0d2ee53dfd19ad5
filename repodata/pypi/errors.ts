/**
 * The errors of the simple-index client, and the codes they carry (merged into `ErrorCodes`; their
 * presentation is in src/errors.ts). Every message names the project (and version or file) and the
 * index, with credentials removed, and says what happened.
 */
import { redactSecrets } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';

export const PYPI_ERROR_CODES = {
  CR_ERR_PYPI_FETCH:
    'A package index page or a file could not be downloaded (an HTTP status other than 404, a connection failure, a timeout).',
  CR_ERR_PYPI_PROJECT_NOT_FOUND: 'No package index (nor find-links location) has the project.',
  CR_ERR_PYPI_INDEX_PAGE:
    'A package index answered something that is not a simple-repository page (an HTML page with no distribution links, bad JSON, an unsupported API version).',
  CR_ERR_PYPI_INDEX_URL: 'An index URL or find-links location cannot be used (unsupported scheme, a folder that does not exist).',
  CR_ERR_PYPI_CORRUPT:
    'A downloaded file is not what the index said: a hash that does not match, a wheel that is not a zip, a wheel without METADATA.',
  CR_ERR_PYPI_TOO_LARGE: 'A file is larger than its cap, or a compressed METADATA inflates past its cap (a zip bomb).',
  CR_ERR_PYPI_NEEDS_BUILD: 'An sdist whose metadata is dynamic: it needs a build, which conda-resolve never runs.',
  CR_ERR_PYPI_OFFLINE: 'Offline mode is on and the cache has no copy of a project page or of a metadata file.',
} as const;

export type PypiErrorCode = keyof typeof PYPI_ERROR_CODES;

type PypiErrorCodes = typeof PYPI_ERROR_CODES;

declare module '../../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends PypiErrorCodes {}
}

/** Any error of the client; `project` is the normalised name when one is concerned. */
export class PypiError extends CondaResolveError {
  readonly project: string | null;
  /** The URL concerned, without credentials. */
  readonly url: string | null;

  constructor(code: PypiErrorCode, message: string, options: { project?: string | null; url?: string | null; cause?: unknown } = {}) {
    const url = options.url ? redactSecrets(options.url) : null;
    super(code, redactSecrets(message) + (url && !message.includes(url) ? ` (${url})` : ''), { cause: options.cause });
    this.project = options.project ?? null;
    this.url = url;
  }
}

export class PypiFetchError extends PypiError {
  /** The HTTP status when the server answered. */
  readonly status: number | null;
  constructor(message: string, options: { project?: string | null; url?: string | null; status?: number | null; cause?: unknown } = {}) {
    super('CR_ERR_PYPI_FETCH', message, options);
    this.status = options.status ?? null;
  }
}

export class PypiProjectNotFoundError extends PypiError {
  constructor(project: string, indexes: readonly string[]) {
    const where = indexes.length === 0 ? 'no index is configured' : `not on ${indexes.map(redactSecrets).join(', ')}`;
    super(
      'CR_ERR_PYPI_PROJECT_NOT_FOUND',
      `Cannot find the Python project "${project}": ${where} (a 404 for its page; check the name and the index URLs)`,
      { project },
    );
  }
}

export class PypiIndexPageError extends PypiError {
  constructor(project: string, index: string, detail: string, url: string | null) {
    super(
      'CR_ERR_PYPI_INDEX_PAGE',
      `The package index ${redactSecrets(index)} answered a page for "${project}" that is not a simple-repository page: ${detail}`,
      { project, url },
    );
  }
}

export class PypiIndexUrlError extends PypiError {
  constructor(location: string, detail: string) {
    super('CR_ERR_PYPI_INDEX_URL', `Cannot use the package index or find-links location ${redactSecrets(location)}: ${detail}`);
  }
}

export class PypiCorruptError extends PypiError {
  constructor(message: string, options: { project?: string | null; url?: string | null; cause?: unknown } = {}) {
    super('CR_ERR_PYPI_CORRUPT', message, options);
  }
}

export class PypiTooLargeError extends PypiError {
  readonly limitBytes: number;
  constructor(message: string, limitBytes: number, options: { project?: string | null; url?: string | null } = {}) {
    super('CR_ERR_PYPI_TOO_LARGE', message, options);
    this.limitBytes = limitBytes;
  }
}

export class PypiNeedsBuildError extends PypiError {
  readonly version: string;
  constructor(project: string, version: string, filename: string, reason: string) {
    super(
      'CR_ERR_PYPI_NEEDS_BUILD',
      `Cannot read the dependencies of ${project} ${version}: it has no wheel to read them from, and its sdist ${filename} ${reason}, so they are only known after a build, which conda-resolve never runs (ask for a version with wheels, or add a wheel to a find-links folder)`,
      { project },
    );
    this.version = version;
  }
}

export class PypiOfflineError extends PypiError {
  constructor(what: string, options: { project?: string | null; url?: string | null } = {}) {
    super('CR_ERR_PYPI_OFFLINE', `Cannot read ${what}: offline mode is on and the cache has no copy of it`, options);
  }
}
