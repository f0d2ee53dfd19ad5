/**
 * The lock lifecycle over HTTP (`lock`, `update`, `check`, `diff` on `POST /resolve`): which
 * combinations are refused before any work, and the JSON bodies of a check and of a diff. The
 * logic itself (staleness, diffs, rendering) is `src/lock/`'s, shared with the CLI; this module
 * only words it in the API's terms (field names, not flags).
 */
import type { PlatformDiff } from '../../lock/diff.js';
import { lockFormatOf } from '../../locks/lock-file.js';
import type { WorkspaceStaleReason } from '../../lock/workspace.js';
import { HttpProblemError } from '../problem.js';
import type { ResolveInput } from './resolve-input.js';

/** Options that need `lock`, or that do not go together, refused with the field at fault. */
export function refuseLockMisuse(input: ResolveInput): void {
  const { request } = input;
  const needsLock = [(request.update ?? []).length > 0 ? 'update' : undefined, input.check ? 'check' : undefined, input.diff ? 'diff' : undefined].filter(
    (name): name is string => name !== undefined,
  );
  if (request.lock === undefined && needsLock.length > 0) {
    throw new HttpProblemError('invalid-option', `Cannot use "${needsLock[0]}" without "lock": send the text of the previous pixi.lock or conda-lock.yml as "lock"`, { field: 'lock' });
  }
  if (input.check && input.diff) {
    throw new HttpProblemError('invalid-option', 'Cannot use "check" with "diff": a check solves nothing, so there is nothing to compare; send one or the other', { field: 'diff' });
  }
  const file = request.files?.[0];
  if (file && lockFormatOf(file.filename, file.content)) {
    const extra = (request.specs ?? []).length > 0 ? 'specs' : (request.channels ?? []).length > 0 ? 'channels' : undefined;
    if (extra) {
      throw new HttpProblemError(
        'invalid-option',
        `Cannot combine the lock file "${file.filename}" given as "file" with "${extra}": a lock is the environment as it is; to re-solve close to a lock, send the request with the lock as "lock"`,
        { field: extra },
      );
    }
  }
}

export interface LockCheckBody {
  readonly satisfied: boolean;
  readonly lock: string;
  readonly environments: readonly string[];
  readonly platforms: readonly string[];
  readonly reasons: readonly WorkspaceStaleReason[];
}

export function lockCheckBody(lock: string, environments: readonly string[], platforms: readonly string[], reasons: readonly WorkspaceStaleReason[]): LockCheckBody {
  return { satisfied: reasons.length === 0, lock, environments, platforms, reasons };
}

/** The changes of one environment (`platforms`) or of a workspace (`environments`). */
export type DiffChanges = { readonly platforms: readonly PlatformDiff[] } | { readonly environments: readonly { readonly environment: string; readonly platforms: readonly PlatformDiff[] }[] };

export function changed(changes: DiffChanges): boolean {
  const platforms = 'platforms' in changes ? changes.platforms : changes.environments.flatMap((e) => e.platforms);
  return platforms.some((p) => p.changes.length > 0);
}

/**
 * Whether the client asked for text: `text/plain` in Accept with a higher weight than
 * `application/json` (which wins a tie, and when neither is named).
 */
export function wantsText(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    return { range, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
  // The weight of a type is that of the most specific range matching it (RFC 9110 section 12.5.1).
  const weight = (type: string): number => {
    const [main] = type.split('/');
    const match = ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${main}/*`) ?? ranges.find((r) => r.range === '*/*');
    return match?.q ?? 0;
  };
  const text = weight('text/plain');
  return text > 0 && text > weight('application/json');
}
