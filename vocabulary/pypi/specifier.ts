/**
 * PEP 440 version specifiers (`~=1.4.2`, `==1.*`, `!=1.3`, `<2`, `>=1.0,<2`, `===foo`) and
 * specifier sets, with the pre-release rule. Matching follows PEP 440 as `packaging.specifiers` implements it: `==`/`!=` compare public
 * versions unless the specifier names a local label, `.*` matches a release prefix (padding with
 * zeros, ignoring pre/post/dev), `~=V` is `>=V` with `==` on V's release minus its last number,
 * `<V` excludes V's own pre-releases unless V is one, `>V` excludes V's post-releases (unless V is
 * one) and V's local versions, `===` compares strings case-insensitively.
 *
 * Pre-releases (PEP 440, "Handling of pre-releases"): excluded unless a specifier names one, the
 * caller allows them (`prereleases: true`, pip's `--pre`), or, when filtering a list, no final
 * release satisfies. `contains` answers for one version alone, so, like packaging's, it accepts a
 * pre-release the set matches unless pre-releases are refused (`prereleases: false`).
 */
import { InvalidPypiSyntaxError } from './errors.js';
import { comparePypiVersions, PYTHON_SPACE, PypiVersion, tryParsePypiVersion, type PypiNumber } from './version.js';

export type PypiOperator = '~=' | '==' | '!=' | '<=' | '>=' | '<' | '>' | '===';

/** A specifier or a specifier set that cannot be parsed (`CR_ERR_PYPI_SPECIFIER_INVALID`). */
export class InvalidPypiSpecifierError extends InvalidPypiSyntaxError {
  constructor(input: string, reason: string) {
    super('CR_ERR_PYPI_SPECIFIER_INVALID', 'Python version specifier', input, reason);
  }
}

// packaging's Specifier regex: what each operator accepts after it.
const S = PYTHON_SPACE;
const NOT_S = `[^${PYTHON_SPACE.slice(1, -1)};)]`;
const RELEASE = 'v?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)*';
const PRE = '(?:[-_.]?(?:alpha|beta|preview|pre|a|b|c|rc)[-_.]?[0-9]*)?';
const POST = '(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?';
const DEV = '(?:[-_.]?dev[-_.]?[0-9]*)?';
const LOCAL = '(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?';
/** One specifier, unanchored (packaging's `Specifier._specifier_regex_str`; the case is free). */
export const SPECIFIER_PATTERN =
  '(?:' +
  `===${S}*${NOT_S}*` +
  `|(?:==|!=)${S}*${RELEASE}(?:\\.\\*|${PRE}${POST}${DEV}${LOCAL})?` +
  `|~=${S}*v?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)+${PRE}${POST}${DEV}` +
  `|(?:<=|>=|<|>)${S}*${RELEASE}${PRE}${POST}${DEV}` +
  ')';
const SPECIFIER_RE = new RegExp(`^${S}*${SPECIFIER_PATTERN}${S}*$`, 'i');
const OPERATOR_RE = /^(===|~=|==|!=|<=|>=|<|>)/;
const STRIP_RE = new RegExp(`^${S}+|${S}+$`, 'g');

/** Whether a character code is surely no Python whitespace (printable ASCII). */
const printable = (code: number) => code > 0x20 && code < 0x7f;

/** Python's `str.strip()`. */
export function pythonStrip(text: string): string {
  if (text.length > 0 && printable(text.charCodeAt(0)) && printable(text.charCodeAt(text.length - 1))) return text;
  return text.replace(STRIP_RE, '');
}

/** Why a specifier is refused, in the user's terms. */
function explain(text: string): string {
  const m = OPERATOR_RE.exec(text);
  if (!m) return 'a specifier starts with one of ~= == != <= >= < > ===';
  const op = m[1]!;
  const version = pythonStrip(text.slice(op.length));
  if (version === '') return `nothing follows ${op}`;
  if (version.endsWith('.*') && op !== '==' && op !== '!=') return 'a .* wildcard goes only with == and !=';
  if (version.includes('.*')) return 'a .* wildcard follows only a release (==1.2.*, not ==1.2a1.* or ==1.*.2)';
  if (version.includes('+') && op !== '==' && op !== '!=') return 'a local version label (+...) goes only with == and !=';
  if (op === '~=' && /^v?(?:[0-9]+!)?[0-9]+(?![.0-9])/i.test(version)) return '~= needs at least two release numbers (~=1.4, not ~=1)';
  return `${JSON.stringify(version)} is not a PEP 440 version`;
}

/** One `operator version` clause. */
export class PypiSpecifier {
  readonly operator: PypiOperator;
  /** The version as written (stripped), `.*` included. */
  readonly version: string;
  /** For `==V.*`/`!=V.*`: the prefix's epoch and release. */
  readonly #prefix: { readonly epoch: PypiNumber; readonly release: readonly PypiNumber[] } | undefined;
  /** The parsed version; undefined for a wildcard or an `===` string that is no version. */
  readonly #parsed: PypiVersion | undefined;

  /** Use `parsePypiSpecifier`. */
  constructor(operator: PypiOperator, version: string) {
    this.operator = operator;
    this.version = version;
    if (version.endsWith('.*') && operator !== '===') {
      const base = tryParsePypiVersion(version.slice(0, -2))!;
      this.#prefix = { epoch: base.epoch, release: base.release };
    } else {
      this.#parsed = tryParsePypiVersion(version);
    }
    if (operator === '~=') {
      // ~=V: >=V and V's release (without its last number) as a prefix.
      this.#prefix = { epoch: this.#parsed!.epoch, release: this.#parsed!.release.slice(0, -1) };
    }
  }

  /** The version after the operator, parsed (undefined for `.*` and for `===` of a non-version). */
  get parsedVersion(): PypiVersion | undefined {
    return this.#parsed;
  }

  get isWildcard(): boolean {
    return this.operator !== '===' && this.version.endsWith('.*');
  }

  /**
   * Whether this specifier names a pre-release (packaging's `Specifier.prereleases`): its version
   * is one, except for `!=` and `.*`; `undefined` for `===` of a string that is no version.
   */
  get namesPrerelease(): boolean | undefined {
    if (this.operator === '!=' || this.isWildcard) return false;
    return this.#parsed?.isPrerelease;
  }

  /**
   * Whether `version` satisfies the operator, pre-releases aside. `text` is the version as written,
   * for `===` (its normalised form when not given).
   */
  matches(version: PypiVersion, text: string = version.toString()): boolean {
    const spec = this.#parsed;
    switch (this.operator) {
      case '===':
        return text.toLowerCase() === this.version.toLowerCase();
      case '==':
        return this.#equal(version);
      case '!=':
        return !this.#equal(version);
      case '<=':
        return comparePypiVersions(version.public, spec!) <= 0;
      case '>=':
        return comparePypiVersions(version.public, spec!) >= 0;
      case '~=':
        return comparePypiVersions(version.public, spec!) >= 0 && this.#prefixMatch(version);
      case '<':
        // "<V MUST NOT allow a pre-release of the specified version unless V is itself a pre-release."
        return (
          comparePypiVersions(version, spec!) < 0 &&
          !(!spec!.isPrerelease && version.isPrerelease && comparePypiVersions(version, spec!.with({ dev: 0, local: undefined })) >= 0)
        );
      case '>':
        // ">V MUST NOT allow a post-release of V unless V is one", nor a local version of V.
        return (
          comparePypiVersions(version, spec!) > 0 &&
          !(
            !spec!.isPostrelease &&
            version.isPostrelease &&
            comparePypiVersions(version.with({ post: undefined, dev: undefined, local: undefined }), spec!) === 0
          ) &&
          !(version.local !== undefined && comparePypiVersions(version.public, spec!) === 0)
        );
    }
  }

  #equal(version: PypiVersion): boolean {
    if (this.#prefix) return this.#prefixMatch(version);
    const spec = this.#parsed!;
    return comparePypiVersions(spec.local === undefined ? version.public : version, spec) === 0;
  }

  /** The release prefix, the candidate padded with zeros; pre/post/dev/local ignored. */
  #prefixMatch(version: PypiVersion): boolean {
    const prefix = this.#prefix!;
    if (version.epoch !== prefix.epoch) return false;
    for (let i = 0; i < prefix.release.length; i++) {
      if ((version.release[i] ?? 0) !== prefix.release[i]) return false;
    }
    return true;
  }

  toString(): string {
    return `${this.operator}${this.version}`;
  }
}

/** Parses one specifier (`>=1.2`); throws `InvalidPypiSpecifierError`. */
export function parsePypiSpecifier(text: string): PypiSpecifier {
  const stripped = pythonStrip(text);
  if (!SPECIFIER_RE.test(stripped)) throw new InvalidPypiSpecifierError(text, explain(stripped));
  const op = OPERATOR_RE.exec(stripped)![1] as PypiOperator;
  return new PypiSpecifier(op, pythonStrip(stripped.slice(op.length)));
}

/** How `contains` and `filter` treat pre-releases. */
export interface PrereleaseOptions {
  /**
   * `true`: accept pre-releases (pip's `--pre`); `false`: refuse them; unset: PEP 440's rule
   * (accepted when a specifier names one, else only when no final release is left).
   */
  readonly prereleases?: boolean;
}

/** An item a set filters: a version, or a version string (kept as written for `===`). */
export type PypiVersionLike = PypiVersion | string;

/** A comma-separated list of specifiers, all of which must hold. */
export class PypiSpecifierSet {
  readonly specifiers: readonly PypiSpecifier[];
  /** The caller's pre-release choice for this set, if any (packaging's `prereleases=`). */
  readonly prereleaseOverride: boolean | undefined;

  constructor(specifiers: readonly PypiSpecifier[], options: PrereleaseOptions = {}) {
    this.specifiers = specifiers;
    this.prereleaseOverride = options.prereleases;
  }

  /** `true` when pre-releases are allowed outright (the override, or a specifier naming one); `false` when refused. */
  get prereleases(): boolean | undefined {
    if (this.prereleaseOverride !== undefined) return this.prereleaseOverride;
    return this.specifiers.some((s) => s.namesPrerelease === true) ? true : undefined;
  }

  get isEmpty(): boolean {
    return this.specifiers.length === 0;
  }

  /**
   * Whether `version` satisfies every specifier. Alone, a pre-release counts as "no final release
   * left" under PEP 440, so it is accepted unless pre-releases are refused (packaging's
   * `SpecifierSet.contains`). `installed: true` accepts an installed pre-release.
   * A string that is no version matches only `===` specifiers.
   */
  contains(item: PypiVersionLike, options: PrereleaseOptions & { readonly installed?: boolean } = {}): boolean {
    const version = typeof item === 'string' ? tryParsePypiVersion(item) : item;
    const prereleases = options.installed && version?.isPrerelease ? true : options.prereleases;
    return this.filter([item], { prereleases }).length > 0;
  }

  /**
   * The items that satisfy every specifier, in order, under the pre-release rule: unless allowed or
   * refused, pre-releases are kept only when no final release satisfies.
   */
  filter<T extends PypiVersionLike>(items: Iterable<T>, options?: PrereleaseOptions): T[];
  filter<T>(items: Iterable<T>, options: PrereleaseOptions & { readonly key: (item: T) => PypiVersionLike }): T[];
  filter<T>(items: Iterable<T>, options: PrereleaseOptions & { readonly key?: (item: T) => PypiVersionLike } = {}): T[] {
    const key = options.key ?? ((item: T) => item as unknown as PypiVersionLike);
    const prereleases = options.prereleases ?? this.prereleases;
    const matched: { item: T; version: PypiVersion | undefined }[] = [];
    for (const item of items) {
      const raw = key(item);
      const version = typeof raw === 'string' ? tryParsePypiVersion(raw) : raw;
      const text = typeof raw === 'string' ? raw : raw.toString();
      if (version === undefined) {
        // A string that is no version: only `===` can match it (an empty set keeps it).
        if (this.specifiers.every((s) => s.operator === '===' && s.matches(PLACEHOLDER, text))) matched.push({ item, version });
      } else if (prereleases === false && version.isPrerelease) {
        continue;
      } else if (this.specifiers.every((s) => s.matches(version, text))) {
        matched.push({ item, version });
      }
    }
    if (prereleases !== undefined) return matched.map((m) => m.item);
    // PEP 440: pre-releases only when no final release matched (strings that are no version stay).
    const anyFinal = matched.some((m) => m.version !== undefined && !m.version.isPrerelease);
    return matched.filter((m) => !anyFinal || m.version === undefined || !m.version.isPrerelease).map((m) => m.item);
  }

  /**
   * Both sets at once (packaging's `a & b`): every specifier of each. Their pre-release overrides
   * must agree when both have one; throws `InvalidPypiSpecifierError` otherwise.
   */
  and(other: PypiSpecifierSet): PypiSpecifierSet {
    const mine = this.prereleaseOverride;
    const theirs = other.prereleaseOverride;
    if (mine !== undefined && theirs !== undefined && mine !== theirs) {
      throw new InvalidPypiSpecifierError(`${this},${other}`, 'one set allows pre-releases and the other refuses them');
    }
    const prereleases = mine ?? theirs;
    return new PypiSpecifierSet([...this.specifiers, ...other.specifiers], prereleases === undefined ? {} : { prereleases });
  }

  /** The specifiers sorted and joined by commas, as packaging writes a set. */
  toString(): string {
    return this.specifiers
      .map(String)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .join(',');
  }
}

const PLACEHOLDER = new PypiVersion({ epoch: 0, release: [0], pre: undefined, post: undefined, dev: undefined, local: undefined });

/**
 * Parses a comma-separated specifier set (`>=1.0, !=1.3.*, <2`; empty allows every version); throws
 * `InvalidPypiSpecifierError` naming the set and the bad specifier.
 */
export function parsePypiSpecifierSet(text: string, options: PrereleaseOptions = {}): PypiSpecifierSet {
  const specifiers: PypiSpecifier[] = [];
  for (const part of text.split(',')) {
    const piece = pythonStrip(part);
    if (piece === '') continue;
    try {
      specifiers.push(parsePypiSpecifier(piece));
    } catch (error) {
      if (!(error instanceof InvalidPypiSpecifierError) || piece === pythonStrip(text)) throw error;
      throw new InvalidPypiSpecifierError(text, `${JSON.stringify(piece)}: ${error.reason}`);
    }
  }
  return new PypiSpecifierSet(specifiers, options);
}

/** Parses a specifier set, or `undefined` when it is not one. */
export function tryParsePypiSpecifierSet(text: string, options: PrereleaseOptions = {}): PypiSpecifierSet | undefined {
  try {
    return parsePypiSpecifierSet(text, options);
  } catch (error) {
    if (error instanceof InvalidPypiSpecifierError) return undefined;
    throw error;
  }
}
