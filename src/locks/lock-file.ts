/**
 * Lock files as inputs, recognised by name (`pixi.lock`, `*.lock`, `conda-lock.yml`,
 * `*.conda-lock.yml`) or by content (a YAML document with pixi's or conda-lock's top-level keys),
 * and the one environment of a lock a request uses (`-e NAME`, default `default`).
 */
import { InputFileError } from '../errors.js';
import type { LockDocument, LockedEnvironment, LockFormat } from './types.js';
import { parseCondaLock } from './conda-lock/read.js';
import { parsePixiLock } from './pixi-lock/read.js';

export function lockFormatOf(filename: string, content: string): LockFormat | undefined {
  const base = (filename.split(/[\\/]/).pop() ?? filename).toLowerCase();
  if (/(^|\.)conda-lock\.ya?ml$/.test(base)) return 'conda-lock-v1';
  if (base.endsWith('.lock')) return 'rattler-lock-v6';
  const head = content.slice(0, 64 * 1024);
  if (/^version:\s*[4-6]\s*$/m.test(head) && /^environments:/m.test(head)) return 'rattler-lock-v6';
  if (/^version:\s*1\s*$/m.test(head) && /^metadata:/m.test(head) && /^package:/m.test(head)) return 'conda-lock-v1';
  return undefined;
}

export function readLockFile(filename: string, content: string, format?: LockFormat): LockDocument {
  const kind = format ?? lockFormatOf(filename, content);
  if (kind === 'conda-lock-v1') return parseCondaLock(filename, content);
  if (kind === 'rattler-lock-v6') return parsePixiLock(filename, content);
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
