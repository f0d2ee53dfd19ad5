/**
 * What the lock formats share between their readers and their writers, beyond conda records: the
 * packages a lock keeps by reference and the details of an environment a writer needs to give a
 * lock back as it was read. Plain data; the writers see it on `ExportEnvironment.lock`.
 */
import type { YamlValue } from '../exporters/yaml/index.js';

/** A package kind of pixi.lock v7, in the order rattler sorts them (binary conda, conda source, pypi). */
export type LockPackageKind = 'conda' | 'conda_source' | 'pypi';
export const LOCK_PACKAGE_KINDS: readonly LockPackageKind[] = ['conda', 'conda_source', 'pypi'];

/**
 * A package the lock keeps by reference: a conda source package (`conda_source: name[hash] @
 * path`) or a path-based conda package (`conda: .`), which no URL can install and no solve
 * produces. It is carried through a transcode into pixi.lock and named in a warning elsewhere.
 */
export interface LockedReference {
  readonly kind: LockPackageKind;
  /** The selector as the lock writes it: the location, or `name[hash] @ location`. */
  readonly id: string;
  readonly name: string;
  readonly version: string | null;
}

/** One platform of pixi.lock v7's top-level `platforms`. */
export interface LockPlatform {
  /** The lock's name for it (`linux-64`, or a named platform such as `p1`). */
  readonly name: string;
  /** The conda subdir it targets (the name when the lock leaves `subdir` out). */
  readonly subdir: string;
  readonly virtualPackages: readonly string[];
}

/**
 * An environment's details as read from a lock, for a writer of the same format family: absent
 * for a solved environment (the writer then builds everything from the records).
 */
export interface LockEnvironmentDetails {
  /** The pixi.lock version it was read from (4 to 7); absent for conda-lock.yml. */
  readonly version?: number;
  /** The environment's `channels` entries as written (pixi's `used_env_vars` included). */
  readonly channels?: readonly YamlValue[];
  /** pixi's `find-links` entries as written. */
  readonly findLinks?: readonly YamlValue[];
  /** pixi's `options` mapping (strategy, channel-priority, pypi-prerelease-mode), as written. */
  readonly options?: YamlValue;
  /** The lock's own name of each platform key (only where it differs: named platforms). */
  readonly platformNames?: ReadonlyMap<string, string>;
  /** Every platform of the lock (v7's top-level list), in the file's order. */
  readonly lockPlatforms?: readonly LockPlatform[];
  /** Per platform key: the packages kept by reference. */
  readonly references?: ReadonlyMap<string, readonly LockedReference[]>;
  /** Each package entry of the file as written (key order kept), by `kind:id` (see `entryKey`). */
  readonly entries?: ReadonlyMap<string, YamlValue>;
  /** Environments of the lock that lock no platform at all, with their entry as written. */
  readonly emptyEnvironments?: ReadonlyMap<string, YamlValue>;
  /**
   * conda-lock.yml: the `metadata` fields it had beyond channels and platforms (content_hash,
   * sources, time, git, inputs and custom metadata) and each entry's CEP 37 fields beyond a record
   * (source, build, category, optional) by `condaLockEntryKey`.
   */
  readonly condaLock?: { readonly metadata: Readonly<Record<string, YamlValue>>; readonly entries: ReadonlyMap<string, YamlValue> };
}

/** The key of a package entry in `LockEnvironmentDetails.entries`. */
export function entryKey(kind: LockPackageKind, id: string): string {
  return `${kind}:${id}`;
}

/**
 * The conda subdir of a platform key: a pixi.lock v7 named platform's `subdir` (`p1` -> `win-64`),
 * else the key itself, which is then a subdir. Where conda needs a subdir (solving, virtual
 * packages, `# platform:` lines, conda-lock's `platform`), a lock's platform names go through this.
 */
export function lockPlatformSubdir(details: LockEnvironmentDetails | undefined, platform: string): string {
  return details?.lockPlatforms?.find((p) => p.name === platform)?.subdir ?? platform;
}
