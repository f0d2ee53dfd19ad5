/**
 * What the mixed solve reads of PyPI: projects and core metadata the pipeline fetched before the
 * solve (the solver does no I/O). A name or release the search reaches whose data is missing stops
 * the solve with `PypiDataNeeded`; the pipeline fetches it and solves again.
 */
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import type { PypiSpecifierSet } from '../../vocabulary/pypi/specifier.js';
import type { PypiVersion } from '../../vocabulary/pypi/version.js';
import type { WheelFileName } from '../../vocabulary/pypi/distribution-file-name.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { VirtualPackage } from '../../vocabulary/virtual-packages.js';
import type { ResolutionStrategy } from '../../vocabulary/pypi-record.js';

/** One file of a release as the index lists it (the index client's `PypiFile` satisfies it). */
export interface PypiWheelFile {
  readonly filename: string;
  readonly url: string;
  readonly index: string;
  readonly hashes: Readonly<Record<string, string>>;
  readonly size: number | null;
  readonly uploadTime: string | null;
  readonly yanked: boolean | string;
  readonly requiresPython: string | null;
}

export interface PypiWheel {
  readonly file: PypiWheelFile;
  readonly name: WheelFileName;
}

/** A release's core metadata, parsed. */
export interface PypiReleaseMetadata {
  /** `Name:` as written. */
  readonly name: string;
  readonly version: string;
  readonly requiresDist: readonly PypiRequirement[];
  readonly requiresPython: PypiSpecifierSet | null;
  readonly requiresPythonText: string | null;
}

export interface PypiRelease {
  readonly version: PypiVersion;
  /** The version as the file names give it. */
  readonly text: string;
  /** Its wheels (yanked ones only when every wheel of the release is yanked). */
  readonly wheels: readonly PypiWheel[];
  /** PEP 592: every wheel of the release is yanked; only an `==`/`===` pin selects it. */
  readonly yanked: boolean;
}

export interface PypiProjectData {
  /** PEP 503 normalised. */
  readonly name: string;
  /** Releases with at least one wheel. */
  readonly releases: readonly PypiRelease[];
}

export interface PypiData {
  /** The project, null when no index has it, undefined when not fetched. */
  project(name: string): PypiProjectData | null | undefined;
  /** The metadata of a release, undefined when not fetched. */
  metadata(name: string, version: string): PypiReleaseMetadata | undefined;
}

/** The solve reached PyPI data the pipeline has not fetched yet. */
export class PypiDataNeeded extends Error {
  readonly projects: readonly string[];
  readonly releases: readonly { readonly name: string; readonly version: string }[];
  constructor(projects: readonly string[], releases: readonly { name: string; version: string }[]) {
    super(`PyPI data needed: ${[...projects, ...releases.map((r) => `${r.name}==${r.version}`)].join(', ')}`);
    this.projects = projects;
    this.releases = releases;
  }
}

/** The PyPI half of a mixed solve request. */
export interface PypiSolveInput {
  readonly platform: string;
  readonly virtualPackages: readonly VirtualPackage[];
  readonly requirements: readonly PypiRequirement[];
  readonly data: PypiData;
  /** `true`: pre-releases allowed (`--pre`); `false`: never; undefined: PEP 440's rule. */
  readonly prereleases: boolean | undefined;
  readonly resolution: ResolutionStrategy;
  /** The PyPI names (normalised) a conda record provides, from the conda-to-PyPI mapping. */
  readonly providedBy: (record: PackageRecord) => readonly string[];
  /** The conda names that may provide a PyPI name (the mapping read backwards). */
  readonly providers: (pypiName: string) => readonly string[];
  /**
   * Versions a previous lock pins, by normalised name (`--lock`): that release sorts before every
   * other of its name, as locked conda records do, so it stays unless the problem excludes it.
   */
  readonly locked?: ReadonlyMap<string, string>;
}
