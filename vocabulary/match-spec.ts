/**
 * conda's MatchSpec (`conda.models.match_spec`): the query language for packages.
 *
 *   (channel(/subdir)::)name(version(build))([key=value, ...])
 *
 * `numpy`, `numpy 1.2.*`, `numpy=1.2` (starts with 1.2), `numpy==1.2` (exactly 1.2),
 * `numpy>=1.2,<2|==3`, `numpy 1.2 py39_0`, `numpy=1.2=*_0`, `conda-forge::numpy`,
 * `conda-forge/linux-64::numpy`, `numpy[version='>=1', build='py*', build_number='>=2', ...]`,
 * and package URLs (`https://.../linux-64/numpy-1.26.4-py39h_0.conda`). Where conda silently
 * ignores input (text in brackets that is not `key=value`, a single `:`, `name[...]` inside brackets
 * that disagrees with the name outside), this parser reports an error instead: those specs would
 * otherwise match packages the user did not ask for.
 */
import { channelIdentity, DEFAULTS_CHANNEL_URLS, InvalidChannelError, parseChannel, redactSecrets, removeCredentials } from './channel.js';
import { CondaResolveError } from './errors.js';
import { isKnownSubdir } from './platform.js';
import type { PackageRecord } from './record.js';
import {
  clipForMessage,
  Glob,
  InvalidVersionSpecError,
  MAX_SPEC_LENGTH,
  parseVersionSpec,
  quoteForMessage,
  regexHazard,
  type VersionSpec,
} from './version-spec.js';

/** A match spec that cannot be parsed. `position` is a 0-based index into `input`. */
export class InvalidMatchSpecError extends CondaResolveError {
  /** The spec, credentials redacted (its first `MAX_SPEC_LENGTH` characters when longer). */
  readonly input: string;
  readonly position: number;
  readonly reason: string;
  /** The bound the spec exceeds (`MAX_SPEC_LENGTH`, `MAX_VERSION_CONSTRAINTS`...), or null. */
  readonly limit: number | null;

  constructor(input: string, reason: string, position: number, options?: { cause?: unknown; limit?: number }) {
    // Redaction scans the text; an over-long spec is redacted (and kept) only up to the limit.
    const shown = redactSecrets(input.length > MAX_SPEC_LENGTH ? input.slice(0, MAX_SPEC_LENGTH) : input);
    super(
      'CR_ERR_MATCH_SPEC_INVALID',
      `Cannot parse match spec ${quoteForMessage(shown)}: ${redactSecrets(reason)} at position ${position}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.input = shown;
    this.reason = reason;
    this.position = position;
    this.limit = options?.limit ?? null;
  }
}

/** The fields a spec can constrain, in the order conda prints them. */
export const MATCH_SPEC_FIELDS = [
  'channel',
  'subdir',
  'name',
  'version',
  'build',
  'build_number',
  'track_features',
  'features',
  'url',
  'md5',
  'sha256',
  'license',
  'license_family',
  'fn',
] as const;

export type MatchSpecField = (typeof MATCH_SPEC_FIELDS)[number];

const FIELD_SET = new Set<string>(MATCH_SPEC_FIELDS);

/**
 * conda's string matcher for names, builds and licenses: `^...$` is a regular expression, a
 * string with `*` is a glob, anything else must be equal. Unlike conda, a pattern that starts
 * with `^` but lacks the closing `$` (`^py.*`) is a regular expression too: conda would read it as
 * a glob with a literal `^`, which no package name or build string can match.
 *
 * Throws a `SyntaxError` for a regular expression that does not compile or whose matching could
 * take exponential time (`regexHazard`).
 */
export class StringPattern {
  readonly text: string;
  /** The value when the pattern is a plain string, else null. */
  readonly exact: string | null;
  readonly matchesAll: boolean;
  readonly #matcher: RegExp | Glob | null;

  constructor(text: string) {
    this.text = text;
    this.matchesAll = text === '*';
    if (text.length > 1 && text.startsWith('^')) {
      this.#matcher = safeRegExp(text);
      this.exact = null;
    } else if (text.includes('*')) {
      this.#matcher = new Glob(text);
      this.exact = null;
    } else {
      this.#matcher = null;
      this.exact = text;
    }
  }

  test(value: string): boolean {
    if (this.matchesAll) return true;
    return this.#matcher === null ? value === this.exact : this.#matcher.test(value);
  }

  toString(): string {
    return this.text;
  }
}

/** A regular expression that compiles but whose matching could take exponential time. */
class UnsafeRegExpError extends SyntaxError {}

/** A compiled `^...$` pattern; a `SyntaxError` when it does not compile or could backtrack exponentially. */
function safeRegExp(text: string): RegExp {
  const re = new RegExp(text);
  const hazard = regexHazard(text);
  if (hazard !== null) throw new UnsafeRegExpError(hazard);
  return re;
}

const INTEGER = /^[+-]?[0-9]+$/;
const NUMBER_RELATION = /^(==|!=|<=|>=|<|>|=)(?![=<>!~])(\S+)$/;

/** conda's `BuildNumberMatch`: an integer, `*`, an operator and an integer, or `^...$`. */
export class BuildNumberSpec {
  readonly text: string;
  readonly #op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'any' | 'regex';
  readonly #value: number;
  readonly #re: RegExp | null;

  /** Throws a plain `Error` with a reason; `parseMatchSpec` reports it with the spec and position. */
  constructor(source: string) {
    const text = source.trim();
    this.#re = null;
    this.#value = 0;
    if (INTEGER.test(text)) {
      this.#op = '==';
      this.#value = Number(text);
      this.text = String(this.#value);
    } else if (text === '*') {
      this.#op = 'any';
      this.text = text;
    } else if (text.length > 1 && text.startsWith('^') && text.endsWith('$')) {
      this.#op = 'regex';
      this.#re = safeRegExp(text);
      this.text = text;
    } else {
      const m = NUMBER_RELATION.exec(text);
      if (m === null || !INTEGER.test(m[2]!)) throw new Error(`invalid build number "${source}"`);
      // `=N` on a single integer is conda's "starts with", which for integers is equality.
      this.#op = m[1] === '=' ? '==' : (m[1] as '==' | '!=' | '<' | '<=' | '>' | '>=');
      this.#value = Number(m[2]);
      this.text = text;
    }
  }

  test(n: number): boolean {
    const v = this.#value;
    switch (this.#op) {
      case '==':
        return n === v;
      case '!=':
        return n !== v;
      case '<':
        return n < v;
      case '<=':
        return n <= v;
      case '>':
        return n > v;
      case '>=':
        return n >= v;
      case 'any':
        return true;
      case 'regex':
        return this.#re!.test(String(n));
    }
  }

  toString(): string {
    return this.text;
  }
}

/** Feature sets as conda's `FeatureMatch`: split at spaces and commas, compared as sets. */
function featureSet(value: string): string[] {
  return [...new Set(value.split(/[\s,]+/).filter((f) => f !== ''))].sort();
}

function sameFeatures(want: readonly string[], have: readonly string[]): boolean {
  if (have.length === 0) return want.length === 0;
  if (want.length === 0) return false;
  // Records rarely carry more than one or two features; a quadratic check allocates nothing.
  for (const f of have) if (!want.includes(f)) return false;
  for (const f of want) if (!have.includes(f)) return false;
  return true;
}

/** Base URLs conda's `defaults` multichannel stands for (on any platform). */
const DEFAULTS_BASE_URLS: readonly string[] = [...DEFAULTS_CHANNEL_URLS, 'https://repo.anaconda.com/pkgs/msys2'];

/** Channel constraint: a glob over channel names, or channels compared canonically. */
class ChannelMatcher {
  readonly text: string;
  readonly exact: boolean;
  readonly matchesAll: boolean;
  readonly #pattern: StringPattern | null;
  readonly #name: string;
  readonly #baseUrls: readonly string[];

  /** `baseUrls` empty means a glob (`text` is the pattern); otherwise the channel(s) `name` stands for. */
  constructor(text: string, name: string, baseUrls: readonly string[]) {
    this.text = name;
    this.matchesAll = text === '*';
    this.exact = baseUrls.length > 0;
    this.#pattern = this.exact ? null : new StringPattern(text);
    this.#name = name;
    this.#baseUrls = baseUrls;
  }

  test(channel: string): boolean {
    if (this.matchesAll || channel === this.#name) return true;
    const identity = channelIdentity(channel);
    if (this.#pattern !== null) return this.#pattern.test(identity === null ? channel : identity.name);
    if (identity === null) return false;
    return identity.name === this.#name || this.#baseUrls.includes(identity.baseUrl);
  }
}

export interface MatchSpecFields {
  readonly name: string;
  readonly version?: string | undefined;
  readonly build?: string | undefined;
  readonly build_number?: string | undefined;
  readonly channel?: string | undefined;
  readonly subdir?: string | undefined;
  readonly track_features?: string | undefined;
  readonly features?: string | undefined;
  readonly url?: string | undefined;
  readonly md5?: string | undefined;
  readonly sha256?: string | undefined;
  readonly license?: string | undefined;
  readonly license_family?: string | undefined;
  readonly fn?: string | undefined;
}

export class MatchSpec {
  /** The spec as given. */
  readonly source: string;
  /** The package name, lowercase; `*` for any, or a glob / `^regex$`. */
  readonly name: string;
  /** True when `name` is one package name (no glob or regex). */
  readonly nameIsExact: boolean;
  readonly version: VersionSpec | null;
  /** The build string pattern (exact, glob or `^regex$`), or null. */
  readonly build: string | null;
  readonly buildNumber: BuildNumberSpec | null;
  /** The channel's display name (`conda-forge`, a URL) or a glob, or null. */
  readonly channel: string | null;
  readonly subdir: string | null;
  readonly md5: string | null;
  readonly sha256: string | null;
  /** A package URL, without credentials. */
  readonly url: string | null;
  readonly fn: string | null;
  readonly license: string | null;
  readonly licenseFamily: string | null;
  readonly trackFeatures: readonly string[] | null;
  readonly features: readonly string[] | null;

  readonly #name: StringPattern;
  readonly #build: StringPattern | null;
  readonly #channel: ChannelMatcher | null;
  readonly #license: StringPattern | null;
  readonly #licenseFamily: StringPattern | null;
  readonly #exactName: string | null;
  readonly #rest: ((r: PackageRecord) => boolean)[] | null;
  #text: string | undefined;

  /** @internal Use `parseMatchSpec`. */
  constructor(
    source: string,
    fields: {
      name: StringPattern;
      version: VersionSpec | null;
      build: StringPattern | null;
      buildNumber: BuildNumberSpec | null;
      channel: ChannelMatcher | null;
      subdir: string | null;
      md5: string | null;
      sha256: string | null;
      url: string | null;
      fn: string | null;
      license: StringPattern | null;
      licenseFamily: StringPattern | null;
      trackFeatures: readonly string[] | null;
      features: readonly string[] | null;
    },
  ) {
    this.source = source;
    this.#name = fields.name;
    this.name = fields.name.text;
    this.nameIsExact = fields.name.exact !== null;
    this.version = fields.version;
    this.#build = fields.build;
    this.build = fields.build?.text ?? null;
    this.buildNumber = fields.buildNumber;
    this.#channel = fields.channel;
    this.channel = fields.channel?.text ?? null;
    this.subdir = fields.subdir;
    this.md5 = fields.md5;
    this.sha256 = fields.sha256;
    this.url = fields.url;
    this.fn = fields.fn;
    this.#license = fields.license;
    this.license = fields.license?.text ?? null;
    this.#licenseFamily = fields.licenseFamily;
    this.licenseFamily = fields.licenseFamily?.text ?? null;
    this.trackFeatures = fields.trackFeatures;
    this.features = fields.features;
    this.#exactName = fields.name.matchesAll ? null : fields.name.exact;
    this.#rest = this.#compileRest();
  }

  /** Whether `record` satisfies every constraint of this spec. Allocates nothing in the common case. */
  matches(record: PackageRecord): boolean {
    const exactName = this.#exactName;
    if (exactName !== null) {
      if (record.name !== exactName) return false;
    } else if (!this.#name.test(record.name)) return false;
    const version = this.version;
    if (version !== null && !version.matches(record.version)) return false;
    const build = this.#build;
    if (build !== null && !build.test(record.build)) return false;
    const rest = this.#rest;
    if (rest === null) return true;
    for (let i = 0; i < rest.length; i++) if (!rest[i]!(record)) return false;
    return true;
  }

  /** The rarer constraints, compiled once so `matches` checks only what this spec has. */
  #compileRest(): ((r: PackageRecord) => boolean)[] | null {
    const checks: ((r: PackageRecord) => boolean)[] = [];
    const { buildNumber, subdir, md5, sha256, url, fn, trackFeatures, features } = this;
    const channel = this.#channel;
    const license = this.#license;
    const licenseFamily = this.#licenseFamily;
    if (buildNumber !== null) checks.push((r) => buildNumber.test(r.build_number));
    if (channel !== null && !channel.matchesAll) checks.push((r) => channel.test(r.channel));
    if (subdir !== null) checks.push((r) => r.subdir === subdir);
    if (md5 !== null) checks.push((r) => r.md5 === md5 || (r.md5 !== null && r.md5.toLowerCase() === md5));
    if (sha256 !== null) checks.push((r) => r.sha256 === sha256 || (r.sha256 !== null && r.sha256.toLowerCase() === sha256));
    if (url !== null) checks.push((r) => r.url === url);
    if (fn !== null) checks.push((r) => r.fn === fn);
    if (license !== null) checks.push((r) => license.test((r.license ?? '').toLowerCase()));
    if (licenseFamily !== null) checks.push((r) => licenseFamily.test((r.license_family ?? '').toLowerCase()));
    if (trackFeatures !== null) checks.push((r) => sameFeatures(trackFeatures, r.track_features));
    if (features !== null) checks.push((r) => sameFeatures(features, r.features === null ? [] : featureSet(r.features)));
    return checks.length === 0 ? null : checks;
  }

  /**
   * conda's canonical string (`str(MatchSpec)`): `numpy==1.7=py38_0`, `numpy=1.7`,
   * `numpy[version='>=1.7']`, `conda-forge/linux-64::numpy`. The channel is shown by its display
   * name; a `*` version is left out.
   */
  toString(): string {
    if (this.#text === undefined) this.#text = this.#format();
    return this.#text;
  }

  toJSON(): string {
    return this.toString();
  }

  /** conda's `conda_env_form`: the canonical string without the channel, first `==` as `=`. */
  condaEnvForm(): string {
    let text = this.toString();
    const dc = text.indexOf('::');
    if (dc >= 0) text = text.slice(dc + 2);
    return text.replace('==', '=');
  }

  #format(): string {
    const builder: string[] = [];
    const brackets: string[] = [];
    const channel = this.#channel;
    if (channel !== null && channel.exact) builder.push(channel.text);
    else if (channel !== null && !channel.matchesAll) brackets.push(`channel=${channel.text}`);
    if (this.subdir !== null) {
      if (channel !== null && channel.exact) builder.push(`/${this.subdir}`);
      else brackets.push(`subdir=${this.subdir}`);
    }
    builder.push(builder.length > 0 ? `::${this.name}` : this.name);

    let versionExact = false;
    const version = this.version?.matchesAll ? null : (this.version?.text ?? null);
    if (version !== null) {
      if (/[><$^|,]/.test(version)) {
        // Bracketed versions go through conda's sanitizer again, which drops a leading `==`: drop it
        // here when that keeps the meaning (`==1.2` is `1.2`), else keep it inside parentheses
        // (`==1.2.*` is not `1.2.*`), so the printed form parses back to itself.
        const first = /^[^,|]*/.exec(version)![0];
        if (!version.startsWith('==')) brackets.push(`version='${version}'`);
        else if (first.includes('*')) brackets.push(`version='(${version})'`);
        else brackets.push(`version='${version.slice(2)}'`);
      } else if (version.startsWith('=') && !version.startsWith('==')) {
        // `=1.2` (starts with), reachable through parentheses: print it in the form that parses back.
        const operand = version.slice(1).replace(/\.\*$/, '');
        if (operand.includes('*')) brackets.push(`version='(${version})'`);
        else builder.push(`=${operand}`);
      } else if (version.startsWith('!=') || version.startsWith('~=')) {
        if (this.build !== null) brackets.push(`version='${version}'`);
        else builder.push(version);
      } else if (version.endsWith('.*')) builder.push(`=${version.slice(0, -2)}`);
      else if (version.endsWith('*')) builder.push(`=${version.slice(0, -1)}`);
      else if (version.startsWith('==')) {
        builder.push(version);
        versionExact = true;
      } else {
        builder.push(`==${version}`);
        versionExact = true;
      }
    }

    const build = this.build;
    if (build !== null) {
      if (/[><$^|,]/.test(build)) brackets.push(`build='${build}'`);
      else if (build.includes('*')) brackets.push(`build=${build}`);
      else if (versionExact) builder.push(`=${build}`);
      else brackets.push(`build=${build}`);
    }

    const rest: [string, string | null][] = [
      ['build_number', this.buildNumber?.text ?? null],
      ['track_features', this.trackFeatures?.join(' ') ?? null],
      ['features', this.features?.join(' ') ?? null],
      // conda leaves the URL out when the channel is known, and the file name when the URL is.
      ['url', channel !== null ? null : this.url],
      ['md5', this.md5],
      ['sha256', this.sha256],
      ['license', this.license],
      ['license_family', this.licenseFamily],
      ['fn', this.url !== null ? null : this.fn],
    ];
    for (const [key, value] of rest) {
      if (value === null) continue;
      brackets.push(/[, =]/.test(value) ? `${key}='${value}'` : `${key}=${value}`);
    }
    if (brackets.length > 0) builder.push(`[${brackets.join(',')}]`);
    return builder.join('');
  }
}

// --- parsing -------------------------------------------------------------------------------

interface Located {
  readonly value: string;
  /** Position of the value in the original input. */
  readonly at: number;
}

class SpecParser {
  readonly input: string;
  constructor(input: string) {
    this.input = input;
  }

  fail(reason: string, at: number, cause?: unknown, limit?: number): never {
    throw new InvalidMatchSpecError(this.input, reason, Math.max(0, Math.min(this.input.length, at)), {
      cause,
      ...(limit === undefined ? {} : { limit }),
    });
  }
}

const NAME_CHARS = /^[A-Za-z0-9_.+*-]+$/;
const BUILD_CHARS = /^[A-Za-z0-9_.+*!]+$/;
const KEY = /[A-Za-z0-9_-]+/y;
const UNQUOTED = /[^,\s[\]]*/y;
// eslint-disable-next-line no-control-regex -- rejecting control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * @internal conda's `_parse_version_plus_build`: the build is the last word after a space or `=`.
 * conda searches `((?:.+?)[^><!,|]?)(?:(?<![=!|,<>~])(?:[ =])([^-=,|<>~]+?))?$`; this walks the
 * same choices in the same order (the lazy `.+?` growing one character at a time, the optional
 * character tried before it is skipped, the build tried before the end) but checks each in constant
 * time, where the regex rescans the rest of the string for every length of `.+?` (30 ms for 4 KB).
 * `text` has no newline (`parseParts` refuses control characters).
 */
export function splitVersionPlusBuild(text: string): { version: string; build: string | null } {
  const n = text.length;
  let lastNotInBuild = -1;
  for (let i = n - 1; i >= 0; i--) {
    if ('-=,|<>~'.includes(text[i]!)) {
      lastNotInBuild = i;
      break;
    }
  }
  // A build after the separator at `p`: `(?<![=!|,<>~])[ =]([^-=,|<>~]+?)$`.
  const buildAfter = (p: number): boolean =>
    p < n - 1 && (text[p] === ' ' || text[p] === '=') && !'=!|,<>~'.includes(text[p - 1]!) && p + 1 > lastNotInBuild;
  for (let k = 1; k <= n; k++) {
    if (k < n && !'><!,|'.includes(text[k]!)) {
      if (buildAfter(k + 1)) return { version: text.slice(0, k + 1), build: text.slice(k + 2) };
      if (k + 1 === n) return { version: text, build: null };
    }
    if (buildAfter(k)) return { version: text.slice(0, k), build: text.slice(k + 1) };
  }
  return { version: text, build: null };
}

/** conda's `_sanitize_version_str`: `=1.2` means `1.2*`, `==1.2` means `1.2`. */
function sanitizeVersion(version: string, build: string | null): string {
  if (version === '==' || version === '=') return version;
  if (!version.startsWith('=')) return version;
  const bare = version.replace(/^=+/, '');
  if (version.startsWith('==') && build === null) return bare;
  if (!/[=,|]/.test(bare)) return build === null && !bare.endsWith('*') ? `${bare}*` : bare;
  return version;
}

function parseBrackets(p: SpecParser, content: string, at: number): Map<string, Located> {
  const out = new Map<string, Located>();
  let i = 0;
  while (true) {
    while (i < content.length && (content[i] === ',' || /\s/.test(content[i]!))) i++;
    if (i >= content.length) break;
    KEY.lastIndex = i;
    const key = KEY.exec(content)?.[0];
    if (key === undefined) p.fail(`expected key=value in brackets, found ${JSON.stringify(content[i])}`, at + i);
    const keyAt = at + i;
    i += key.length;
    if (content[i] !== '=') p.fail(`expected "=" after "${key}" in brackets`, at + i);
    i++;
    let value: string;
    const quote = content[i];
    const valueAt = at + i + (quote === "'" || quote === '"' ? 1 : 0);
    if (quote === "'" || quote === '"') {
      const end = content.indexOf(quote, i + 1);
      if (end < 0) p.fail(`unterminated ${quote} quote`, at + i);
      value = content.slice(i + 1, end);
      i = end + 1;
    } else {
      UNQUOTED.lastIndex = i;
      value = UNQUOTED.exec(content)![0];
      i += value.length;
    }
    if (/['"]/.test(value)) p.fail('quotes are not allowed inside a value', valueAt + value.search(/['"]/));
    if (content[i] === '[' || content[i] === ']') p.fail(`unexpected "${content[i]}"`, at + i);
    if (i < content.length && content[i] !== ',' && !/\s/.test(content[i]!)) {
      p.fail(`expected "," after the value of "${key}" (quote values that contain spaces or commas)`, at + i);
    }
    if (value.trim() === '') p.fail(`empty value for "${key}"`, valueAt);
    if (!FIELD_SET.has(key)) p.fail(`unknown key "${key}" (valid keys: ${MATCH_SPEC_FIELDS.join(', ')})`, keyAt);
    out.set(key, { value: value.trim(), at: valueAt + (value.length - value.trimStart().length) });
  }
  return out;
}

interface Parsed {
  name?: Located;
  version?: Located;
  build?: Located;
  channel?: Located;
  subdir?: Located;
  fields: Map<string, Located>;
}

/** `https://.../<channel>/<subdir>/<name>-<version>-<build>.conda` (or a local absolute path). */
function parsePackageFile(p: SpecParser, text: string, at: number): Parsed {
  let url = text;
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url)) {
    const path = url.replaceAll('\\', '/');
    if (path.startsWith('/')) url = `file://${path}`;
    else if (/^[A-Za-z]:\//.test(path)) url = `file:///${path}`;
    else p.fail('a package file must be given as a URL or an absolute path', at);
  }
  url = removeCredentials(url);
  const slash = url.lastIndexOf('/');
  const fn = url.slice(slash + 1);
  const dir = url.slice(0, slash);
  const dirSlash = dir.lastIndexOf('/');
  const subdir = dir.slice(dirSlash + 1);
  const fields = new Map<string, Located>([
    ['url', { value: url, at }],
    ['fn', { value: fn, at: at + text.lastIndexOf('/') + 1 }],
  ]);
  if (!isKnownSubdir(subdir) || dir.slice(0, dirSlash).endsWith(':/')) return { name: { value: '*', at }, fields };
  const stem = fn.endsWith('.conda') ? fn.slice(0, -'.conda'.length) : fn.slice(0, -'.tar.bz2'.length);
  const b = stem.lastIndexOf('-');
  const v = b > 0 ? stem.lastIndexOf('-', b - 1) : -1;
  if (v <= 0) p.fail(`package file name "${fn}" is not <name>-<version>-<build>`, at + text.lastIndexOf('/') + 1);
  const fnAt = at + text.lastIndexOf('/') + 1;
  return {
    channel: { value: dir.slice(0, dirSlash), at },
    subdir: { value: subdir, at },
    name: { value: stem.slice(0, v), at: fnAt },
    version: { value: stem.slice(v + 1, b), at: fnAt + v + 1 },
    build: { value: stem.slice(b + 1), at: fnAt + b + 1 },
    fields,
  };
}

function parseParts(p: SpecParser): Parsed {
  const input = p.input;
  const lead = input.length - input.trimStart().length;
  let s = input.trim();
  if (s === '') p.fail('empty match spec', 0);
  const control = CONTROL.exec(s);
  if (control !== null) p.fail('control characters are not allowed', lead + control.index);

  // conda's legacy feature form: `mkl@` means "any package tracking feature mkl".
  if (s.endsWith('@')) {
    const feature = s.slice(0, -1).trim();
    if (feature === '' || /[\s[\]=<>]/.test(feature)) p.fail('expected a feature name before "@"', lead);
    return { name: { value: '*', at: lead }, fields: new Map([['track_features', { value: feature, at: lead }]]) };
  }

  const hash = s.indexOf('#');
  if (hash >= 0) s = s.slice(0, hash).trimEnd();
  const conditional = s.indexOf(' if ');
  if (conditional >= 0) s = s.slice(0, conditional).trimEnd();
  if (s === '') p.fail('empty match spec', lead);

  if (s.endsWith('.conda') || s.endsWith('.tar.bz2')) return parsePackageFile(p, s, lead);

  // Brackets: from the first "[" to the last "]". (conda takes the last "[" before the last "]",
  // which breaks on a regex value that contains "[".)
  let fields = new Map<string, Located>();
  let cutAt = -1;
  let cutLength = 0;
  const close = s.lastIndexOf(']');
  const open = s.indexOf('[');
  if (open >= 0 && close > open) {
    fields = parseBrackets(p, s.slice(open + 1, close), lead + open + 1);
    cutAt = open;
    cutLength = close - open + 1;
    s = s.slice(0, open) + s.slice(close + 1);
  }
  const pos = (k: number) => lead + (cutAt >= 0 && k >= cutAt ? k + cutLength : k);
  const stray = s.search(/[[\]]/);
  if (stray >= 0) {
    const unclosed = s[stray] === '[' && s.indexOf(']', stray) < 0;
    p.fail(unclosed ? 'unclosed "[" (bracket attributes end with "]")' : `unexpected "${s[stray]}"`, pos(stray));
  }

  // A trailing `(optional)` / `(target=...)` annotation, which conda parses and ignores.
  const parens = /\(([^()]*)\)\s*$/.exec(s);
  if (parens !== null && parens[1]!.split(',').every((part) => /^\s*(optional|[A-Za-z_]+=[^,]*)\s*$/.test(part))) {
    s = s.slice(0, parens.index).trimEnd();
  }

  const parsed: Parsed = { fields };
  let rest = s;
  let restAt = 0;
  const dc = s.lastIndexOf('::');
  if (dc >= 0) {
    const channelText = s.slice(0, dc).trim();
    if (channelText !== '') parsed.channel = { value: channelText, at: pos(s.indexOf(channelText)) };
    rest = s.slice(dc + 2);
    restAt = dc + 2;
  }
  const skip = rest.length - rest.trimStart().length;
  rest = rest.trimStart();
  restAt += skip;
  const colon = rest.indexOf(':');
  if (colon >= 0) p.fail('unexpected ":" (a channel is separated from the name by "::")', pos(restAt + colon));

  const nameMatch = /^[^ =<>!~]+/.exec(rest);
  if (nameMatch === null) {
    p.fail(rest === '' ? 'no package name found' : `no package name found before ${JSON.stringify(rest[0])}`, pos(restAt));
  }
  parsed.name = { value: nameMatch[0], at: pos(restAt) };
  const after = rest.slice(nameMatch[0].length);
  const afterAt = restAt + nameMatch[0].length;
  const trimmed = after.trim();
  if (after.length === 1 && after !== '=') p.fail(`expected a version after ${JSON.stringify(after)}`, pos(afterAt));
  if (after.length > 1 && trimmed !== '') {
    const trimmedAt = afterAt + (after.length - after.trimStart().length);
    const split = splitVersionPlusBuild(trimmed);
    const rawVersion = split.version;
    const build = split.build?.trim() || null;
    const version = sanitizeVersion(rawVersion.replaceAll(' ', ''), build);
    // Report version errors against the version's place in the input.
    const skipped = rawVersion.replaceAll(' ', '').length - version.replace(/\*$/, '').length;
    parsed.version = { value: version, at: pos(trimmedAt + Math.max(0, skipped)) };
    if (build !== null) parsed.build = { value: build, at: pos(trimmedAt + trimmed.lastIndexOf(build)) };
  }
  return parsed;
}

function compileParsed(p: SpecParser, parsed: Parsed): MatchSpec {
  const fields = parsed.fields;

  // Brackets override what is outside them, except the name (conda ignores a bracketed name).
  const nameLoc = parsed.name!;
  const bracketName = fields.get('name');
  if (bracketName !== undefined && bracketName.value.toLowerCase() !== nameLoc.value.toLowerCase()) {
    p.fail(`the name in brackets ("${bracketName.value}") differs from the package name ("${nameLoc.value}")`, bracketName.at);
  }
  const rawName = nameLoc.value.toLowerCase();
  const nameIsRegex = rawName.length > 1 && rawName.startsWith('^');
  if (!nameIsRegex && !NAME_CHARS.test(rawName)) {
    const bad = rawName.search(/[^A-Za-z0-9_.+*-]/);
    p.fail(`unexpected ${JSON.stringify(rawName[bad])} in package name`, nameLoc.at + bad);
  }
  const name = pattern(p, rawName, nameLoc.at);

  let channelLoc = parsed.channel;
  let subdirLoc = parsed.subdir;
  let channel: ChannelMatcher | null = null;
  const channelOf = (loc: Located): { matcher: ChannelMatcher; platform: string | null } => {
    const text = loc.value;
    if (text.includes('*') || text.startsWith('^')) {
      // A glob channel may still name a subdir: `*/linux-64::numpy`.
      const slash = text.lastIndexOf('/');
      if (slash > 0 && isKnownSubdir(text.slice(slash + 1))) {
        const head = text.slice(0, slash);
        return { matcher: new ChannelMatcher(head, head, []), platform: text.slice(slash + 1) };
      }
      pattern(p, text, loc.at);
      return { matcher: new ChannelMatcher(text, text, []), platform: null };
    }
    const defaults = /^defaults(?:\/([^/]+))?$/.exec(text);
    if (defaults !== null && (defaults[1] === undefined || isKnownSubdir(defaults[1]))) {
      return { matcher: new ChannelMatcher(text, 'defaults', DEFAULTS_BASE_URLS), platform: defaults[1] ?? null };
    }
    try {
      const c = parseChannel(text);
      return { matcher: new ChannelMatcher(text, c.name, [c.baseUrl]), platform: c.platform };
    } catch (error) {
      if (error instanceof InvalidChannelError) p.fail(error.message.replace(/^Cannot use /, 'invalid '), loc.at, error);
      throw error;
    }
  };
  let platform: string | null = null;
  if (channelLoc !== undefined) ({ matcher: channel, platform } = channelOf(channelLoc));
  const bracketChannel = fields.get('channel');
  if (bracketChannel !== undefined) {
    const c = channelOf(bracketChannel);
    channel = c.matcher;
    if (c.platform !== null) platform = c.platform;
    channelLoc = bracketChannel;
  }
  if (subdirLoc === undefined && platform !== null) subdirLoc = { value: platform, at: channelLoc!.at };
  const bracketSubdir = fields.get('subdir');
  if (bracketSubdir !== undefined) subdirLoc = bracketSubdir;
  if (subdirLoc !== undefined && !/^[A-Za-z0-9_.*-]+$/.test(subdirLoc.value)) p.fail(`invalid subdir "${subdirLoc.value}"`, subdirLoc.at);

  let versionLoc = parsed.version;
  const bracketVersion = fields.get('version');
  if (bracketVersion !== undefined) versionLoc = { value: sanitizeVersion(bracketVersion.value, null), at: bracketVersion.at };
  let version: VersionSpec | null = null;
  if (versionLoc !== undefined) {
    try {
      version = parseVersionSpec(versionLoc.value);
    } catch (error) {
      if (error instanceof InvalidVersionSpecError) {
        // A bound the version exceeds is about the whole spec: say only that (and which bound).
        if (error.limit !== null) p.fail(error.reason, versionLoc.at + error.position, error, error.limit);
        p.fail(`invalid version "${clipForMessage(versionLoc.value, 60)}": ${error.reason}`, versionLoc.at + error.position, error);
      }
      throw error;
    }
  }

  const buildLoc = fields.get('build') ?? parsed.build;
  let build: StringPattern | null = null;
  if (buildLoc !== undefined) {
    const isRegex = buildLoc.value.length > 1 && buildLoc.value.startsWith('^');
    if (!isRegex && !BUILD_CHARS.test(buildLoc.value)) {
      const bad = buildLoc.value.search(/[^A-Za-z0-9_.+*!]/);
      p.fail(`unexpected ${JSON.stringify(buildLoc.value[bad])} in build string`, buildLoc.at + bad);
    }
    build = pattern(p, buildLoc.value, buildLoc.at);
  }

  const numberLoc = fields.get('build_number');
  let buildNumber: BuildNumberSpec | null = null;
  if (numberLoc !== undefined) {
    try {
      buildNumber = new BuildNumberSpec(numberLoc.value);
    } catch (error) {
      let reason = `invalid build number "${clipForMessage(numberLoc.value, 60)}"`;
      if (error instanceof UnsafeRegExpError) reason = `unsupported regular expression in build_number: ${error.message}`;
      else if (error instanceof SyntaxError) reason = 'invalid regular expression in build_number';
      p.fail(reason, numberLoc.at, error);
    }
  }

  const plain = (key: string): string | null => fields.get(key)?.value ?? null;
  const hex = (key: 'md5' | 'sha256', length: number): string | null => {
    const loc = fields.get(key);
    if (loc === undefined) return null;
    if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(loc.value)) p.fail(`${key} must be ${length} hexadecimal digits`, loc.at);
    return loc.value.toLowerCase();
  };
  const lowerPattern = (key: string): StringPattern | null => {
    const loc = fields.get(key);
    return loc === undefined ? null : pattern(p, loc.value.toLowerCase(), loc.at);
  };
  const features = (key: string): string[] | null => {
    const value = plain(key);
    return value === null ? null : featureSet(value);
  };
  const url = plain('url');

  return new MatchSpec(p.input, {
    name,
    version,
    build,
    buildNumber,
    channel,
    subdir: subdirLoc?.value ?? null,
    md5: hex('md5', 32),
    sha256: hex('sha256', 64),
    url: url === null ? null : removeCredentials(url),
    fn: plain('fn'),
    license: lowerPattern('license'),
    licenseFamily: lowerPattern('license_family'),
    trackFeatures: features('track_features'),
    features: features('features'),
  });
}

function pattern(p: SpecParser, text: string, at: number): StringPattern {
  try {
    return new StringPattern(text);
  } catch (error) {
    if (error instanceof UnsafeRegExpError)
      return p.fail(`unsupported regular expression "${clipForMessage(text, 60)}": ${error.message}`, at, error);
    return p.fail(`invalid regular expression "${clipForMessage(text, 60)}"`, at, error);
  }
}

const CACHE_LIMIT = 50_000;
const cache = new Map<string, MatchSpec>();

/** Longer specs are not cached: the cache is for the short strings records repeat (see version-spec.ts). */
const CACHE_MAX_LENGTH = 256;

/**
 * Parse a conda match spec (cached by string, since records repeat the same depends strings).
 * Throws `InvalidMatchSpecError` naming the spec and the position of the problem, also when the
 * spec is longer than `MAX_SPEC_LENGTH` (4096) characters or its version has more constraints or
 * nested parentheses than version-spec.ts allows; `limit` then names the bound.
 */
export function parseMatchSpec(input: string): MatchSpec {
  const hit = cache.get(input);
  if (hit !== undefined) return hit;
  if (typeof input !== 'string') throw new InvalidMatchSpecError(String(input), 'not a string', 0);
  if (input.length > MAX_SPEC_LENGTH) {
    throw new InvalidMatchSpecError(input, `longer than ${MAX_SPEC_LENGTH} characters (the limit)`, MAX_SPEC_LENGTH, {
      limit: MAX_SPEC_LENGTH,
    });
  }
  const p = new SpecParser(input);
  const spec = compileParsed(p, parseParts(p));
  if (input.length <= CACHE_MAX_LENGTH) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(input, spec);
  }
  return spec;
}

/** Parse a conda match spec, or return null when it is not one. */
export function tryParseMatchSpec(input: string): MatchSpec | null {
  try {
    return parseMatchSpec(input);
  } catch (error) {
    if (error instanceof InvalidMatchSpecError) return null;
    throw error;
  }
}

/**
 * The package name a `depends` entry names (`numpy >=1.26` -> `numpy`), or null when it names none:
 * the dependency graph's edges (trees, why, SBOMs) follow these names.
 */
export function dependencyName(entry: string): string | null {
  const parsed = tryParseMatchSpec(entry);
  if (parsed?.nameIsExact) return parsed.name;
  const word = entry.trim().split(/[\s=<>!~]/)[0];
  return word ? word.toLowerCase() : null;
}

/** Build a spec from fields (values as they would appear in brackets), e.g. `{name: 'numpy', version: '>=1.26'}`. */
export function matchSpecFromFields(fields: MatchSpecFields): MatchSpec {
  const entries = Object.entries(fields).filter(([key, value]) => key !== 'name' && value !== undefined) as [string, string][];
  const text = `${fields.name}${entries.length ? `[${entries.map(([k, v]) => `${k}="${v}"`).join(',')}]` : ''}`;
  return parseMatchSpec(text);
}
