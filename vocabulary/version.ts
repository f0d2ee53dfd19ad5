/**
 * conda's version ordering (`conda.models.version.VersionOrder`), exactly.
 *
 * A version string is split into an epoch (`1!`), the main version and an optional local version
 * (`+abc`); each part into components at `.` and `_`; each component into runs of digits and
 * non-digits. Digits compare as integers, strings compare lexicographically and sort before
 * integers, `dev` sorts before every other string, `post` after every integer, and a missing
 * component or sub-component counts as `0` (so `1.1 == 1.1.0`). Comparison is case-insensitive.
 */
import { CondaResolveError } from './errors.js';

/** One sub-component: an integer (bigint only beyond 2^53), a lowercase string, or `post` (Infinity). */
export type VersionAtom = number | bigint | string;
export type VersionComponent = readonly VersionAtom[];

/** A version string conda cannot parse. `position` is a 0-based index into `input`. */
export class InvalidVersionError extends CondaResolveError {
  readonly input: string;
  readonly position: number;
  readonly reason: string;

  constructor(input: string, reason: string, position: number) {
    super('CR_ERR_VERSION_INVALID', `Cannot parse version ${JSON.stringify(input)}: ${reason} at position ${position}`);
    this.input = input;
    this.reason = reason;
    this.position = position;
  }
}

const EMPTY: VersionComponent = [];
const VALID_CHARS = /^[*.+!_0-9a-z]+$/;
const INVALID_CHAR = /[^*.+!_0-9a-z]/;

export class Version {
  /** The string as given. */
  readonly source: string;
  /** conda's normalised form: trimmed, lowercase, `-` read as `_` where conda does so. */
  readonly normalized: string;
  /** @internal Epoch followed by the main version's components. */
  readonly main: readonly VersionComponent[];
  /** @internal The local version's components (empty when there is no `+`). */
  readonly local: readonly VersionComponent[];
  #key: string | undefined;

  /** @internal Use `parseVersion`. */
  constructor(source: string, normalized: string, main: VersionComponent[], local: VersionComponent[]) {
    this.source = source;
    this.normalized = normalized;
    this.main = main;
    this.local = local;
  }

  /** The epoch (`0` unless the version starts with `N!`). */
  get epoch(): number {
    return Number(this.main[0]![0]);
  }

  /** True when this version has a local part (`+...`). */
  get hasLocal(): boolean {
    return this.local.length > 0;
  }

  /** -1, 0 or 1 as conda orders `this` against `other`. */
  compare(other: Version): -1 | 0 | 1 {
    if (this === other) return 0;
    return compareComponents(this.main, other.main) || compareComponents(this.local, other.local);
  }

  /** conda's `==`: trailing zeros are ignored (`1.1 == 1.1.0`), case is ignored. */
  equals(other: Version): boolean {
    return this.compare(other) === 0;
  }

  /**
   * conda's `VersionOrder.startswith`: the components match up to the last component of `other`,
   * whose last sub-component is a prefix (for strings) or equal (for numbers). A local part in
   * `other` requires equal main versions and applies the same test to the local parts.
   */
  startsWith(other: Version): boolean {
    let t1: readonly VersionComponent[];
    let t2: readonly VersionComponent[];
    if (other.local.length > 0) {
      if (compareComponents(this.main, other.main) !== 0) return false;
      t1 = this.local;
      t2 = other.local;
    } else {
      t1 = this.main;
      t2 = other.main;
    }
    const nt = t2.length - 1;
    for (let i = 0; i < nt; i++) {
      if (compareAtoms(i < t1.length ? t1[i]! : EMPTY, t2[i]!, Infinity) !== 0) return false;
    }
    const v1 = nt < t1.length ? t1[nt]! : EMPTY;
    const v2 = t2[nt]!;
    const last = v2.length - 1;
    if (compareAtoms(v1, v2, last) !== 0) return false;
    const c1 = last < v1.length ? v1[last]! : 0;
    const c2 = v2[last]!;
    if (typeof c2 === 'string') return typeof c1 === 'string' && c1.startsWith(c2);
    return c1 === c2;
  }

  /**
   * A string equal for exactly the versions conda considers equal (`1.1`, `1.1.0` and `1.01` share
   * one), for use as a map key.
   */
  get key(): string {
    if (this.#key === undefined) this.#key = `${partKey(this.main)}+${partKey(this.local)}`;
    return this.#key;
  }

  toString(): string {
    return this.normalized;
  }

  toJSON(): string {
    return this.source;
  }
}

function partKey(part: readonly VersionComponent[]): string {
  const comps: string[] = [];
  for (const comp of part) {
    let end = comp.length;
    while (end > 0 && comp[end - 1] === 0) end--;
    comps.push(
      comp
        .slice(0, end)
        .map((a) => (typeof a === 'string' ? `s${a}` : a === Infinity ? 'p' : `n${a}`))
        .join(' '),
    );
  }
  let end = comps.length;
  while (end > 0 && comps[end - 1] === '') end--;
  return comps.slice(0, end).join('.');
}

/** Compare sub-components 0..limit-1 of two components, missing ones counting as 0. */
function compareAtoms(v1: VersionComponent, v2: VersionComponent, limit: number): -1 | 0 | 1 {
  const n = Math.min(Math.max(v1.length, v2.length), limit);
  for (let j = 0; j < n; j++) {
    const c1 = j < v1.length ? v1[j]! : 0;
    const c2 = j < v2.length ? v2[j]! : 0;
    if (c1 === c2) continue;
    if (typeof c1 === 'string') {
      if (typeof c2 !== 'string') return -1; // strings sort before numbers
      return c1 < c2 ? -1 : 1;
    }
    if (typeof c2 === 'string') return 1;
    return c1 < c2 ? -1 : 1;
  }
  return 0;
}

function compareComponents(t1: readonly VersionComponent[], t2: readonly VersionComponent[]): -1 | 0 | 1 {
  const n = Math.max(t1.length, t2.length);
  for (let i = 0; i < n; i++) {
    const r = compareAtoms(i < t1.length ? t1[i]! : EMPTY, i < t2.length ? t2[i]! : EMPTY, Infinity);
    if (r !== 0) return r;
  }
  return 0;
}

function toInteger(digits: string): number | bigint {
  if (digits.length <= 15) return Number(digits);
  const big = BigInt(digits);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/** The atom class of a character code: a digit, `*`, or anything else (letters). */
function atomKind(c: number): number {
  return c >= 48 && c <= 57 ? 0 : c === 42 ? 1 : 2;
}

/**
 * Split one component string into atoms (runs of digits, of `*`, and of anything else); `start`
 * is its index in the input, for errors. A scan rather than a regular expression's matchAll: this
 * runs for every version of every record a solve reads, and the match objects were most of its cost.
 */
function splitComponent(text: string, input: string, start: number): VersionComponent {
  if (text === '') throw new InvalidVersionError(input, 'empty version component', start);
  const atoms: VersionAtom[] = [];
  // A component starting with a letter gets a leading 0 so numbers and strings stay in phase.
  if (atomKind(text.charCodeAt(0)) !== 0) atoms.push(0);
  for (let i = 0; i < text.length; ) {
    const kind = atomKind(text.charCodeAt(i));
    let end = i + 1;
    while (end < text.length && atomKind(text.charCodeAt(end)) === kind) end++;
    if (kind === 0 && end - i <= 15) {
      let value = 0;
      for (let k = i; k < end; k++) value = value * 10 + (text.charCodeAt(k) - 48);
      atoms.push(value);
    } else {
      const atom = text.slice(i, end);
      if (kind === 0) atoms.push(toInteger(atom));
      else if (atom === 'post') atoms.push(Infinity);
      else if (atom === 'dev')
        atoms.push('DEV'); // upper case sorts before every lowercase string
      else atoms.push(atom);
    }
    i = end;
  }
  return atoms;
}

/** Split `text` at `.` and `_` into components; `offset` is where `text` starts in the input. */
function splitPart(text: string, input: string, offset: number, out: VersionComponent[]): void {
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const ch = text[i];
    if (i === text.length || ch === '.' || ch === '_') {
      out.push(splitComponent(text.slice(start, i), input, offset + start));
      start = i + 1;
    }
  }
}

/** The epoch of every version without one, shared: components are never modified. */
const EPOCH_ZERO: VersionComponent = [0];
const NO_LOCAL: VersionComponent[] = [];

/**
 * `1.2.3`, the form of most versions in a channel (digits and dots, no component empty or longer
 * than 15 digits), parsed in one pass without the general path's slices and checks; undefined
 * for anything else. A warm solve parses thousands of these.
 */
function parseDotted(input: string): Version | undefined {
  const main: VersionComponent[] = [EPOCH_ZERO];
  let value = 0;
  let digits = 0;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      if (++digits > 15) return undefined;
    } else if (c === 46 && digits > 0) {
      main.push([value]);
      value = 0;
      digits = 0;
    } else {
      return undefined;
    }
  }
  if (digits === 0) return undefined;
  main.push([value]);
  return new Version(input, input, main, NO_LOCAL);
}

function parseUncached(input: string): Version {
  const dotted = parseDotted(input);
  if (dotted !== undefined) return dotted;
  const lead = input.length - input.trimStart().length;
  let text = input.trim().toLowerCase();
  if (text === '') throw new InvalidVersionError(input, 'empty version string', 0);
  let valid = VALID_CHARS.test(text);
  if (!valid && text.includes('-') && !text.includes('_')) {
    // conda accepts dashes as separators as long as there are no underscores too.
    text = text.replaceAll('-', '_');
    valid = VALID_CHARS.test(text);
  }
  if (!valid) {
    const at = text.search(INVALID_CHAR);
    const ch = String.fromCodePoint(text.codePointAt(at)!);
    throw new InvalidVersionError(input, `invalid character ${JSON.stringify(ch)}`, lead + at);
  }

  const bang = text.indexOf('!');
  let epoch = '0';
  let rest = text;
  let restAt = 0;
  if (bang >= 0) {
    const second = text.indexOf('!', bang + 1);
    if (second >= 0) throw new InvalidVersionError(input, 'duplicated epoch separator "!"', lead + second);
    epoch = text.slice(0, bang);
    if (!/^[0-9]+$/.test(epoch)) throw new InvalidVersionError(input, 'epoch must be an integer', lead);
    rest = text.slice(bang + 1);
    restAt = bang + 1;
  }

  const plus = rest.indexOf('+');
  let upstream = rest;
  const local: VersionComponent[] = [];
  if (plus >= 0) {
    const second = rest.indexOf('+', plus + 1);
    if (second >= 0) throw new InvalidVersionError(input, 'duplicated local version separator "+"', lead + restAt + second);
    upstream = rest.slice(0, plus);
    if (upstream === '') throw new InvalidVersionError(input, 'missing version before local version separator "+"', lead + restAt);
    splitPart(rest.slice(plus + 1), input, lead + restAt + plus + 1, local);
  } else if (upstream === '') {
    throw new InvalidVersionError(input, 'missing version after epoch separator "!"', lead + restAt);
  }

  const main: VersionComponent[] = [splitComponent(epoch, input, lead)];
  if (upstream.endsWith('_')) {
    // openssl convention: a trailing underscore stays on the last component (`1.0.1_` < `1.0.1a`).
    const inner: VersionComponent[] = [];
    const body = upstream.slice(0, -1);
    const lastSep = Math.max(body.lastIndexOf('.'), body.lastIndexOf('_'));
    if (lastSep >= 0) splitPart(body.slice(0, lastSep), input, lead + restAt, inner);
    const lastText = body.slice(lastSep + 1) + '_';
    inner.push(splitComponent(lastText, input, lead + restAt + lastSep + 1));
    main.push(...inner);
  } else {
    splitPart(upstream, input, lead + restAt, main);
  }
  return new Version(input, text, main, local);
}

const CACHE_LIMIT = 100_000;
const cache = new Map<string, Version>();

function remember(input: string, version: Version): Version {
  if (cache.size >= CACHE_LIMIT) {
    // Evict the oldest eighth at once so a full cache does not pay a deletion on every miss.
    let drop = CACHE_LIMIT >> 3;
    for (const key of cache.keys()) {
      cache.delete(key);
      if (--drop === 0) break;
    }
  }
  cache.set(input, version);
  return version;
}

/** Parse a conda version string (cached). Throws `InvalidVersionError`. */
export function parseVersion(input: string): Version {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  if (typeof input !== 'string') throw new InvalidVersionError(String(input), 'not a string', 0);
  return remember(input, parseUncached(input));
}

/**
 * @internal `parseVersion` that reads the cache but does not add to it: for the operands of a long
 * version spec (which is not cached either), so one request's thousands of one-off versions do
 * not push the channel's versions out of the cache (and keep the collector busy doing it).
 */
export function parseVersionTransient(input: string): Version {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  if (typeof input !== 'string') throw new InvalidVersionError(String(input), 'not a string', 0);
  return parseUncached(input);
}

/** Parse a conda version string, or return null when it is not one. */
export function tryParseVersion(input: string): Version | null {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  try {
    return parseVersion(input);
  } catch (error) {
    if (error instanceof InvalidVersionError) return null;
    throw error;
  }
}

/** Compare two versions (strings are parsed, cached) as conda orders them: -1, 0 or 1. */
export function compareVersions(a: Version | string, b: Version | string): -1 | 0 | 1 {
  const va = typeof a === 'string' ? parseVersion(a) : a;
  const vb = typeof b === 'string' ? parseVersion(b) : b;
  return va.compare(vb);
}
