/**
 * PEP 440 versions: parsing every accepted spelling, the normalised form, and the ordering.
 *
 * The grammar and the ordering follow PEP 440 as `packaging.version` implements it: an optional
 * leading `v`, an epoch (`1!`), a release (`1.2.3`), a pre-release (`a`/`b`/`rc`, spelt also
 * `alpha`, `beta`, `c`, `pre`, `preview`), a post-release (`.post1`, `-1`, `rev`, `r`), a
 * development release (`.dev1`) and a local label (`+ubuntu.1`); separators `.`, `_`, `-` and case
 * are free, a missing number is 0. Ordering: epoch, then the release with trailing zeros ignored
 * (`1.0 == 1`), then dev-only < a < b < rc < final < post (each with its dev releases first),
 * then the local label (none first; numbers compare as numbers and after strings; shorter first).
 */
import { InvalidPypiSyntaxError } from './errors.js';

/** A number of a version: a `number`, or a `bigint` beyond 2^53 (Python's ints are unbounded). */
export type PypiNumber = number | bigint;
export type PypiPreLetter = 'a' | 'b' | 'rc';
/** One segment of a local label: a lowercase string or a number. */
export type PypiLocalSegment = string | PypiNumber;

/** The parts of a version, each normalised. */
export interface PypiVersionParts {
  readonly epoch: PypiNumber;
  readonly release: readonly PypiNumber[];
  readonly pre: readonly [PypiPreLetter, PypiNumber] | undefined;
  readonly post: PypiNumber | undefined;
  readonly dev: PypiNumber | undefined;
  readonly local: readonly PypiLocalSegment[] | undefined;
}

/** A string that is not a PEP 440 version (`CR_ERR_PYPI_VERSION_INVALID`). */
export class InvalidPypiVersionError extends InvalidPypiSyntaxError {
  constructor(input: string, reason = 'not a PEP 440 version (such as 1.0, 2.1rc1, 1!2.0.post1.dev3+local.7)') {
    super('CR_ERR_PYPI_VERSION_INVALID', 'Python package version', input, reason);
  }
}

/** Python's `\s` (str.isspace), which surrounds a version: JS's `\s` differs on \x1c-\x1f, \x85, \ufeff. */
export const PYTHON_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

/** The PEP 440 version grammar (packaging's VERSION_PATTERN), unanchored, without flags. */
export const PYPI_VERSION_PATTERN =
  'v?(?:([0-9]+)!)?([0-9]+(?:\\.[0-9]+)*)' +
  '(?:[._-]?(alpha|a|beta|b|preview|pre|c|rc)[._-]?([0-9]+)?)?' +
  '(?:-([0-9]+)|[._-]?(post|rev|r)[._-]?([0-9]+)?)?' +
  '(?:[._-]?(dev)[._-]?([0-9]+)?)?' +
  '(?:\\+([a-z0-9]+(?:[._-][a-z0-9]+)*))?';

const VERSION_RE = new RegExp(`^${PYTHON_SPACE}*${PYPI_VERSION_PATTERN}${PYTHON_SPACE}*$`, 'i');
const SIMPLE_RE = /^[0-9]+(?:\.[0-9]+)*$/;
const DIGITS = /^[0-9]+$/;
const PRE_LETTERS: Readonly<Record<string, PypiPreLetter>> = {
  a: 'a',
  alpha: 'a',
  b: 'b',
  beta: 'b',
  rc: 'rc',
  c: 'rc',
  pre: 'rc',
  preview: 'rc',
};

/** Digits as a number, or a bigint when a number would lose precision. */
export function pypiNumber(digits: string): PypiNumber {
  if (digits.length < 16) return Number(digits);
  const big = BigInt(digits);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function cmp(a: PypiNumber, b: PypiNumber): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class PypiVersion implements PypiVersionParts {
  readonly epoch: PypiNumber;
  readonly release: readonly PypiNumber[];
  readonly pre: readonly [PypiPreLetter, PypiNumber] | undefined;
  readonly post: PypiNumber | undefined;
  readonly dev: PypiNumber | undefined;
  readonly local: readonly PypiLocalSegment[] | undefined;
  #text: string | undefined;

  /** From normalised parts; to read text use `parsePypiVersion`. */
  constructor(parts: PypiVersionParts) {
    if (parts.release.length === 0) throw new InvalidPypiVersionError('', 'a version needs a release number');
    this.epoch = parts.epoch;
    this.release = parts.release;
    this.pre = parts.pre;
    this.post = parts.post;
    this.dev = parts.dev;
    this.local = parts.local;
  }

  /** A dev release or a pre-release (PEP 440 treats both as pre-releases). */
  get isPrerelease(): boolean {
    return this.pre !== undefined || this.dev !== undefined;
  }

  get isPostrelease(): boolean {
    return this.post !== undefined;
  }

  get isDevrelease(): boolean {
    return this.dev !== undefined;
  }

  /** The first three release numbers (0 when absent), as packaging's `major`, `minor`, `micro`. */
  get major(): PypiNumber {
    return this.release[0] ?? 0;
  }

  get minor(): PypiNumber {
    return this.release[1] ?? 0;
  }

  get micro(): PypiNumber {
    return this.release[2] ?? 0;
  }

  /** The version without its local label. */
  get public(): PypiVersion {
    return this.local === undefined ? this : this.with({ local: undefined });
  }

  /** Epoch and release only (`1!2.0rc1.post3+x` -> `1!2.0`). */
  get baseVersion(): PypiVersion {
    return this.pre || this.post !== undefined || this.dev !== undefined || this.local
      ? new PypiVersion({ epoch: this.epoch, release: this.release, pre: undefined, post: undefined, dev: undefined, local: undefined })
      : this;
  }

  /** A copy with some parts replaced (no checks beyond the constructor's). */
  with(parts: Partial<PypiVersionParts>): PypiVersion {
    return new PypiVersion({ ...this.parts(), ...parts });
  }

  parts(): PypiVersionParts {
    return { epoch: this.epoch, release: this.release, pre: this.pre, post: this.post, dev: this.dev, local: this.local };
  }

  /** The normalised form (`1.0-1` -> `1.0.post1`, `V1.0ALPHA` -> `1.0a0`, `1.0+Ubuntu-1` -> `1.0+ubuntu.1`). */
  toString(): string {
    if (this.#text !== undefined) return this.#text;
    let text = this.epoch === 0 ? '' : `${this.epoch}!`;
    text += this.release.join('.');
    if (this.pre) text += `${this.pre[0]}${this.pre[1]}`;
    if (this.post !== undefined) text += `.post${this.post}`;
    if (this.dev !== undefined) text += `.dev${this.dev}`;
    if (this.local) text += `+${this.local.join('.')}`;
    this.#text = text;
    return text;
  }

  toJSON(): string {
    return this.toString();
  }

  /** Negative, zero or positive as this sorts before, with or after `other` under PEP 440. */
  compare(other: PypiVersion): number {
    return comparePypiVersions(this, other);
  }

  /** PEP 440 equality: `1.0 == 1.0.0`, `1.0c1 == 1.0rc1`; local labels count. */
  equals(other: PypiVersion): boolean {
    return comparePypiVersions(this, other) === 0;
  }
}

/** Parses a PEP 440 version; throws `InvalidPypiVersionError` (`CR_ERR_PYPI_VERSION_INVALID`). */
export function parsePypiVersion(text: string): PypiVersion {
  const version = tryParsePypiVersion(text);
  if (!version) throw new InvalidPypiVersionError(text);
  return version;
}

/** Parses a PEP 440 version, or `undefined` when `text` is not one. */
export function tryParsePypiVersion(text: string): PypiVersion | undefined {
  if (SIMPLE_RE.test(text)) {
    return new PypiVersion({
      epoch: 0,
      release: text.split('.').map(pypiNumber),
      pre: undefined,
      post: undefined,
      dev: undefined,
      local: undefined,
    });
  }
  const m = VERSION_RE.exec(text);
  if (!m) return undefined;
  const [, epoch, release, preLetter, preNumber, postImplicit, postLetter, postNumber, devLetter, devNumber, local] = m;
  let post: PypiNumber | undefined;
  if (postImplicit !== undefined) post = pypiNumber(postImplicit);
  else if (postLetter !== undefined) post = pypiNumber(postNumber ?? '0');
  return new PypiVersion({
    epoch: epoch === undefined ? 0 : pypiNumber(epoch),
    release: release!.split('.').map(pypiNumber),
    pre: preLetter === undefined ? undefined : [PRE_LETTERS[preLetter.toLowerCase()]!, pypiNumber(preNumber ?? '0')],
    post,
    dev: devLetter === undefined ? undefined : pypiNumber(devNumber ?? '0'),
    local: local === undefined ? undefined : local.split(/[._-]/).map((s) => (DIGITS.test(s) ? pypiNumber(s) : s.toLowerCase())),
  });
}

/** Whether `text` is a PEP 440 version. */
export function isValidPypiVersion(text: string): boolean {
  return tryParsePypiVersion(text) !== undefined;
}

/** The rank of a version's pre-release part: dev-only -1, a 0, b 1, rc 2, none 3. */
function preRank(v: PypiVersion): number {
  if (v.pre) return v.pre[0] === 'a' ? 0 : v.pre[0] === 'b' ? 1 : 2;
  return v.post === undefined && v.dev !== undefined ? -1 : 3;
}

/** PEP 440 ordering, as packaging's `_cmpkey`: negative, zero or positive. */
export function comparePypiVersions(a: PypiVersion, b: PypiVersion): number {
  let c = cmp(a.epoch, b.epoch);
  if (c !== 0) return c;
  // The release with trailing zeros ignored: a missing component counts as 0.
  const n = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < n; i++) {
    c = cmp(a.release[i] ?? 0, b.release[i] ?? 0);
    if (c !== 0) return c;
  }
  c = preRank(a) - preRank(b);
  if (c !== 0) return c;
  c = cmp(a.pre?.[1] ?? 0, b.pre?.[1] ?? 0);
  if (c !== 0) return c;
  c = (a.post === undefined ? 0 : 1) - (b.post === undefined ? 0 : 1);
  if (c !== 0) return c;
  c = cmp(a.post ?? 0, b.post ?? 0);
  if (c !== 0) return c;
  c = (a.dev === undefined ? 1 : 0) - (b.dev === undefined ? 1 : 0);
  if (c !== 0) return c;
  c = cmp(a.dev ?? 0, b.dev ?? 0);
  if (c !== 0) return c;
  return compareLocal(a.local, b.local);
}

/** No label first; then segment by segment, strings before numbers; a shorter prefix first. */
function compareLocal(a: readonly PypiLocalSegment[] | undefined, b: readonly PypiLocalSegment[] | undefined): number {
  if (a === undefined || b === undefined) return (a === undefined ? 0 : 1) - (b === undefined ? 0 : 1);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const xs = typeof x === 'string';
    const ys = typeof y === 'string';
    if (xs !== ys) return xs ? -1 : 1;
    const c = xs ? (x < y ? -1 : x > y ? 1 : 0) : cmp(x as PypiNumber, y as PypiNumber);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
