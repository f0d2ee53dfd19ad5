/**
 * The typed errors of Python's packaging vocabulary (PEP 440 versions and specifiers, PEP 503
 * names, PEP 508 requirements and markers) and their codes, merged into `ErrorCodes` like every
 * layer's (vocabulary/errors.ts explains how).
 */
import { CondaResolveError } from '../errors.js';

/** The codes the PyPI vocabulary throws, and what each means. */
export const PYPI_VOCABULARY_ERROR_CODES = {
  CR_ERR_PYPI_NAME_INVALID: 'A Python project or extra name is not a valid PEP 508 name.',
  CR_ERR_PYPI_VERSION_INVALID: 'A Python package version is not a PEP 440 version.',
  CR_ERR_PYPI_SPECIFIER_INVALID: 'A Python version specifier (PEP 440, e.g. ">=1.2,!=1.3.*") cannot be parsed.',
  CR_ERR_PYPI_REQUIREMENT_INVALID:
    'A Python requirement (PEP 508, e.g. "requests[socks]>=2.31; python_version>=\'3.8\'") cannot be parsed.',
  CR_ERR_PYPI_MARKER_INVALID: 'An environment marker (PEP 508) cannot be parsed.',
  CR_ERR_PYPI_MARKER_EVALUATION: 'An environment marker cannot be evaluated (a comparison PEP 508 leaves undefined).',
  CR_ERR_PYPI_ENVIRONMENT: 'The Python marker environment of a target cannot be computed (no python record, an unknown platform).',
} as const;

type PypiVocabularyErrorCodes = typeof PYPI_VOCABULARY_ERROR_CODES;

declare module '../errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends PypiVocabularyErrorCodes {}
}

/** The code of each kind of text this vocabulary parses. */
export type PypiSyntaxCode =
  | 'CR_ERR_PYPI_NAME_INVALID'
  | 'CR_ERR_PYPI_VERSION_INVALID'
  | 'CR_ERR_PYPI_SPECIFIER_INVALID'
  | 'CR_ERR_PYPI_REQUIREMENT_INVALID'
  | 'CR_ERR_PYPI_MARKER_INVALID';

/**
 * Text that is not valid in its PEP's grammar. `input` is the text as given; `position`, when
 * known, a 0-based index into it where parsing stopped.
 */
export class InvalidPypiSyntaxError extends CondaResolveError {
  readonly input: string;
  readonly reason: string;
  readonly position: number | undefined;

  constructor(code: PypiSyntaxCode, what: string, input: string, reason: string, position?: number) {
    const where = position === undefined ? '' : ` at position ${position}`;
    super(code, `Cannot parse ${what} ${JSON.stringify(input)}: ${reason}${where}`);
    this.input = input;
    this.reason = reason;
    this.position = position;
  }
}

/** A marker that parses but whose comparison PEP 508 leaves undefined, or an environment without a variable. */
export class PypiMarkerEvaluationError extends CondaResolveError {
  constructor(marker: string, reason: string) {
    super('CR_ERR_PYPI_MARKER_EVALUATION', `Cannot evaluate environment marker ${JSON.stringify(marker)}: ${reason}`);
  }
}

/** The marker environment of a target cannot be computed. */
export class PypiEnvironmentError extends CondaResolveError {
  constructor(reason: string) {
    super('CR_ERR_PYPI_ENVIRONMENT', `Cannot compute the Python environment markers: ${reason}`);
  }
}
