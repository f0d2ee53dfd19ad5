/**
 * Lock files as inputs, recognised by name (`pixi.lock`, `*.lock`, `conda-lock.yml`,
 * `*.conda-lock.yml`) or by content (a YAML document with pixi's or conda-lock's top-level keys;
 * pixi.lock v7 told from older versions by its version line), and the one environment of a lock a
 * request uses (`-e NAME`, default `default`).
 */
import { InputFileError } from '../errors.js';
import type { ExportEnvironment } from '../exporters/types.js';
import type { LockDocument, LockedEnvironment, LockFormat } from './types.js';
import { parseCondaLock } from './conda-lock/read.js';
import { parsePixiLock } from './pixi-lock/read.js';

export function lockFormatOf(filename: string, content: string): LockFormat | undefined {
  const base = (filename.split(/[\\/]/).pop() ?? filename).toLowerCase();
  const head = content.slice(0, 64 * 1024);
  if (/(^|\.)conda-lock\.ya?ml$/.test(base)) return 'conda-lock-v1';
  if (base.endsWith('.lock')) return pixiFormatOf(head);
  if (/^version:\s*[1-9]\d*\s*$/m.test(head) && /^environments:/m.test(head)) return pixiFormatOf(head);
  if (/^metadata:/m.test(head) && /^package:/m.test(head)) {
    // pixi.lock v2 and v3 share conda-lock's layout; conda-lock.yml's `version` is 1 or absent (CEP 37).
    const version = /^version:\s*(\d+)\s*$/m.exec(head);
    return version && (version[1] === '2' || version[1] === '3') ? 'rattler-lock-v6' : 'conda-lock-v1';
  }
  return undefined;
}

/** A pixi.lock's format by its version line: v7 or newer is read as v7 (an unknown future version is refused there). */
function pixiFormatOf(head: string): LockFormat {
  const version = /^version:\s*(\d+)\s*$/m.exec(head);
  return version && Number(version[1]) >= 7 ? 'rattler-lock-v7' : 'rattler-lock-v6';
}

export function readLockFile(filename: string, content: string, format?: LockFormat): LockDocument {
  const kind = format ?? lockFormatOf(filename, content);
  if (kind === 'conda-lock-v1') return parseCondaLock(filename, content);
  if (kind === 'rattler-lock-v6' || kind === 'rattler-lock-v7') return parsePixiLock(filename, content);
  throw new InputFileError(
    'CR_ERR_INPUT_LOCK',
    filename,
    `Cannot read lock file "${filename}": it is neither a pixi.lock nor a conda-lock.yml (by name or content)`,
  );
}

/** The environment `name` of a lock (default `default`), or an error naming those it has. */
export function lockEnvironment(lock: LockDocument, name: string | undefined): LockedEnvironment {
  const wanted = name ?? 'default';
  const environment = lock.environments.get(wanted);
  if (environment) return environment;
  const have = [...lock.environments.keys()];
  throw new InputFileError(
    'CR_ERR_INPUT_LOCK_ENVIRONMENT',
    lock.filename,
    `Cannot use environment "${wanted}" of "${lock.filename}": it locks ${have.length > 0 ? `only ${have.map((h) => `"${h}"`).join(', ')}` : 'no environment'}${name === undefined ? ' (choose one with -e NAME)' : ''}`,
  );
}

/**
 * Every environment and platform of a lock as the environments an exporter receives (a whole lock
 * written in another format, or in its own again), each named by its environment.
 */
export function lockExportEnvironments(
  lock: LockDocument,
  options: { readonly environment?: string; readonly platforms?: readonly string[] } = {},
): ExportEnvironment[] {
  const environments = options.environment === undefined ? [...lock.environments.values()] : [lockEnvironment(lock, options.environment)];
  return environments.flatMap((environment) =>
    [...environment.platforms.keys()]
      .filter((platform) => options.platforms === undefined || options.platforms.length === 0 || options.platforms.includes(platform))
      .map((platform) => {
        const pypi = environment.pypi.get(platform) ?? [];
        return {
          name: environment.name,
          platform,
          records: environment.platforms.get(platform)!,
          channels: environment.channels,
          ...(pypi.length > 0 ? { pypi } : {}),
          ...(environment.pypiIndexes.length > 0 ? { pypiIndexes: environment.pypiIndexes } : {}),
          lock: environment.details,
        };
      }),
  );
}
