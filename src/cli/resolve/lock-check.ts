/** `--check` and `--diff` with `--lock FILE`: whether the lock still answers, and what a solve changes. */
import { UsageError } from '../../errors.js';
import { lockStaleness } from '../../lock/check.js';
import { resolutionDiff } from '../../lock/answer.js';
import { diffJson, renderDiff } from '../../lock/diff.js';
import type { PreviousLock } from '../../lock/previous-lock.js';
import type { PreparedRequest } from '../../request.js';
import type { Resolution } from '../../resolve.js';
import { terminalSafe } from '../../../vocabulary/control-characters.js';
import { EXIT_FAILED, EXIT_OK, writeError, type CliIO } from '../io.js';

export function checkCommand(request: PreparedRequest, io: CliIO, quiet: boolean): number {
  const lock = requireLock(request, '--check');
  const reasons = lockStaleness(request, lock, io.env);
  if (reasons.length === 0) {
    if (!quiet) io.stderr.write(`conda-resolve: ${lock.filename} satisfies the request (${request.platforms.join(', ')})\n`);
    return EXIT_OK;
  }
  writeError(io, `${lock.filename} does not satisfy the request:${reasons.map((r) => `\n  - ${r}`).join('')}`);
  return EXIT_FAILED;
}

export function requireLock(request: PreparedRequest, option: string): PreviousLock {
  if (!request.previousLock)
    throw new UsageError('CR_ERR_INPUT_LOCK_USAGE', `Cannot use ${option} without --lock: name the lock to compare with`);
  return request.previousLock;
}

/** The changes from the lock to the solved platforms (failed platforms are left out), as a table or JSON. */
export function lockDiffText(request: PreparedRequest, resolution: Resolution, json: boolean): string {
  const diff = resolutionDiff(requireLock(request, '--diff'), resolution);
  return json ? `${JSON.stringify(diffJson(diff), null, 2)}\n` : terminalSafe(renderDiff(diff));
}
