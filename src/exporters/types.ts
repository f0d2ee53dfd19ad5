/**
 * The exporter plugin API: what an exporter receives, what it must provide, and how it fails.
 *
 * This is the contract between conda-resolve and exporter plugins (npm packages that declare
 * `"conda-resolve": {"exporters": "<module>", "api": "^1.0.0"}`), modelled on conda's
 * `CondaEnvironmentExporter`. Changing a required member or the meaning of one is a breaking change:
 * bump the major of `EXPORTER_API_VERSION`. Adding an optional member is a minor bump.
 */
import { CondaResolveError } from '../../vocabulary/errors.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import type { LockEnvironmentDetails } from '../locks/facts.js';

/** The version of this API; plugins state the range they support and are checked against it. */
export const EXPORTER_API_VERSION = '1.1.0';

/**
 * One solved platform, as exporters see it (conda's `Environment`).
 *
 * A resolve hands over records sorted by name, no name, no prefix and no requested specs. The
 * optional members let library users describe a full conda environment (what `conda export` writes
 * for an installed prefix).
 */
export interface ExportEnvironment {
  /** The platform (subdir) this environment was solved for, e.g. `linux-64`. */
  readonly platform: string;
  /** The solved packages, in the order the exporter should list them (a resolve sorts them by name). */
  readonly records: readonly PackageRecord[];
  /**
   * The request's channels in priority order, as users name them (`conda-forge` for a channel on the
   * default alias, otherwise its URL without credentials). The lock formats list them; the
   * environment formats do not (channel identity lives in the package URLs).
   */
  readonly channels: readonly string[];
  /** The specs the user asked for (conda's requested packages), as MatchSpec strings. */
  readonly requestedSpecs?: readonly string[];
  /** The environment's name; absent or null for a solved environment. */
  readonly name?: string | null;
  /** The environment's prefix; absent for a solved environment. */
  readonly prefix?: string | null;
  /** Environment variables (`conda env config vars`), written by the environment formats. */
  readonly variables?: Readonly<Record<string, string>>;
  /**
   * The `channels:` list of `environment.yml` / `environment.json`. A resolve leaves it out; set it
   * to write a full conda environment file.
   */
  readonly environmentChannels?: readonly string[];
  /**
   * PyPI distributions beside the records (a lock's, kept as locked), sorted by name. The lock
   * formats write them (`pypi:` entries, `manager: pip`); the others leave them out. API 1.1.
   */
  readonly pypi?: readonly PypiRecord[];
  /** The PyPI indexes of the environment (pixi.lock's `indexes`). API 1.1. */
  readonly pypiIndexes?: readonly string[];
  /**
   * What a lock read back holds beyond records (named platforms, options, packages kept by
   * reference, each entry as written), so a lock format gives the lock back as it was. API 1.1.
   */
  readonly lock?: LockEnvironmentDetails;
}

/** What an exporter may know about the run that produced the environments. */
export interface ExportContext {
  /** Written where a format names the tool (`# created-by:`, `created_by`): `conda-resolve`. */
  readonly toolName: string;
  readonly toolVersion: string;
  /** The time written where a format records one (conda-lock's `created_at`). */
  readonly now: Date;
}

export type ExporterCategory = 'lockfile' | 'environment';

/** Renders one platform's environment. */
export type SinglePlatformExport = (environment: ExportEnvironment, context: ExportContext) => string;
/** Renders one document for all platforms. */
export type MultiPlatformExport = (environments: readonly ExportEnvironment[], context: ExportContext) => string;

/**
 * A registered exporter. Exactly one of `export` and `exportMultiplatform` is set. Names and aliases
 * are lower case without surrounding spaces (the registry normalises them, as conda does).
 */
export interface Exporter {
  readonly name: string;
  readonly aliases: readonly string[];
  /** One line for `conda-resolve formats` and `GET /formats`. */
  readonly description: string;
  readonly category: ExporterCategory;
  /** The HTTP media type of the output, e.g. `application/yaml`. */
  readonly mediaType: string;
  /** Filenames (fnmatch patterns allowed) that select this exporter for `-o FILE` without `--format`. */
  readonly defaultFilenames: readonly string[];
  readonly export?: SinglePlatformExport;
  readonly exportMultiplatform?: MultiPlatformExport;
}

/** An exporter failed to render (conda's `CondaValueError` from an exporter); `code` says why. */
export class ExportError extends CondaResolveError {
  /** The exporter that failed. */
  readonly format: string;

  constructor(code: Extract<ExporterErrorCode, `CR_ERR_EXPORT_${string}`>, format: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.format = format;
  }
}

/**
 * Every error code the exporters and their registry use, with what it means (for the service's
 * error registry and its documentation). Usage errors (exit 2, HTTP 400) are the `CR_ERR_FORMAT_*`
 * codes; the `CR_ERR_EXPORT_*` codes are failures to render (exit 1, HTTP 500).
 */
export const EXPORTER_ERROR_CODES = {
  CR_ERR_FORMAT_UNKNOWN: 'The format name or alias is not in the exporter registry (the message lists the names, sorted).',
  CR_ERR_FORMAT_NOT_DETECTED: "No exporter's default filenames match the output file name.",
  CR_ERR_FORMAT_AMBIGUOUS: "More than one exporter's default filenames match the output file name.",
  CR_ERR_FORMAT_CONFLICT: 'Two exporters (built-in or plugin) claim the same name or alias; start-up fails.',
  CR_ERR_EXPORT_INVALID_PLUGIN: 'A plugin handed over something that is not a valid exporter.',
  CR_ERR_EXPORT_NO_ENVIRONMENTS: 'An exporter was asked to render no platforms.',
  CR_ERR_EXPORT_NO_URL: 'A package has no URL, which explicit files and lock files need.',
  CR_ERR_EXPORT_SHARED_SUBDIR:
    'Two named platforms of a lock (pixi.lock v7) target one subdir, and the format (conda-lock.yml, pixi.lock v6) names platforms by subdir only.',
  CR_ERR_EXPORT_EXPLICIT_NO_PACKAGES: 'explicit: the environment has no packages.',
  CR_ERR_EXPORT_EXPLICIT_MISSING_PACKAGES: 'explicit: requested packages are missing from the environment.',
  CR_ERR_EXPORT_EXPLICIT_EXTERNAL_PACKAGES:
    'explicit: the environment has PyPI packages, which an explicit file cannot name (as conda refuses external packages).',
  CR_ERR_EXPORT_PYLOCK: 'pylock: the environment has no PyPI packages, no conda python to give markers for, or a wheel without a hash.',
  CR_ERR_EXPORT_REQUIREMENTS_NO_SPECS: 'requirements: the environment carries no requested specs (a solved environment never does).',
  CR_ERR_EXPORT_CONTROL_CHARACTER:
    'A record to export has a control character (a newline, an escape) in its name, version, build, file name, URL, channel, subdir or checksum: the channel is broken or hostile.',
  CR_ERR_EXPORT_YAML: 'An exporter built data the YAML emitter cannot write (a programming error).',
  CR_ERR_EXPORT_FAILED: 'A plugin exporter threw or returned something other than text.',
} as const;

export type ExporterErrorCode = keyof typeof EXPORTER_ERROR_CODES;
