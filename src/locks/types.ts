/**
 * A lock file read back: what `pixi.lock` (rattler-lock v6) and `conda-lock.yml` (v1) record,
 * as exact package records per environment and platform. The lock lifecycle (reading a lock as
 * the environment, staying close to it, checking it, diffing two) works on this shape only.
 */
import type { PackageRecord } from '../../vocabulary/record.js';

export type LockFormat = 'rattler-lock-v6' | 'conda-lock-v1';

export interface LockedEnvironment {
  /** `default` for conda-lock.yml, which has one environment. */
  readonly name: string;
  /** The channels as the lock writes them (`conda-forge`, or a URL), in priority order. */
  readonly channels: readonly string[];
  /** Platform -> its records, sorted by name; platforms in the lock's order. */
  readonly platforms: ReadonlyMap<string, readonly PackageRecord[]>;
}

export interface LockDocument {
  readonly format: LockFormat;
  /** The file name as the user gave it. */
  readonly filename: string;
  /** In the file's order. */
  readonly environments: ReadonlyMap<string, LockedEnvironment>;
  /** Entries a resolve does not handle (pypi packages), said once per file. */
  readonly warnings: readonly string[];
}
