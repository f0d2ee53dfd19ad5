/**
 * The server's configuration: `conda-resolve serve` flags over `CONDA_RESOLVE_*` variables over
 * defaults, validated once and frozen. Nothing here is read at import time;
 * `loadConfig` is a pure function of the environment and flags it is given, so tests build configs
 * without touching `process.env`.
 */
import { availableParallelism } from 'node:os';
import { formatBytes } from '../../repodata/fetch-errors.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { isKnownSubdir } from '../../vocabulary/platform.js';
import { parseByteSize } from '../byte-size.js';

/** The flags `conda-resolve serve` accepts, as `node:util` parseArgs returns them. */
export interface ServeFlags {
  readonly host?: string;
  readonly port?: string;
  readonly 'allow-channel'?: readonly string[];
  readonly 'allow-index'?: readonly string[];
  readonly 'max-pypi-projects'?: string;
  readonly 'allow-local-channels'?: boolean;
  readonly 'cache-dir'?: string;
  readonly 'default-channel'?: readonly string[];
  readonly 'body-limit'?: string;
  readonly 'max-specs'?: string;
  readonly 'max-platforms'?: string;
  readonly 'max-channels'?: string;
  readonly timeout?: string;
  readonly 'rate-limit'?: string;
  readonly workers?: string;
  readonly 'max-queue'?: string;
  readonly 'solve-cache'?: string;
  readonly prewarm?: readonly string[];
  readonly 'cors-origin'?: readonly string[];
  readonly 'trust-proxy'?: boolean;
  readonly 'log-level'?: string;
  readonly 'max-repodata-size'?: string;
  readonly 'max-request-decoding'?: string;
  readonly 'download-timeout'?: string;
  readonly condarc?: string;
  readonly redis?: string;
  readonly 'osv-db'?: string;
  readonly 'osv-api'?: string;
  readonly 'pypi-mapping'?: string;
}

export interface PrewarmTarget {
  /** A channel as a user would write it: a name, a URL, or (with local channels allowed) a path. */
  readonly channel: string;
  readonly platform: string;
}

export interface RateLimitConfig {
  /** Requests allowed per client address per window. */
  readonly max: number;
  readonly windowMs: number;
}

export interface ServerConfig {
  readonly host: string;
  /** 0 picks a free port (the log says which). */
  readonly port: number;
  /** Largest request body accepted, in bytes (413 beyond it). */
  readonly bodyLimit: number;
  readonly maxSpecs: number;
  readonly maxPlatforms: number;
  readonly maxChannels: number;
  /** PyPI indexes requests may use (`https://pypi.org/simple/` and what --allow-index adds), each ending in `/`. */
  readonly allowedIndexes: readonly string[];
  /** PyPI projects one request may fetch (pages; each with the metadata of its releases). */
  readonly maxPypiProjects: number;
  /** Time limit of one resolve request, loading and solving together (504 beyond it). */
  readonly requestTimeoutMs: number;
  /** Per client address; null when disabled. */
  readonly rateLimit: RateLimitConfig | null;
  /** Solver worker threads. */
  readonly workers: number;
  /** Solves allowed to wait for a worker (503 beyond it). */
  readonly maxQueue: number;
  /** Remembered solve outcomes (per index generation); 0 disables the cache. */
  readonly solveCacheEntries: number;
  /** Channels used when a request names none. */
  readonly defaultChannels: readonly string[];
  /** Names or URLs a request may use; `*` admits any public https channel. */
  readonly allowedChannels: readonly string[];
  /** `file://` URLs and local paths as channels. */
  readonly allowLocalChannels: boolean;
  /** Repodata cache directory; undefined means the store's default. */
  readonly cacheDir: string | undefined;
  /** Channel/platform pairs loaded before the server accepts requests. */
  readonly prewarm: readonly PrewarmTarget[];
  /** Origins allowed by CORS; empty means CORS is off. `*` allows any origin. */
  readonly corsOrigins: readonly string[];
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  readonly trustProxy: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Cap on one channel subdir's decoded repodata, in bytes. */
  readonly maxRepodataBytes: number;
  /**
   * One request's decoding budget: repodata its loads may decode at once (2 x `maxRepodataBytes` by
   * default), within the global budget of 4 x `maxRepodataBytes` that every request shares.
   */
  readonly maxRequestDecodingBytes: number;
  /** Longest one repodata download may take, headers to last byte (it goes on after its requests give up). */
  readonly downloadTimeoutMs: number;
  /** How long SIGTERM waits for requests in flight before closing their connections. */
  readonly shutdownGraceMs: number;
  /** A .condarc for the network settings (proxies, TLS, retries, mirrors); none read without it. */
  readonly condarc?: string | undefined;
  /** `redis://` URL of the shared solve cache, job queue and rate limit; null runs alone. */
  readonly redisUrl: string | null;
  /** `POST /audit`'s OSV database (all.zip or a folder), or an OSV API's URL; without either, 404. */
  readonly osvDb?: string | undefined;
  readonly osvApi?: string | undefined;
  /** `POST /audit`'s conda-forge conda-to-PyPI mapping file; the server fetches none. */
  readonly pypiMapping?: string | undefined;
}

export class ConfigError extends CondaResolveError {
  constructor(message: string) {
    super('CR_ERR_CONFIG_VALUE', message);
  }
}

export const CONFIG_DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  bodyLimit: 1024 * 1024,
  maxSpecs: 200,
  maxPlatforms: 8,
  maxChannels: 8,
  maxPypiProjects: 500,
  allowedIndexes: ['https://pypi.org/simple/'],
  timeoutSeconds: 60,
  rateLimitPerMinute: 300,
  maxQueue: 64,
  solveCacheEntries: 256,
  maxRepodataBytes: 1024 ** 3,
  downloadTimeoutSeconds: 600,
  defaultChannels: ['conda-forge'],
  logLevel: 'info',
} as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Where each setting comes from: the flag and its variable, for error messages and `--help`. */
export const CONFIG_SOURCES = {
  host: ['--host', 'CONDA_RESOLVE_HOST'],
  port: ['--port', 'CONDA_RESOLVE_PORT'],
  allowedChannels: ['--allow-channel', 'CONDA_RESOLVE_ALLOWED_CHANNELS'],
  allowedIndexes: ['--allow-index', 'CONDA_RESOLVE_ALLOWED_INDEXES'],
  maxPypiProjects: ['--max-pypi-projects', 'CONDA_RESOLVE_MAX_PYPI_PROJECTS'],
  allowLocalChannels: ['--allow-local-channels', 'CONDA_RESOLVE_ALLOW_LOCAL_CHANNELS'],
  cacheDir: ['--cache-dir', 'CONDA_RESOLVE_CACHE_DIR'],
  condarc: ['--condarc', 'CONDA_RESOLVE_CONDARC'],
  defaultChannels: ['--default-channel', 'CONDA_RESOLVE_DEFAULT_CHANNELS'],
  bodyLimit: ['--body-limit', 'CONDA_RESOLVE_BODY_LIMIT'],
  maxSpecs: ['--max-specs', 'CONDA_RESOLVE_MAX_SPECS'],
  maxPlatforms: ['--max-platforms', 'CONDA_RESOLVE_MAX_PLATFORMS'],
  maxChannels: ['--max-channels', 'CONDA_RESOLVE_MAX_CHANNELS'],
  timeout: ['--timeout', 'CONDA_RESOLVE_TIMEOUT'],
  rateLimit: ['--rate-limit', 'CONDA_RESOLVE_RATE_LIMIT'],
  workers: ['--workers', 'CONDA_RESOLVE_WORKERS'],
  maxQueue: ['--max-queue', 'CONDA_RESOLVE_MAX_QUEUE'],
  solveCache: ['--solve-cache', 'CONDA_RESOLVE_SOLVE_CACHE'],
  prewarm: ['--prewarm', 'CONDA_RESOLVE_PREWARM'],
  corsOrigins: ['--cors-origin', 'CONDA_RESOLVE_CORS_ORIGINS'],
  trustProxy: ['--trust-proxy', 'CONDA_RESOLVE_TRUST_PROXY'],
  logLevel: ['--log-level', 'CONDA_RESOLVE_LOG_LEVEL'],
  maxRepodataBytes: ['--max-repodata-size', 'CONDA_RESOLVE_MAX_REPODATA_SIZE'],
  maxRequestDecoding: ['--max-request-decoding', 'CONDA_RESOLVE_MAX_REQUEST_DECODING'],
  downloadTimeout: ['--download-timeout', 'CONDA_RESOLVE_DOWNLOAD_TIMEOUT'],
  redis: ['--redis', 'CONDA_RESOLVE_REDIS_URL'],
  osvDb: ['--osv-db', 'CONDA_RESOLVE_OSV_DB'],
  osvApi: ['--osv-api', 'CONDA_RESOLVE_OSV_API'],
  pypiMapping: ['--pypi-mapping', 'CONDA_RESOLVE_SERVE_PYPI_MAPPING'],
} as const;

type Source = keyof typeof CONFIG_SOURCES;
type Env = Readonly<Record<string, string | undefined>>;

/**
 * Builds the configuration. A flag wins over its variable, a variable over the default; an empty
 * variable counts as unset. Throws `ConfigError` naming the flag or variable and the bad value.
 */
export function loadConfig(env: Env, flags: ServeFlags = {}): ServerConfig {
  const pick = (source: Source, flag: string | undefined): { value: string; from: string } | undefined => {
    const [flagName, envName] = CONFIG_SOURCES[source];
    if (flag !== undefined) return { value: flag, from: flagName };
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv.trim() !== '') return { value: fromEnv.trim(), from: envName };
    return undefined;
  };
  const pickList = (source: Source, flag: readonly string[] | undefined): { values: string[]; from: string } | undefined => {
    const [flagName, envName] = CONFIG_SOURCES[source];
    if (flag !== undefined && flag.length > 0) return { values: flag.flatMap(splitList), from: flagName };
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv.trim() !== '') return { values: splitList(fromEnv), from: envName };
    return undefined;
  };
  const pickBool = (source: Source, flag: boolean | undefined): boolean => {
    if (flag !== undefined) return flag;
    const [, envName] = CONFIG_SOURCES[source];
    const raw = env[envName]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return false;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    throw new ConfigError(`Cannot use ${envName}="${env[envName]}": expected 1/true/yes or 0/false/no`);
  };

  const host = pick('host', flags.host)?.value ?? CONFIG_DEFAULTS.host;
  const port = integer(pick('port', flags.port), CONFIG_DEFAULTS.port, 0, 65535);
  const bodyLimit = byteSize(pick('bodyLimit', flags['body-limit']), CONFIG_DEFAULTS.bodyLimit, 1, 1024 ** 3);
  const maxRepodataBytes = byteSize(
    pick('maxRepodataBytes', flags['max-repodata-size']),
    CONFIG_DEFAULTS.maxRepodataBytes,
    1024 ** 2,
    2 * 1024 ** 3,
  );
  // Below the global budget (4 x the subdir cap), so one request never holds all of it.
  const maxRequestDecodingBytes = byteSize(
    pick('maxRequestDecoding', flags['max-request-decoding']),
    2 * maxRepodataBytes,
    1024 ** 2,
    4 * maxRepodataBytes,
  );
  const downloadTimeoutSeconds = positiveNumber(
    pick('downloadTimeout', flags['download-timeout']),
    CONFIG_DEFAULTS.downloadTimeoutSeconds,
    3600,
  );
  const maxSpecs = integer(pick('maxSpecs', flags['max-specs']), CONFIG_DEFAULTS.maxSpecs, 1, 100_000);
  const maxPlatforms = integer(pick('maxPlatforms', flags['max-platforms']), CONFIG_DEFAULTS.maxPlatforms, 1, 64);
  const maxChannels = integer(pick('maxChannels', flags['max-channels']), CONFIG_DEFAULTS.maxChannels, 1, 256);
  const timeoutSeconds = positiveNumber(pick('timeout', flags.timeout), CONFIG_DEFAULTS.timeoutSeconds, 3600);
  const perMinute = integer(pick('rateLimit', flags['rate-limit']), CONFIG_DEFAULTS.rateLimitPerMinute, 0, 10_000_000);
  const workers = integer(pick('workers', flags.workers), Math.max(1, availableParallelism()), 1, 256);
  const maxQueue = integer(pick('maxQueue', flags['max-queue']), CONFIG_DEFAULTS.maxQueue, 0, 1_000_000);
  const solveCacheEntries = integer(pick('solveCache', flags['solve-cache']), CONFIG_DEFAULTS.solveCacheEntries, 0, 1_000_000);

  const defaultChannels = pickList('defaultChannels', flags['default-channel'])?.values ?? [...CONFIG_DEFAULTS.defaultChannels];
  if (defaultChannels.length === 0) throw new ConfigError('Cannot start the server: no default channel is configured');
  // A server fetches only what its operator named: the default channels (requests that name no
  // channel use them, so they are always allowed) and what --allow-channel adds to them.
  const allowedChannels = [...new Set([...defaultChannels, ...(pickList('allowedChannels', flags['allow-channel'])?.values ?? [])])];
  const slash = (url: string): string => (url.endsWith('/') ? url : `${url}/`);
  const allowedIndexes = [
    ...new Set([...CONFIG_DEFAULTS.allowedIndexes, ...(pickList('allowedIndexes', flags['allow-index'])?.values ?? []).map(slash)]),
  ];
  const maxPypiProjects = integer(pick('maxPypiProjects', flags['max-pypi-projects']), CONFIG_DEFAULTS.maxPypiProjects, 1, 100_000);
  const allowLocalChannels = pickBool('allowLocalChannels', flags['allow-local-channels']);
  const cacheDir = pick('cacheDir', flags['cache-dir'])?.value;

  const prewarmSource = pickList('prewarm', flags.prewarm);
  const prewarm = (prewarmSource?.values ?? []).map((text) => prewarmTarget(text, prewarmSource!.from));

  const corsOrigins = pickList('corsOrigins', flags['cors-origin'])?.values ?? [];
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`Cannot use CORS origin "${origin}": expected * or an origin such as https://example.org`);
    }
  }
  const trustProxy = pickBool('trustProxy', flags['trust-proxy']);
  const levelSource = pick('logLevel', flags['log-level']);
  const logLevel = (levelSource?.value ?? CONFIG_DEFAULTS.logLevel).toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(
      `Cannot use ${levelSource?.from ?? '--log-level'} "${levelSource?.value}": expected one of ${LOG_LEVELS.join(', ')}`,
    );
  }

  const requestTimeoutMs = Math.round(timeoutSeconds * 1000);
  return Object.freeze({
    host,
    port,
    bodyLimit,
    maxSpecs,
    maxPlatforms,
    maxChannels,
    allowedIndexes: Object.freeze(allowedIndexes),
    maxPypiProjects,
    requestTimeoutMs,
    rateLimit: perMinute === 0 ? null : Object.freeze({ max: perMinute, windowMs: 60_000 }),
    workers,
    maxQueue,
    solveCacheEntries,
    defaultChannels: Object.freeze(defaultChannels),
    allowedChannels: Object.freeze(allowedChannels),
    allowLocalChannels,
    cacheDir,
    prewarm: Object.freeze(prewarm),
    corsOrigins: Object.freeze(corsOrigins),
    trustProxy,
    logLevel: logLevel as ServerConfig['logLevel'],
    maxRepodataBytes,
    maxRequestDecodingBytes,
    downloadTimeoutMs: Math.round(downloadTimeoutSeconds * 1000),
    // In-flight requests end by their own time limit; a little more lets their answers be written.
    shutdownGraceMs: requestTimeoutMs + 5000,
    condarc: pick('condarc', flags.condarc)?.value,
    redisUrl: redisUrl(pick('redis', flags.redis)),
    osvDb: pick('osvDb', flags['osv-db'])?.value,
    osvApi: osvApiUrl(pick('osvApi', flags['osv-api'])),
    pypiMapping: pick('pypiMapping', flags['pypi-mapping'])?.value,
  });
}

/** An http(s) URL, or undefined when unset. */
function osvApiUrl(source: { value: string; from: string } | undefined): string | undefined {
  if (!source) return undefined;
  if (!/^https?:\/\/[^/\s]+/.test(source.value))
    throw new ConfigError(`Cannot use ${source.from} "${source.value}": expected an http(s) URL such as https://api.osv.dev`);
  return source.value;
}

/** A `redis://` or `rediss://` URL, or null when unset. */
export function redisUrl(source: { value: string; from: string } | undefined): string | null {
  if (!source) return null;
  const value = source.value.trim();
  let url: URL | null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw new ConfigError(`Cannot use ${source.from}: expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0`);
  }
  return value;
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function integer(source: { value: string; from: string } | undefined, fallback: number, min: number, max: number): number {
  if (!source) return fallback;
  const value = /^\d+$/.test(source.value) ? Number(source.value) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`Cannot use ${source.from} "${source.value}": expected an integer from ${min} to ${max}`);
  }
  return value;
}

function positiveNumber(source: { value: string; from: string } | undefined, fallback: number, max: number): number {
  if (!source) return fallback;
  const value = /^\d+(\.\d+)?$/.test(source.value) ? Number(source.value) : NaN;
  if (!(value > 0) || value > max) {
    throw new ConfigError(`Cannot use ${source.from} "${source.value}": expected a number of seconds above 0 and at most ${max}`);
  }
  return value;
}

/** Bytes, or a number with a unit (`1048576`, `512KiB`, `2MiB`, `1GiB`), from `min` to `max`. */
function byteSize(source: { value: string; from: string } | undefined, fallback: number, min: number, max: number): number {
  if (!source) return fallback;
  const value = parseByteSize(source.value);
  if (value === null || value < min || value > max) {
    throw new ConfigError(
      `Cannot use ${source.from} "${source.value}": expected a size such as 1048576, 512KiB or 2MiB (${min > 1 ? `from ${formatBytes(min)} to ` : 'at most '}${formatBytes(max)})`,
    );
  }
  return value;
}

/** `CHANNEL/PLATFORM`: the last path segment is the platform, as in conda's `<channel>/<subdir>` URLs. */
function prewarmTarget(text: string, from: string): PrewarmTarget {
  const at = text.lastIndexOf('/');
  const channel = at > 0 ? text.slice(0, at) : '';
  const platform = at > 0 ? text.slice(at + 1) : '';
  if (!channel || !isKnownSubdir(platform) || platform === 'noarch') {
    throw new ConfigError(`Cannot use ${from} "${text}": expected CHANNEL/PLATFORM such as conda-forge/linux-64`);
  }
  return Object.freeze({ channel, platform });
}
