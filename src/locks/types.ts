/**
 * A lock file read back: what `pixi.lock` (rattler-lock v3 to v7) and `conda-lock.yml` (v1)
 * record, as exact package records per environment and platform, with the PyPI distributions and
 * the packages kept by reference beside them. The lock lifecycle (reading a lock as the
 * environment, staying close to it, checking it, diffing two) works on this shape only.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import type { LockedReference, LockEnvironmentDetails } from './facts.js';

/** pixi.lock v4 to v6 read as `rattler-lock-v6`, v7 as `rattler-lock-v7` (the exporter writing each). */
export type LockFormat = 'rattler-lock-v6' | 'rattler-lock-v7' | 'conda-lock-v1';

export interface LockedEnvironment {
  /** `default` for conda-lock.yml, which has one environment. */
  readonly name: string;
  /** The channels as the lock writes them (`conda-forge`, or a URL), in priority order. */
  readonly channels: readonly string[];
  /** Platform -> its records, sorted by name; platforms in the lock's order. */
  readonly platforms: ReadonlyMap<string, readonly PackageRecord[]>;
  /** Platform -> its PyPI distributions, sorted by name (every platform of `platforms` has a list). */
  readonly pypi: ReadonlyMap<string, readonly PypiRecord[]>;
  /** The PyPI indexes the environment names (pixi's `indexes`), in order. */
  readonly pypiIndexes: readonly string[];
  /** What a writer of the same format needs to give the environment back as it was. */
  readonly details: LockEnvironmentDetails;
  /** Things about this environment a resolve does not do (packages kept by reference), said when it is used. */
  readonly warnings: readonly string[];
}

export interface LockDocument {
  readonly format: LockFormat;
  /** The file name as the user gave it. */
  readonly filename: string;
  /** The file format's version (pixi.lock 4 to 7, conda-lock.yml 1). */
  readonly version: number;
  /** In the file's order. */
  readonly environments: ReadonlyMap<string, LockedEnvironment>;
}

export type { LockedReference, LockEnvironmentDetails };
