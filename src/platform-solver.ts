/**
 * Runs one platform's solve, either in this thread or on the worker pool. The resolve orchestration
 * does not care which: the CLI solves a single platform in-process (a worker would only add its
 * start-up time) and several platforms on workers in parallel; the server always uses the pool.
 */
import { solve, SolveTimeoutError } from '../solver/index.js';
import type { SubdirIndex } from '../repodata/types.js';
import { CondaResolveError } from '../vocabulary/errors.js';
import type { PackageRecord } from '../vocabulary/record.js';
import { indexKey, shareIndex } from './index-sharing.js';
import { timeoutMessage, type PoolSolveOutcome, type SolvePool } from './solve-pool.js';

export interface PlatformSolveInput {
  readonly specs: readonly string[];
  readonly channels: readonly { readonly name: string; readonly sources: readonly SubdirIndex[] }[];
  readonly virtualPackages: readonly PackageRecord[];
  readonly channelPriority: 'strict' | 'flexible' | 'disabled';
  readonly excludeNewer?: number;
  readonly timeoutMs?: number;
}

export type PlatformSolveOutcome = PoolSolveOutcome;

export interface PlatformSolver {
  solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome>;
}

export class InProcessSolver implements PlatformSolver {
  async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    try {
      const outcome = solve({
        specs: input.specs,
        channels: input.channels,
        virtualPackages: input.virtualPackages,
        channelPriority: input.channelPriority,
        excludeNewer: input.excludeNewer,
        timeoutMs: input.timeoutMs,
        signal,
      });
      if (outcome.kind === 'solved') return { kind: 'solved', records: outcome.records };
      return { kind: 'unsatisfiable', message: outcome.message };
    } catch (error) {
      if (error instanceof SolveTimeoutError) {
        return { kind: 'error', code: error.code, message: timeoutMessage(input.timeoutMs ?? 0) };
      }
      if (error instanceof CondaResolveError) return { kind: 'error', code: error.code, message: error.message };
      throw error;
    }
  }
}

export class PooledSolver implements PlatformSolver {
  readonly #pool: SolvePool;

  constructor(pool: SolvePool) {
    this.#pool = pool;
  }

  solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    const indexes = new Map<string, () => ReturnType<typeof shareIndex>>();
    const channels = input.channels.map((channel) => ({
      name: channel.name,
      sources: channel.sources.map((index) => {
        const key = indexKey(index);
        indexes.set(key, () => shareIndex(index));
        return key;
      }),
    }));
    return this.#pool.solve(
      {
        specs: input.specs,
        channels,
        virtualPackages: input.virtualPackages,
        channelPriority: input.channelPriority,
        excludeNewer: input.excludeNewer,
        timeoutMs: input.timeoutMs,
        indexes,
      },
      signal,
    );
  }
}
