/**
 * Turns what a user asked for (CLI flags or an HTTP body) into a validated request: every spec
 * parsed, every file read, every platform and channel checked, before anything is fetched. Bad input
 * fails here, naming the spec, the file and line, or the field. The parsed specs are carried to the
 * solver, which does not parse them again.
 */
import { CHANNEL_PRIORITIES, type ChannelPriority } from '../solver/index.js';
import { parseChannel, type Channel } from '../vocabulary/channel.js';
import { parseMatchSpec, type MatchSpec } from '../vocabulary/match-spec.js';
import { isKnownSubdir, KNOWN_SUBDIRS } from '../vocabulary/platform.js';
import { virtualPackages } from '../vocabulary/virtual-packages.js';
import { CondaResolveError } from '../vocabulary/errors.js';
import { InputFileError, UsageError } from './errors.js';
import { parseInputFile, type ParsedInputFile } from './inputs/index.js';
import { expandChannel, type ChannelSettings } from './config/channels.js';
import type { PackageRecord } from '../vocabulary/record.js';
import type { PypiRecord } from '../vocabulary/pypi-record.js';
import type { LockEnvironmentDetails } from './locks/types.js';
import { checkLockInput } from './lock/lock-input.js';
import { readPreviousLock, type PreviousLock } from './lock/previous-lock.js';
import {
  parseResolutionStrategy,
  preparePypi,
  type CondaPypiMapOverrides,
  type PreparedPypi,
  type PypiIndexOptions,
} from './pypi/request.js';
import type { ResolutionStrategy } from '../vocabulary/pypi-record.js';

export interface InputFile {
  /** The name as the user gave it; its basename chooses the parser. */
  readonly filename: string;
  readonly content: string;
}

export interface ResolveRequest {
  readonly specs?: readonly string[];
  readonly files?: readonly InputFile[];
  readonly channels?: readonly string[];
  readonly platforms?: readonly string[];
  readonly channelPriority?: string;
  /** `NAME=VERSION[=BUILD]` entries that replace or add virtual packages. */
  readonly virtualPackages?: readonly string[];
  /** An ISO 8601 date or date-time; records published after it are ignored. */
  readonly excludeNewer?: string;
  /** The environment of a lock or pixi manifest input (`-e NAME`); `default` when absent. */
  readonly environment?: string;
  /** A previous lock to stay close to (`--lock FILE`). */
  readonly lock?: InputFile;
  /** Package names of `lock` to solve afresh (`--update NAME`). */
  readonly update?: readonly string[];
  /** PEP 508 requirements installed from PyPI (`--pypi`), solved in one problem with the conda specs. */
  readonly pypi?: readonly string[];
  /** Where PyPI distributions come from (`--index-url`, `--extra-index-url`, `--index-strategy`, `--pre`). */
  readonly pypiOptions?: PypiIndexOptions;
  /** `highest` (default), `lowest` or `lowest-direct`, for conda and PyPI names alike. */
  readonly resolution?: string;
  /** conda name -> PyPI name per channel (`--pypi-mapping`, pixi's `conda-pypi-map`), over the default. */
  readonly condaPypiMap?: CondaPypiMapOverrides;
}

export interface PreparedRequest {
  /**
   * Root specs, parsed: the files' specs in file order, then the positional ones; duplicates (by
   * text) dropped. `source` is each one's text as written, trimmed.
   */
  readonly specs: readonly MatchSpec[];
  readonly channels: readonly Channel[];
  readonly platforms: readonly string[];
  readonly channelPriority: ChannelPriority;
  readonly virtualPackages: readonly string[];
  readonly excludeNewer?: number;
  readonly warnings: readonly string[];
  /** The previous lock the solves stay close to (`--lock`). */
  readonly previousLock?: PreviousLock;
  /** Set when the input is a lock file: each platform's records, taken as they are (no solve). */
  readonly locked?: ReadonlyMap<string, readonly PackageRecord[]>;
  /**
   * What a lock holds beside its conda records and a resolve keeps as it is: the PyPI
   * distributions (from the input lock, or from `--lock` when the request has no PyPI part),
   * the packages kept by reference, and the lock's details for writing it back.
   */
  readonly kept?: KeptFromLock;
  /** The whole root spec list of each platform where a pixi manifest's targets change `specs`. */
  readonly platformSpecs?: ReadonlyMap<string, readonly MatchSpec[]>;
  /** Virtual packages per platform from a pixi manifest's system-requirements, before `virtualPackages`. */
  readonly platformVirtualPackages?: ReadonlyMap<string, readonly string[]>;
  /**
   * The conda subdir of each platform that is a lock's named platform (pixi.lock v7 `p2` ->
   * `linux-64`), when the lock (input or `--lock`) names one; `platforms` then holds the name.
   */
  readonly platformSubdirs?: ReadonlyMap<string, string>;
  /** The pixi manifest environment the request was made from. */
  readonly manifestEnvironment?: string;
  /** The PyPI part, when the request has PyPI requirements. */
  readonly pypi?: PreparedPypi;
  /**
   * Without PyPI requirements: the index options given anyway (flags, files, mapping), so a PyPI
   * requirement added later (why-not `pypi:...`) is prepared with them rather than the defaults.
   */
  readonly pypiSources?: PypiSources;
  /** Which version of each name the solves prefer; `highest` when absent. */
  readonly resolution?: ResolutionStrategy;
}

/** Where a request's PyPI index options come from (see `preparePypi`). */
export interface PypiSources {
  readonly options: PypiIndexOptions;
  readonly fileOptions: readonly PypiIndexOptions[];
  readonly mappingOverrides: CondaPypiMapOverrides;
}

/** What a resolve keeps from a lock as it is (see `PreparedRequest.kept`). */
export interface KeptFromLock {
  /** The lock's file name and environment, for messages. */
  readonly filename: string;
  readonly environment: string;
  /** Per platform asked for: the PyPI distributions. */
  readonly pypi: ReadonlyMap<string, readonly PypiRecord[]>;
  readonly pypiIndexes: readonly string[];
  /** The lock environment's details (only when the lock is the input, so its records are the answer). */
  readonly details?: LockEnvironmentDetails;
}

/** The root specs of one platform. */
export function specsOn(request: PreparedRequest, platform: string): readonly MatchSpec[] {
  return request.platformSpecs?.get(platform) ?? request.specs;
}

/** The conda subdir of one of the request's platforms (a lock's named platform has its own). */
export function subdirOn(request: Pick<PreparedRequest, 'platformSubdirs'>, platform: string): string {
  return request.platformSubdirs?.get(platform) ?? platform;
}

/** The virtual package entries of one platform: the manifest's, then the request's own (which win). */
export function virtualPackagesOn(request: PreparedRequest, platform: string): readonly string[] {
  return [...(request.platformVirtualPackages?.get(platform) ?? []), ...request.virtualPackages];
}

export interface PrepareOptions {
  /** Environment variables (CONDA_CHANNEL_ALIAS, CONDA_OVERRIDE_*). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Base for relative local channel paths. */
  readonly cwd: string;
  /** Used when no platform is given anywhere. */
  readonly hostPlatform: string;
  /** Used when neither `-c` nor a file nor `configuredChannels` names a channel. */
  readonly defaultChannels: readonly string[];
  /** Channels from configuration (`.condarc` `channels`), searched after the request's own. */
  readonly configuredChannels?: readonly string[];
  /** `channel_alias`, `default_channels`, `custom_channels`, `custom_multichannels` from configuration. */
  readonly channelSettings?: ChannelSettings;
  /** Most distinct specs (files' and positional together) a request may have; `MAX_REQUEST_SPECS` when absent. */
  readonly maxSpecs?: number;
  /** Reads files an input names (pip `-r FILE`), relative to `cwd`; absent (the server): refused. */
  readonly readIncluded?: (path: string) => string;
}

/**
 * Most distinct specs one request may have unless the caller sets its own (the server's
 * `--max-specs`). A real environment has hundreds; the bound keeps a file of a million lines from
 * being parsed spec by spec before anything can say it is too big.
 */
export const MAX_REQUEST_SPECS = 10_000;

/** A request with more distinct specs than `maxSpecs`; nothing was parsed. */
export class TooManySpecsError extends UsageError {
  readonly count: number;
  readonly limit: number;
  constructor(count: number, limit: number, files: readonly string[]) {
    const inFiles = files.length > 0 ? ` (with those of ${files.map((f) => `"${f}"`).join(', ')})` : '';
    super('CR_ERR_INPUT_TOO_MANY_SPECS', `Cannot resolve: the request has ${count} specs${inFiles}, more than the limit of ${limit}`);
    this.count = count;
    this.limit = limit;
  }
}

export function prepareRequest(request: ResolveRequest, options: PrepareOptions): PreparedRequest {
  const warnings: string[] = [];
  const files: ParsedInputFile[] = (request.files ?? []).map((file) =>
    parseInputFile(file.filename, file.content, {
      environment: request.environment,
      ...(options.readIncluded ? { readIncluded: options.readIncluded } : {}),
    }),
  );
  for (const file of files) warnings.push(...file.warnings);
  const locked = checkLockInput(files, request);
  if ((request.update ?? []).length > 0 && request.lock === undefined) {
    throw new UsageError(
      'CR_ERR_INPUT_LOCK_USAGE',
      'Cannot use --update without --lock: name the lock whose other packages should stay as they are',
    );
  }
  const previousLock = request.lock
    ? readPreviousLock(request.lock, { environment: request.environment, update: request.update })
    : undefined;

  // Distinct specs first (each with where it first appears), counted before any is parsed.
  const where = new Map<string, { file: string; at: string } | undefined>();
  for (const file of files) {
    for (const item of file.specs) {
      const text = item.spec.trim();
      if (!where.has(text)) where.set(text, { file: file.filename, at: item.line ? `${file.filename}, line ${item.line}` : file.filename });
    }
  }
  for (const spec of request.specs ?? []) {
    const text = spec.trim();
    if (!where.has(text)) where.set(text, undefined);
  }
  const maxSpecs = options.maxSpecs ?? MAX_REQUEST_SPECS;
  if (where.size > maxSpecs)
    throw new TooManySpecsError(
      where.size,
      maxSpecs,
      files.map((f) => f.filename),
    );
  const parsed = new Map<string, MatchSpec>();
  const parseAt = (text: string, at: { file: string; at: string } | undefined): MatchSpec => {
    const known = parsed.get(text);
    if (known) return known;
    try {
      const spec = parseMatchSpec(text);
      parsed.set(text, spec);
      return spec;
    } catch (error) {
      if (error instanceof CondaResolveError) {
        // A spec of a file names the file (an InputFileError), so the HTTP answer's field is `file`.
        throw at
          ? new InputFileError('CR_ERR_INPUT_SPEC', at.file, `${at.at}: ${error.message}`, { cause: error })
          : new UsageError('CR_ERR_INPUT_SPEC', error.message, { cause: error });
      }
      throw error;
    }
  };
  const specs: MatchSpec[] = [...where].map(([text, at]) => parseAt(text, at));
  // A pixi manifest's targets: the platform's whole list, with the other files' and positional specs.
  const manifest = files.find((f) => f.manifest)?.manifest;
  const platformSpecs = new Map<string, MatchSpec[]>();
  for (const [platform, list] of manifest?.platformSpecs ?? []) {
    const texts = new Map<string, { file: string; at: string } | undefined>();
    for (const file of files) {
      for (const item of file.manifest ? list : file.specs) texts.set(item.spec.trim(), { file: file.filename, at: file.filename });
    }
    for (const spec of request.specs ?? []) if (!texts.has(spec.trim())) texts.set(spec.trim(), undefined);
    platformSpecs.set(
      platform,
      [...texts].map(([text, at]) => parseAt(text, at)),
    );
  }
  const pypiSources: PypiSources = {
    options: request.pypiOptions ?? {},
    fileOptions: files.flatMap((f) => (f.pypiOptions ? [f.pypiOptions] : [])),
    mappingOverrides: Object.assign(
      {},
      ...files.flatMap((f) => (f.condaPypiMap ? [f.condaPypiMap] : [])),
      request.condaPypiMap ?? {},
    ) as CondaPypiMapOverrides,
  };
  const pypi = preparePypi(
    [...files.flatMap((f) => f.pypi ?? []), ...(request.pypi ?? []).map((requirement) => ({ requirement }))],
    manifest?.platformPypi,
    pypiSources.options,
    pypiSources.fileOptions,
    pypiSources.mappingOverrides,
  );
  const resolution = parseResolutionStrategy(request.resolution);
  if (specs.length === 0 && !locked && !pypi && ![...platformSpecs.values()].some((list) => list.length > 0)) {
    throw new UsageError(
      'CR_ERR_INPUT_NO_SPECS',
      files.length > 0
        ? `Cannot resolve: ${files.map((f) => `"${f.filename}"`).join(', ')} lists no conda packages`
        : 'Cannot resolve: give package specs or an environment file',
    );
  }

  const platforms = unique(
    (request.platforms?.length
      ? request.platforms
      : files.some((f) => f.platforms.length > 0)
        ? files.flatMap((f) => f.platforms)
        : [...(previousLock?.environment.platforms.keys() ?? [])]
    ).map((p) => p.trim()),
  );
  if (platforms.length === 0) platforms.push(options.hostPlatform);
  // A lock's named platforms (pixi.lock v7) are platforms of this request too, solved for their
  // subdir with the virtual packages the lock gives them. The lock keys one by its subdir when no
  // other platform has that subdir, else by its name (`p2`).
  const lockDetails = locked?.details ?? previousLock?.environment.details;
  const lockKey = (name: string): string => [...(lockDetails?.platformNames ?? [])].find(([, n]) => n === name)?.[0] ?? name;
  const named = (lockDetails?.lockPlatforms ?? []).filter((p) => p.name !== p.subdir).map((p) => ({ ...p, key: lockKey(p.name) }));
  const platformSubdirs = new Map(named.filter((p) => p.key !== p.subdir).map((p) => [p.key, p.subdir] as const));
  // A lock input names the platforms it locks when asked for another.
  const lockedRecords = locked?.platformsOf(platforms);
  for (const platform of platforms) {
    if (platform === 'noarch' || !(isKnownSubdir(platform) || platformSubdirs.has(platform))) {
      throw new UsageError(
        'CR_ERR_INPUT_PLATFORM',
        `Cannot resolve for platform "${platform}": ${platform === 'noarch' ? 'noarch is not a target platform' : 'unknown platform'}. Valid platforms include: ${KNOWN_SUBDIRS.filter((s) => s !== 'noarch').join(', ')}`,
      );
    }
  }

  const requestChannels = [...(request.channels ?? []), ...files.flatMap((f) => f.channels)];
  // A request that names no channel stays on the previous lock's; otherwise the configured
  // channels (.condarc) follow the request's, as conda puts -c before them.
  const channelTexts = (
    requestChannels.length === 0 && previousLock
      ? [...previousLock.environment.channels]
      : [...requestChannels, ...(options.configuredChannels ?? [])]
  ).map((c) => c.trim());
  const expanded = (channelTexts.length ? channelTexts : [...options.defaultChannels]).flatMap((c) =>
    expandChannel(c, options.channelSettings),
  );
  const alias = options.channelSettings?.alias ?? options.env.CONDA_CHANNEL_ALIAS;
  const channels: Channel[] = [];
  const seenChannels = new Set<string>();
  for (const text of expanded) {
    let channel: Channel;
    try {
      channel = parseChannel(text, { alias, cwd: options.cwd });
    } catch (error) {
      if (error instanceof CondaResolveError) throw new UsageError('CR_ERR_INPUT_CHANNEL', error.message, { cause: error });
      throw error;
    }
    if (!seenChannels.has(channel.baseUrl)) {
      seenChannels.add(channel.baseUrl);
      channels.push(channel);
    }
  }

  const priority = request.channelPriority ?? manifest?.channelPriority ?? 'strict';
  if (!(CHANNEL_PRIORITIES as readonly string[]).includes(priority)) {
    throw new UsageError(
      'CR_ERR_INPUT_OPTION',
      `Cannot use channel priority "${priority}": expected one of ${CHANNEL_PRIORITIES.join(', ')}`,
    );
  }

  const extraVirtual = [...(request.virtualPackages ?? [])];
  const platformVirtual = new Map<string, readonly string[]>(manifest?.virtualPackages ?? []);
  for (const platform of named) if (!platformVirtual.has(platform.key)) platformVirtual.set(platform.key, platform.virtualPackages);
  // Validate the virtual packages once per platform, so a bad entry is a usage error.
  try {
    for (const platform of platforms)
      virtualPackages(subdirOn({ platformSubdirs }, platform), options.env, [...(platformVirtual.get(platform) ?? []), ...extraVirtual]);
  } catch (error) {
    if (error instanceof CondaResolveError) throw new UsageError('CR_ERR_INPUT_OPTION', error.message, { cause: error });
    throw error;
  }

  const excludeNewer = request.excludeNewer ?? manifest?.excludeNewer;
  return {
    specs,
    channels,
    platforms,
    channelPriority: priority as ChannelPriority,
    virtualPackages: extraVirtual,
    excludeNewer: excludeNewer === undefined ? undefined : parseExcludeNewer(excludeNewer),
    warnings,
    ...(locked && lockedRecords ? { locked: lockedRecords, kept: locked.keptOf(platforms) } : {}),
    ...(!locked && !pypi && previousLock ? keptFromPreviousLock(previousLock, platforms, warnings) : {}),
    ...(previousLock ? { previousLock } : {}),
    ...(platformSpecs.size > 0 ? { platformSpecs } : {}),
    ...(platformVirtual.size > 0 ? { platformVirtualPackages: platformVirtual } : {}),
    ...(platformSubdirs.size > 0 ? { platformSubdirs } : {}),
    ...(manifest ? { manifestEnvironment: manifest.environment } : {}),
    ...(pypi ? { pypi } : { pypiSources }),
    ...(resolution !== 'highest' ? { resolution } : {}),
  };
}

/**
 * A re-solve with `--lock` of a request with no PyPI requirement keeps the lock's PyPI
 * distributions as they are (nothing asks to solve them), on the platforms asked for, and says so
 * in a warning. A request with PyPI requirements solves them, staying close to the lock's pins
 * (`PreviousLock.pypiPreferredOn`), as for conda records.
 */
function keptFromPreviousLock(lock: PreviousLock, platforms: readonly string[], warnings: string[]): { kept?: KeptFromLock } {
  const pypi = new Map(platforms.map((p) => [p, lock.environment.pypi.get(p) ?? []] as const));
  const count = new Set([...pypi.values()].flat().map((r) => r.url)).size;
  if (count === 0) return {};
  warnings.push(
    `${lock.filename}: environment "${lock.environment.name}": ${count} PyPI package${count === 1 ? '' : 's'} kept as locked (the request has no PyPI requirement to solve them with; give them with --pypi or a pip: section)`,
  );
  return { kept: { filename: lock.filename, environment: lock.environment.name, pypi, pypiIndexes: lock.environment.pypiIndexes } };
}

/** ISO 8601 date (`2024-05-01`, midnight UTC) or date-time; the end of that instant is the cut-off. */
export function parseExcludeNewer(text: string): number {
  const trimmed = text.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
  const isoish = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(trimmed);
  const ms = dateOnly ? Date.parse(`${trimmed}T00:00:00Z`) : isoish ? Date.parse(trimmed.replace(' ', 'T')) : NaN;
  if (!Number.isFinite(ms)) {
    throw new UsageError(
      'CR_ERR_INPUT_DATE',
      `Cannot parse exclude-newer date "${text}": expected an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z`,
    );
  }
  return ms;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
