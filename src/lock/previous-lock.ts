/**
 * `--lock FILE` (with `--update NAME`...): a previous lock the resolve stays close to, as pixi and
 * conda-lock do. Each platform's solve prefers the lock's records (the solver's `locked`), minus
 * those of the names to update, which are solved afresh at their most preferred versions. When
 * the answer is the lock's own (same channels, platforms and records), the lock's text is given
 * back as it is, so a re-lock with nothing changed is byte-identical.
 */
import { parseChannel } from '../../vocabulary/channel.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { UsageError } from '../errors.js';
import { lockEnvironment, readLockFile } from '../locks/lock-file.js';
import type { LockDocument, LockedEnvironment, LockFormat } from '../locks/types.js';

export interface PreviousLock {
  readonly filename: string;
  readonly text: string;
  readonly format: LockFormat;
  readonly environment: LockedEnvironment;
  /** How many environments the whole lock has. */
  readonly environments: number;
  /** Package names solved afresh (`--update`). */
  readonly update: readonly string[];
  /** URLs of the records a platform's solve should keep: the lock's, less the updated names'. */
  preferredOn(platform: string): readonly string[];
  /** The PyPI versions a platform's solve should keep (normalised name -> version), less the updated names'. */
  pypiPreferredOn(platform: string): ReadonlyMap<string, string>;
}

export function readPreviousLock(
  file: { readonly filename: string; readonly content: string },
  options: { readonly environment?: string; readonly update?: readonly string[] },
): PreviousLock {
  const document = readLockFile(file.filename, file.content);
  const environment = lockEnvironment(document, options.environment);
  const update = [...new Set((options.update ?? []).map((name) => name.trim()))];
  const unknown = update.filter((name) => !locksName(environment, name));
  if (unknown.length > 0) {
    throw new UsageError(
      'CR_ERR_INPUT_LOCK_UPDATE',
      `Cannot update ${unknown.map((n) => `"${n}"`).join(', ')}: environment "${environment.name}" of "${file.filename}" locks no package of that name`,
    );
  }
  return previousLockOf(document, file.content, environment, update);
}

/** One environment of a lock document as the lock a solve stays close to. */
export function previousLockOf(
  document: LockDocument,
  text: string,
  environment: LockedEnvironment,
  update: readonly string[],
): PreviousLock {
  const skip = new Set(update);
  // `--update Flask` names the PyPI distribution `flask` too (PEP 503).
  const skipPypi = new Set(update.map(normalizePypiName));
  return {
    filename: document.filename,
    text,
    format: document.format,
    environment,
    environments: document.environments.size,
    update: [...update],
    preferredOn: (platform) => (environment.platforms.get(platform) ?? []).filter((r) => !skip.has(r.name)).map((r) => r.url),
    pypiPreferredOn: (platform) =>
      new Map(
        (environment.pypi.get(platform) ?? []).flatMap((r) =>
          r.version === null || skipPypi.has(normalizePypiName(r.name)) ? [] : [[normalizePypiName(r.name), r.version] as const],
        ),
      ),
  };
}

/** Whether any platform of the environment locks a package of this name: a conda name, or a PyPI name compared by PEP 503. */
export function locksName(environment: LockedEnvironment, name: string): boolean {
  const pypiName = normalizePypiName(name);
  return (
    [...environment.platforms.values()].some((records) => records.some((r) => r.name === name)) ||
    [...environment.pypi.values()].some((records) => records.some((r) => normalizePypiName(r.name) === pypiName))
  );
}

/**
 * The lock's own text when the resolve gave exactly its records on exactly its platforms with
 * the same channels and the output is in the lock's format; otherwise undefined (write anew).
 */
export function unchangedLockText(
  lock: PreviousLock,
  answer: { readonly format: string; readonly channels: readonly string[]; readonly platforms: readonly SolvedPlatform[] },
): string | undefined {
  // The text holds every environment of the lock, so it stands for one environment only when alone.
  if (answer.format !== lock.format || lock.environments !== 1) return undefined;
  return sameAnswer(lock, answer) ? lock.text : undefined;
}

/** Whether the answer has exactly the lock environment's channels, platforms and records. */
export function sameAnswer(
  lock: PreviousLock,
  answer: { readonly channels: readonly string[]; readonly platforms: readonly SolvedPlatform[] },
): boolean {
  if (!sameChannels(answer.channels, lock.environment.channels)) return false;
  if (answer.platforms.length !== lock.environment.platforms.size) return false;
  for (const { platform, records, pypi } of answer.platforms) {
    const locked = lock.environment.platforms.get(platform);
    if (!locked || !records || locked.length !== records.length) return false;
    const urls = new Set(locked.map((r) => r.url));
    if (!records.every((r) => urls.has(r.url))) return false;
    // A mixed solve's PyPI distributions count too (without one, the lock's are kept as they are).
    if (pypi !== undefined) {
      const lockedPypi = new Set((lock.environment.pypi.get(platform) ?? []).map((r) => r.url));
      if (lockedPypi.size !== pypi.length || !pypi.every((r) => lockedPypi.has(r.url))) return false;
    }
  }
  return true;
}

/** One platform of an answer: its conda records and, for a mixed solve, its PyPI distributions. */
interface SolvedPlatform {
  readonly platform: string;
  readonly records: readonly PackageRecord[] | null;
  readonly pypi?: readonly { readonly url: string }[];
}

/** Channels compared by base URL, in order (pixi writes `https://conda.anaconda.org/conda-forge/`, we `conda-forge`). */
export function sameChannels(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c, i) => channelKey(c) === channelKey(b[i]!));
}

function channelKey(text: string): string {
  try {
    return parseChannel(text).baseUrl;
  } catch {
    return text.replace(/\/+$/, '');
  }
}
