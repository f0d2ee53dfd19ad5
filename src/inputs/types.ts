import type { LockedEnvironment } from '../locks/types.js';
import type { CondaPypiMapOverrides, PypiIndexOptions, PypiInputRequirement } from '../pypi/request.js';

/** What one input file contributes to a resolve request. */
export interface InputSpec {
  /** The MatchSpec text as written. */
  readonly spec: string;
  /** 1-based line of the file it came from, when known: used to point at a bad spec. */
  readonly line?: number;
}

export interface ParsedInputFile {
  /** The file name as the user gave it (basename over HTTP). */
  readonly filename: string;
  readonly kind: 'environment' | 'spec-list' | 'explicit' | 'lock' | 'manifest';
  readonly specs: readonly InputSpec[];
  /** Channels named by the file, in its order (environment.yml `channels`, explicit URLs' channels). */
  readonly channels: readonly string[];
  /** Platforms named by the file (environment.yml `platforms`, as conda-lock reads it). */
  readonly platforms: readonly string[];
  /** Things the file asked for that a resolve does not do (pip entries, variables...). */
  readonly warnings: readonly string[];
  /** A lock file's chosen environment: its records are the answer, with no solve. */
  readonly locked?: LockedEnvironment;
  /** A pixi manifest's chosen environment: what its specs cannot say alone. */
  readonly manifest?: ManifestDetails;
  /** PyPI requirements (environment.yml `pip:`, `[pypi-dependencies]`), with their file and line. */
  readonly pypi?: readonly PypiInputRequirement[];
  /** Index options the file gives (`pip:` `--index-url`/`--extra-index-url`/`--pre`, `[pypi-options]`). */
  readonly pypiOptions?: PypiIndexOptions;
  /** pixi's `conda-pypi-map`, read: per channel, conda name -> PyPI name. */
  readonly condaPypiMap?: CondaPypiMapOverrides;
}

/** What a pixi manifest's environment adds to its specs, channels and platforms. */
export interface ManifestDetails {
  readonly environment: string;
  /** Every environment the manifest defines, `default` first. */
  readonly environments: readonly string[];
  /** The whole spec list of each platform where `[target.*]` tables change it. */
  readonly platformSpecs: ReadonlyMap<string, readonly InputSpec[]>;
  /** `NAME=VERSION` virtual packages per platform (`system-requirements`). */
  readonly virtualPackages: ReadonlyMap<string, readonly string[]>;
  readonly channelPriority?: string;
  readonly excludeNewer?: string;
  /** The whole PyPI requirement list of each platform where `[target.*]` tables change it. */
  readonly platformPypi?: ReadonlyMap<string, readonly PypiInputRequirement[]>;
}

export interface ParseInputOptions {
  /** The environment of a lock or pixi manifest (`-e NAME`); `default` when absent. */
  readonly environment?: string;
  /**
   * Reads a file an input names (a pip `-r FILE`), its path already relative to that input's
   * directory. Absent (the server): such a line is refused; no file system is read.
   */
  readonly readIncluded?: (path: string) => string;
}
