/**
 * Python project and extra names: PEP 508's name grammar and PEP 503's normalisation (the form the
 * simple index, wheel metadata and every comparison use).
 */
import { InvalidPypiSyntaxError } from './errors.js';

/** A name in its PEP 503 normalised form: lowercase, every run of `-`, `_`, `.` one `-`. */
export type NormalizedPypiName = string & { readonly __normalizedPypiName?: never };

// PEP 508 / core metadata `Name`: ASCII letters and digits, inner `.`, `_`, `-`.
const VALID_NAME = /^(?:[a-z0-9]|[a-z0-9][a-z0-9._-]*[a-z0-9])$/i;
// packaging.utils.is_normalized_name: lowercase, single inner hyphens.
const NORMALIZED_NAME = /^(?:[a-z0-9]|[a-z0-9](?:[a-z0-9]|-(?!-))*[a-z0-9])$/;
const SEPARATOR_RUNS = /[-_.]+/g;

/**
 * PEP 503 normalisation: `re.sub(r"[-_.]+", "-", name).lower()`. Does not check the name: an
 * invalid one comes back normalised all the same (as `packaging.utils.canonicalize_name` does).
 */
export function normalizePypiName(name: string): NormalizedPypiName {
  return name.replace(SEPARATOR_RUNS, '-').toLowerCase();
}

/** Whether `name` is a valid project (or extra) name under PEP 508. */
export function isValidPypiName(name: string): boolean {
  return VALID_NAME.test(name);
}

/** Whether `name` is already in its normalised form. */
export function isNormalizedPypiName(name: string): boolean {
  return NORMALIZED_NAME.test(name);
}

/** Checks a project name and returns it normalised; throws `CR_ERR_PYPI_NAME_INVALID` when invalid. */
export function parsePypiName(name: string): NormalizedPypiName {
  if (!VALID_NAME.test(name)) {
    throw new InvalidPypiSyntaxError(
      'CR_ERR_PYPI_NAME_INVALID',
      'Python project name',
      name,
      'a name is ASCII letters and digits, with ".", "_" or "-" only between them',
    );
  }
  return normalizePypiName(name);
}
