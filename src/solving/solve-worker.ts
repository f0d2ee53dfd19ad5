/**
 * The worker-thread side of `SolvePool`: keeps the indexes it has been given (by key, over shared
 * memory) and runs one synchronous solve per message.
 */
import { parentPort } from 'node:worker_threads';
import { solve, type SolveChannel } from '../../solver/index.js';
import type { SubdirIndex } from '../../repodata/types.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { reviveIndex, type IndexKey } from './shared-index.js';
import type { PlatformSolveOutcome } from './types.js';
import type { ResultMessage, SolveMessage } from './worker-protocol.js';

const indexes = new Map<IndexKey, SubdirIndex>();

/** An AbortSignal whose `aborted` reads the pool's shared flag, so a busy solve can see it. */
function flagSignal(flag: Int32Array): AbortSignal {
  const signal = new AbortController().signal;
  Object.defineProperty(signal, 'aborted', { get: () => Atomics.load(flag, 0) === 1 });
  return signal;
}

function run(message: SolveMessage): PlatformSolveOutcome {
  for (const key of message.forget) indexes.delete(key);
  for (const [key, handle] of Object.entries(message.indexes)) indexes.set(key, reviveIndex(handle));
  const channels: SolveChannel<SubdirIndex>[] = message.request.channels.map((channel) => ({
    name: channel.name,
    sources: channel.sources.map((key) => {
      const index = indexes.get(key);
      if (!index) throw new CondaResolveError('CR_ERR_INTERNAL', `Internal error: index ${key} missing in worker`);
      return index;
    }),
  }));
  const outcome = solve({ ...message.request, channels, signal: flagSignal(message.cancelFlag) });
  if (outcome.kind === 'solved') return { kind: 'solved', records: outcome.records };
  return { kind: 'unsatisfiable', message: outcome.message, explanation: outcome.explanation };
}

parentPort?.on('message', (message: SolveMessage) => {
  if (message.type !== 'solve') return;
  let outcome: PlatformSolveOutcome;
  try {
    outcome = run(message);
  } catch (error) {
    outcome =
      error instanceof CondaResolveError
        ? { kind: 'error', code: error.code, message: error.message }
        : { kind: 'error', code: 'CR_ERR_INTERNAL', message: 'Internal error: the solve failed unexpectedly' };
  }
  const result: ResultMessage = { type: 'result', id: message.id, outcome };
  parentPort?.postMessage(result);
});
