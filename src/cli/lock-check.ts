/** `--check --lock FILE`: say whether the lock still answers the request, and exit 0 or 1. */
import { UsageError } from '../errors.js';
import { lockStaleness } from '../lock/check.js';
import type { PreparedRequest } from '../request.js';
import { EXIT_FAILED, EXIT_OK, writeError, type CliIO } from './io.js';

export function checkCommand(request: PreparedRequest, io: CliIO, quiet: boolean): number {
  const lock = request.previousLock;
  if (!lock) throw new UsageError('CR_ERR_INPUT_LOCK_USAGE', 'Cannot use --check without --lock: name the lock to check');
  const reasons = lockStaleness(request, lock, io.env);
  if (reasons.length === 0) {
    if (!quiet) io.stderr.write(`conda-resolve: ${lock.filename} satisfies the request (${request.platforms.join(', ')})\n`);
    return EXIT_OK;
  }
  writeError(io, `${lock.filename} does not satisfy the request:${reasons.map((r) => `\n  - ${r}`).join('')}`);
  return EXIT_FAILED;
}
