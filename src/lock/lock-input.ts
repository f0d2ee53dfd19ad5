/**
 * A lock file given as the request's input (`-f pixi.lock`): it stands alone (no specs, no other
 * files, no `-c`: its records and channels are the environment), and every platform asked for
 * must be one it locks.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { InputFileError, UsageError } from '../errors.js';
import type { ParsedInputFile } from '../inputs/types.js';
import type { KeptFromLock } from '../request.js';
import type { LockEnvironmentDetails } from '../locks/facts.js';

export interface LockInput {
  /** The locked environment's details (pixi.lock v7's platforms with their subdirs among them). */
  readonly details: LockEnvironmentDetails;
  /** The records of the platforms asked for. */
  platformsOf(platforms: readonly string[]): ReadonlyMap<string, readonly PackageRecord[]>;
  /** What the lock keeps beside the records on those platforms (PyPI packages, references, details). */
  keptOf(platforms: readonly string[]): KeptFromLock;
}

export function checkLockInput(
  files: readonly ParsedInputFile[],
  request: { readonly specs?: readonly string[]; readonly channels?: readonly string[] },
): LockInput | undefined {
  const lock = files.find((file) => file.kind === 'lock');
  if (!lock?.locked) return undefined;
  const extra = [
    ...(files.length > 1
      ? [
          `other files (${files
            .filter((f) => f !== lock)
            .map((f) => `"${f.filename}"`)
            .join(', ')})`,
        ]
      : []),
    ...((request.specs ?? []).length > 0 ? ['package specs'] : []),
    ...((request.channels ?? []).length > 0 ? ['channels (-c)'] : []),
  ];
  if (extra.length > 0) {
    throw new UsageError(
      'CR_ERR_INPUT_LOCK_USAGE',
      `Cannot combine the lock file "${lock.filename}" with ${extra.join(' or ')}: a lock is the environment as it is; to re-solve close to a lock, give the request and --lock ${lock.filename}`,
    );
  }
  const locked = lock.locked;
  return {
    details: locked.details,
    platformsOf(platforms) {
      const result = new Map<string, readonly PackageRecord[]>();
      for (const platform of platforms) {
        const records = locked.platforms.get(platform);
        if (!records) {
          throw new InputFileError(
            'CR_ERR_INPUT_LOCK_USAGE',
            lock.filename,
            `Cannot render platform "${platform}" of "${lock.filename}": environment "${locked.name}" locks only ${[...locked.platforms.keys()].join(', ') || 'no platform'}`,
          );
        }
        result.set(platform, records);
      }
      return result;
    },
    keptOf(platforms) {
      return {
        filename: lock.filename,
        environment: locked.name,
        pypi: new Map(platforms.map((p) => [p, locked.pypi.get(p) ?? []] as const)),
        pypiIndexes: locked.pypiIndexes,
        details: locked.details,
      };
    },
  };
}
