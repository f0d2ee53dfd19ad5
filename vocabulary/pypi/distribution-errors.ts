/**
 * The codes thrown when reading what a Python distribution says about itself: its file name (wheel,
 * sdist), its core metadata (METADATA, PKG-INFO), and the tags a target accepts. Merged into
 * `ErrorCodes` (vocabulary/errors.ts); how the service shows each is in src/errors.ts.
 */
import { CondaResolveError } from '../errors.js';

export const PYPI_DISTRIBUTION_ERROR_CODES = {
  CR_ERR_PYPI_FILENAME_INVALID: 'A wheel or sdist file name does not follow the binary or source distribution format (PEP 427, PEP 625).',
  CR_ERR_PYPI_METADATA_INVALID:
    'A core metadata file (METADATA, PKG-INFO) is malformed: a bad line, a missing or repeated field, an unsupported Metadata-Version.',
  CR_ERR_PYPI_TAG_TARGET_INVALID:
    'The wheel tags of a target cannot be computed: an unsupported platform, implementation or Python version.',
  CR_ERR_PYPI_NO_COMPATIBLE_WHEEL: 'A release has files, but no wheel whose tags the target platform accepts (and no usable sdist).',
} as const;

type PypiDistributionErrorCodes = typeof PYPI_DISTRIBUTION_ERROR_CODES;

declare module '../errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends PypiDistributionErrorCodes {}
}

/** A wheel or sdist file name that cannot be read; `fileName` is the name as given. */
export class InvalidDistributionFileNameError extends CondaResolveError {
  readonly fileName: string;
  readonly kind: 'wheel' | 'sdist';
  readonly reason: string;

  constructor(kind: 'wheel' | 'sdist', fileName: string, reason: string) {
    super('CR_ERR_PYPI_FILENAME_INVALID', `Cannot parse ${kind} file name ${JSON.stringify(fileName)}: ${reason}`);
    this.kind = kind;
    this.fileName = fileName;
    this.reason = reason;
  }
}

/**
 * A malformed METADATA or PKG-INFO. `file` is what the caller named the file (a URL, a path inside a
 * wheel); `line` is 1-based, absent when the fault is the file as a whole (a missing field).
 */
export class InvalidCoreMetadataError extends CondaResolveError {
  readonly file: string;
  readonly line: number | undefined;
  readonly reason: string;

  constructor(file: string, line: number | undefined, reason: string) {
    super('CR_ERR_PYPI_METADATA_INVALID', `Invalid core metadata in ${file}${line === undefined ? '' : `, line ${line}`}: ${reason}`);
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}

/** A target whose wheel tags cannot be computed (a platform with no wheel tags, a bad Python version). */
export class InvalidTagTargetError extends CondaResolveError {
  readonly reason: string;

  constructor(reason: string) {
    super('CR_ERR_PYPI_TAG_TARGET_INVALID', `Cannot compute the wheel tags of the target: ${reason}`);
    this.reason = reason;
  }
}

/**
 * No wheel of a release fits the target. The message (see `describeMissingWheel` in tags.ts) names
 * the platforms the release has wheels for, so the user sees whether a newer glibc or macOS, another
 * Python, or another platform would do.
 */
export class NoCompatibleWheelError extends CondaResolveError {
  readonly project: string;
  readonly version: string;
  readonly platform: string;

  constructor(project: string, version: string, platform: string, message: string) {
    super('CR_ERR_PYPI_NO_COMPATIBLE_WHEEL', message);
    this.project = project;
    this.version = version;
    this.platform = platform;
  }
}
