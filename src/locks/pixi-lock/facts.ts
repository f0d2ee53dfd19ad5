/**
 * What pixi.lock's reader and writers share: the fields rattler derives from a package's location
 * when the lock leaves them out (rattler_lock `utils/derived_fields.rs`), which a writer therefore
 * leaves out when they agree, and how a location is told from a path.
 */
import { isKnownSubdir } from '../../../vocabulary/platform.js';

/** The newest pixi.lock version read and written. */
export const LATEST_PIXI_LOCK_VERSION = 7;

/** pixi's default PyPI index: named when an environment has PyPI packages, left out of an entry's `index`. */
export const DEFAULT_PYPI_INDEX = 'https://pypi.org/simple';

const ARCHIVE = /^(.+)-([^-]+)-([^-]+)\.(conda|tar\.bz2)$/;

/** What a conda package's location says by itself. */
export interface DerivedFields {
  /** The archive file name, when the location ends in one. */
  readonly fileName?: string;
  readonly name?: string;
  readonly version?: string;
  readonly build?: string;
  /** The directory above the file, when it is a known subdir (and the location a URL). */
  readonly subdir?: string;
}

/** A URL (`https://...`, `file:///...`), as opposed to a path (`.`, `../pkg`, `C:\\pkg`). */
export function isUrlLocation(location: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]+:/.test(location);
}

/** rattler's `LocationDerivedFields::new`. */
export function derivedFields(location: string): DerivedFields {
  const clean = location.replace(/[?#].*$/, '');
  const segments = clean.split('/');
  let fileName = segments.pop() ?? '';
  try {
    fileName = decodeURIComponent(fileName);
  } catch {
    // A file name that is not valid percent-encoding is used as written.
  }
  const archive = ARCHIVE.exec(fileName);
  if (!archive) return {};
  const parent = segments.pop();
  const subdir = isUrlLocation(location) && parent !== undefined && isKnownSubdir(parent) ? parent : undefined;
  return { fileName, name: archive[1]!, version: archive[2]!, build: archive[3]!, ...(subdir ? { subdir } : {}) };
}

/** rattler's `derive_build_number_from_build`: the digits the build string ends with (`py312h1_3` -> 3). */
export function derivedBuildNumber(build: string): number | undefined {
  const match = /(\d+)$/.exec(build);
  if (!match) return undefined;
  const number = Number(match[1]);
  return Number.isSafeInteger(number) ? number : undefined;
}

/** rattler's `derive_noarch_type`: a noarch subdir is `python` when the build says `py`, else `generic`. */
export function derivedNoarch(subdir: string, build: string): string | null {
  if (subdir !== 'noarch') return null;
  return build.includes('py') ? 'python' : 'generic';
}
