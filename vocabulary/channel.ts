/**
 * The Channel model: a channel string as users give it (a name on the channel alias, a multi-part
 * name such as `conda-forge/label/dev`, an `http(s)://` or `file://` URL, or a local path), parsed
 * into a display name, a base URL without credentials, and the credentials kept apart so they are
 * used for requests only and never printed.
 *
 * Pure: no Node APIs. The alias (`CONDA_CHANNEL_ALIAS`) and the working directory for relative
 * paths are parameters.
 */
import { CondaResolveError } from './errors.js';
import { isKnownSubdir } from './platform.js';

export const DEFAULT_CHANNEL_ALIAS = 'https://conda.anaconda.org';

/** What `defaults` stands for on Linux and macOS (conda adds `pkgs/msys2` on Windows). */
export const DEFAULTS_CHANNEL_URLS: readonly string[] = ['https://repo.anaconda.com/pkgs/main', 'https://repo.anaconda.com/pkgs/r'];

export type ChannelKind = 'alias' | 'url' | 'file';

/** Secrets found in a channel string, kept for requests only. */
export interface ChannelCredentials {
  /** An anaconda.org-style token (`/t/<token>/`). */
  readonly token: string | null;
  /** `user:password` as it appeared in the URL (percent-encoded), or null. */
  readonly userInfo: string | null;
}

export class InvalidChannelError extends CondaResolveError {
  readonly input: string;

  constructor(input: string, reason: string) {
    super('CR_ERR_CHANNEL_INVALID', `Cannot use channel ${JSON.stringify(redactSecrets(input))}: ${reason}`);
    this.input = redactSecrets(input);
  }
}

export interface ParseChannelOptions {
  /** The channel alias for bare names; empty or undefined means `https://conda.anaconda.org`. */
  readonly alias?: string | undefined;
  /** Base for relative local paths (an absolute POSIX or Windows path). */
  readonly cwd?: string | undefined;
  /** The home directory, for paths starting with `~`. */
  readonly home?: string | undefined;
}

export class Channel {
  /**
   * How users name the channel, as conda prints it: the name (`conda-forge`,
   * `conda-forge/label/dev`) for channels on the alias, otherwise the URL without credentials.
   */
  readonly name: string;
  /** The base URL without credentials and without a trailing slash. */
  readonly baseUrl: string;
  readonly kind: ChannelKind;
  /** Null when the channel string carried no secrets. */
  readonly credentials: ChannelCredentials | null;
  /** A subdir named at the end of the channel string (`conda-forge/linux-64`), else null. */
  readonly platform: string | null;
  /** Where in `baseUrl` the `/t/<token>` segment goes back (just after the alias or host path). */
  readonly #tokenAt: number;

  /** @internal Use `parseChannel`. */
  constructor(fields: {
    name: string;
    baseUrl: string;
    kind: ChannelKind;
    credentials: ChannelCredentials | null;
    platform: string | null;
    tokenAt: number;
  }) {
    this.name = fields.name;
    this.baseUrl = fields.baseUrl;
    this.kind = fields.kind;
    this.credentials = fields.credentials;
    this.platform = fields.platform;
    this.#tokenAt = fields.tokenAt;
  }

  /** The URL of one subdir, with credentials: for fetching only, never for printing. */
  subdirUrl(subdir: string): string {
    return `${this.authenticatedBaseUrl()}/${subdir}`;
  }

  /** The URL of one subdir without credentials, safe to print. */
  publicSubdirUrl(subdir: string): string {
    return `${this.baseUrl}/${subdir}`;
  }

  /** The base URL with credentials: for requests only. */
  authenticatedBaseUrl(): string {
    const creds = this.credentials;
    if (creds === null) return this.baseUrl;
    let url = this.baseUrl;
    if (creds.token !== null) url = `${url.slice(0, this.#tokenAt)}/t/${creds.token}${url.slice(this.#tokenAt)}`;
    if (creds.userInfo !== null) {
      const schemeEnd = url.indexOf('://') + 3;
      url = `${url.slice(0, schemeEnd)}${creds.userInfo}@${url.slice(schemeEnd)}`;
    }
    return url;
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;
const NAME_PART = /^[A-Za-z0-9_.+-]+$/;
const WINDOWS_DRIVE = /^[A-Za-z]:[\\/]/;

interface UrlParts {
  scheme: string;
  host: string;
  segments: string[];
  token: string | null;
  /** Index in `segments` where the token segment pair was (to put it back there). */
  tokenSegment: number;
  userInfo: string | null;
}

function splitUrl(input: string, text: string): UrlParts {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidChannelError(input, 'not a valid URL');
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'file') {
    throw new InvalidChannelError(input, `unsupported URL scheme "${scheme}" (use https, http or file)`);
  }
  if (url.search !== '' || url.hash !== '') throw new InvalidChannelError(input, 'a channel URL cannot have a query or fragment');
  if (scheme !== 'file' && url.host === '') throw new InvalidChannelError(input, 'the URL has no host');
  const userInfo =
    url.username !== '' || url.password !== '' ? (url.password !== '' ? `${url.username}:${url.password}` : url.username) : null;
  const segments = url.pathname.split('/').filter((s) => s !== '');
  let token: string | null = null;
  let tokenSegment = -1;
  const t = segments.indexOf('t');
  if (t >= 0 && t + 1 < segments.length) {
    token = segments[t + 1]!;
    tokenSegment = t;
    segments.splice(t, 2);
  }
  return { scheme, host: url.host, segments, token, tokenSegment, userInfo };
}

function joinUrl(parts: UrlParts, segments: readonly string[]): string {
  const path = segments.length ? `/${segments.join('/')}` : '';
  return parts.scheme === 'file' ? `file://${parts.host}${path}` : `${parts.scheme}://${parts.host}${path}`;
}

interface Alias {
  readonly base: string;
  /** Host plus path, lowercase host, scheme dropped: channel URLs are compared by location. */
  readonly location: string;
  readonly token: string | null;
  readonly userInfo: string | null;
}

const aliasCache = new Map<string, Alias>();

function parseAlias(text: string | undefined): Alias {
  const raw = text === undefined || text.trim() === '' ? DEFAULT_CHANNEL_ALIAS : text.trim();
  const hit = aliasCache.get(raw);
  if (hit !== undefined) return hit;
  if (!SCHEME.test(raw)) throw new InvalidChannelError(raw, 'the channel alias must be an http(s) or file URL');
  const parts = splitUrl(raw, raw);
  // A file:// alias (a local or NFS mirror of the alias's channels) carries no credentials.
  if (parts.scheme === 'file' && (parts.token !== null || parts.userInfo !== null))
    throw new InvalidChannelError(raw, 'a file URL cannot carry credentials');
  const base = joinUrl(parts, parts.segments);
  const alias: Alias = { base, location: locationOf(base), token: parts.token, userInfo: parts.userInfo };
  aliasCache.set(raw, alias);
  return alias;
}

function locationOf(url: string): string {
  return url.replace(SCHEME, '');
}

const DEFAULT_ALIAS = parseAlias(undefined);

/** Strip a trailing known subdir (`.../linux-64`) into `platform`. */
function takePlatform(segments: string[]): string | null {
  const last = segments[segments.length - 1];
  if (last !== undefined && segments.length > 1 && isKnownSubdir(last)) {
    segments.pop();
    return last;
  }
  return null;
}

function credentialsOf(token: string | null, userInfo: string | null): ChannelCredentials | null {
  return token === null && userInfo === null ? null : { token, userInfo };
}

function fromUrl(input: string, text: string, alias: Alias): Channel {
  const parts = splitUrl(input, text);
  const segments = [...parts.segments];
  const platform = takePlatform(segments);
  const baseUrl = joinUrl(parts, segments);
  const credentials = credentialsOf(parts.token, parts.userInfo);
  const tokenAt = parts.tokenSegment >= 0 ? joinUrl(parts, segments.slice(0, parts.tokenSegment)).length : baseUrl.length;
  if (parts.scheme === 'file') {
    if (credentials !== null) throw new InvalidChannelError(input, 'a file URL cannot carry credentials');
    return new Channel({ name: baseUrl, baseUrl, kind: 'file', credentials: null, platform, tokenAt: baseUrl.length });
  }
  // A URL under the alias (or the default alias) is named like the bare name would be.
  const location = locationOf(baseUrl);
  for (const a of alias === DEFAULT_ALIAS ? [alias] : [alias, DEFAULT_ALIAS]) {
    if (location.toLowerCase().startsWith(`${a.location.toLowerCase()}/`)) {
      const name = location.slice(a.location.length + 1);
      return new Channel({ name, baseUrl, kind: 'alias', credentials, platform, tokenAt });
    }
  }
  return new Channel({ name: baseUrl, baseUrl, kind: 'url', credentials, platform, tokenAt });
}

/** Resolve `.` and `..` in a `/`-separated absolute path. */
function normalisePath(path: string): string {
  const drive = /^[A-Za-z]:/.exec(path)?.[0] ?? '';
  const out: string[] = [];
  for (const part of path.slice(drive.length).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `${drive}/${out.join('/')}`;
}

function pathToFileUrl(input: string, path: string): string {
  let p = path.replaceAll('\\', '/');
  try {
    if (p.startsWith('//')) {
      // A UNC path (\\server\share): the server becomes the URL host.
      const [host, ...rest] = p.slice(2).split('/');
      return new URL(`file://${host}${encodePath(normalisePath(`/${rest.join('/')}`))}`).href;
    }
    p = normalisePath(p);
    if (/^[A-Za-z]:/.test(p)) p = `/${p}`;
    return new URL(`file://${encodePath(p)}`).href;
  } catch {
    throw new InvalidChannelError(input, 'not a valid path');
  }
}

/** Percent-encode the characters a URL parser would otherwise read as syntax. */
function encodePath(path: string): string {
  return path.replaceAll('%', '%25').replaceAll('#', '%23').replaceAll('?', '%3F');
}

function isPathLike(text: string): boolean {
  return (
    text.startsWith('/') ||
    text.startsWith('\\') ||
    text.startsWith('./') ||
    text.startsWith('../') ||
    text.startsWith('.\\') ||
    text.startsWith('..\\') ||
    text === '.' ||
    text === '..' ||
    text.startsWith('~') ||
    WINDOWS_DRIVE.test(text)
  );
}

function fromPath(input: string, text: string, options: ParseChannelOptions): Channel {
  let path = text;
  if (path.startsWith('~')) {
    if (!options.home) throw new InvalidChannelError(input, 'cannot expand "~" without a home directory; give an absolute path');
    path = `${options.home}${path.slice(1)}`;
  }
  const absolute = path.startsWith('/') || path.startsWith('\\') || WINDOWS_DRIVE.test(path);
  if (!absolute) {
    if (!options.cwd) throw new InvalidChannelError(input, 'a relative path needs a working directory; give an absolute path');
    path = `${options.cwd.replaceAll('\\', '/')}/${path}`;
  }
  return fromUrl(input, pathToFileUrl(input, path), parseAlias(options.alias));
}

function fromName(input: string, text: string, alias: Alias): Channel {
  const segments = text.split('/').filter((s) => s !== '');
  for (const segment of segments) {
    if (!NAME_PART.test(segment)) {
      const bad = /[^A-Za-z0-9_.+-]/.exec(segment)?.[0] ?? segment;
      throw new InvalidChannelError(input, `unexpected ${JSON.stringify(bad)} in a channel name`);
    }
  }
  if (segments.length === 0) throw new InvalidChannelError(input, 'empty channel name');
  if (segments.length === 1 && segments[0] === 'defaults') {
    throw new InvalidChannelError(input, `"defaults" stands for several channels (${DEFAULTS_CHANNEL_URLS.join(', ')}); expand it first`);
  }
  if (segments[0] === 'pkgs') {
    // Anaconda's own channels (pkgs/main, pkgs/r, ...) live on repo.anaconda.com, not on the alias.
    return fromUrl(input, `https://repo.anaconda.com/${segments.join('/')}`, alias);
  }
  const platform = takePlatform(segments);
  const name = segments.join('/');
  const baseUrl = `${alias.base}/${name}`;
  // Under a file:// alias the channel is a local folder, still named by its short name.
  if (alias.base.startsWith('file:'))
    return new Channel({ name, baseUrl, kind: 'file', credentials: null, platform, tokenAt: baseUrl.length });
  return new Channel({
    name,
    baseUrl,
    kind: 'alias',
    credentials: credentialsOf(alias.token, alias.userInfo),
    platform,
    tokenAt: alias.base.length,
  });
}

/**
 * Parse a channel as users give it. Throws `InvalidChannelError` (whose message never contains
 * the credentials) for strings that are not channels.
 */
export function parseChannel(text: string, options: ParseChannelOptions = {}): Channel {
  if (typeof text !== 'string') throw new InvalidChannelError(String(text), 'not a string');
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidChannelError(text, 'empty channel');
  // eslint-disable-next-line no-control-regex -- rejecting control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new InvalidChannelError(text, 'control characters are not allowed');
  const alias = parseAlias(options.alias);
  const scheme = SCHEME.exec(trimmed);
  if (scheme !== null) return fromUrl(text, trimmed, alias);
  if (isPathLike(trimmed)) return fromPath(text, trimmed, options);
  return fromName(text, trimmed, alias);
}

/** Parse a channel, or return null when it is not one. */
export function tryParseChannel(text: string, options: ParseChannelOptions = {}): Channel | null {
  try {
    return parseChannel(text, options);
  } catch (error) {
    if (error instanceof InvalidChannelError) return null;
    throw error;
  }
}

interface ChannelIdentity {
  readonly name: string;
  readonly baseUrl: string;
}

const identityCache = new Map<string, ChannelIdentity | null>();

/**
 * How two channel strings are compared: by display name and by base URL, on the default alias,
 * so `conda-forge`, `https://conda.anaconda.org/conda-forge` and `.../conda-forge/` are one
 * channel. Returns null for strings that are not channels (such as the virtual channel `@`).
 */
export function channelIdentity(text: string): ChannelIdentity | null {
  let hit = identityCache.get(text);
  if (hit === undefined) {
    const channel = tryParseChannel(text);
    hit = channel === null ? null : { name: channel.name, baseUrl: channel.baseUrl };
    if (identityCache.size >= 10_000) identityCache.clear();
    identityCache.set(text, hit);
  }
  return hit;
}

/** Whether two channel strings name the same channel (see `channelIdentity`). */
export function sameChannel(a: string, b: string): boolean {
  if (a === b) return true;
  const x = channelIdentity(a);
  const y = channelIdentity(b);
  if (x === null || y === null) return false;
  return x.name === y.name || x.baseUrl === y.baseUrl;
}

const TOKEN = /\/t\/[^/\s'"<>]+(?=\/|$|[\s'"<>])/g;
const USER_INFO = /([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^\s/@'"<>]+@/g;

/**
 * Remove secrets from any text: `/t/<token>/` becomes `/t/<TOKEN>/`, and `user:password@` in a URL
 * is dropped. Safe to apply twice.
 */
export function redactSecrets(text: string): string {
  if (!text.includes('/t/') && !text.includes('@')) return text;
  return text.replace(TOKEN, '/t/<TOKEN>').replace(USER_INFO, '$1');
}

/**
 * `url` without its secrets (`/t/<token>` segment and `user:password@`), for storing and
 * comparing package URLs. Text that is not a URL is returned unchanged.
 */
export function removeCredentials(url: string): string {
  const scheme = SCHEME.exec(url);
  if (scheme === null) return url;
  let out = url.replace(USER_INFO_AT_START, '$1');
  const slash = out.indexOf('/', scheme[0].length);
  if (slash >= 0) out = out.slice(0, slash) + out.slice(slash).replace(TOKEN_SEGMENT, '');
  return out;
}

const USER_INFO_AT_START = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/@]*@/;
const TOKEN_SEGMENT = /\/t\/[^/]+(?=\/|$)/;
