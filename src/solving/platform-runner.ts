/**
 * Where one platform's solve runs: in this thread (`InProcessSolver`), on the worker pool
 * (`SolvePool` itself), or here first and on the pool too once a solve proves heavy
 * (`ThisThreadThenPoolSolver`). The resolve orchestration does not care which: the CLI solves a
 * single platform in-process (a worker would only add its start-up time), several platforms here
 * first; the server always uses the pool.
 */
import { solve, SolveTimeoutError } from '../../solver/index.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { timeoutMessage, type SolvePool } from './solve-pool.js';
import type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from './types.js';

export class InProcessSolver implements PlatformSolver {
  async solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    try {
      const outcome = solve({ ...input, signal });
      if (outcome.kind === 'solved') return { kind: 'solved', records: outcome.records };
      return { kind: 'unsatisfiable', message: outcome.message, explanation: outcome.explanation };
    } catch (error) {
      if (error instanceof SolveTimeoutError) {
        return { kind: 'error', code: error.code, message: timeoutMessage(input.timeoutMs ?? 0) };
      }
      if (error instanceof CondaResolveError) return { kind: 'error', code: error.code, message: error.message };
      throw error;
    }
  }
}

interface WaitingSolve {
  readonly input: PlatformSolveInput;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (outcome: PlatformSolveOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Several platforms for one process: solved here one after another until a solve proves heavy,
 * then on this thread and the pool's workers together, each taking the next waiting platform.
 *
 * Why: a worker's start-up and its cold JIT cost about as much as a small solve, which this thread,
 * already warm, does in less; so for small solves (conda-forge-py39's python=3.9 takes some 30 ms
 * once warm) one thread is fastest, and workers pay off only for solves that take longer than
 * `parallelAfterMs`. bench/cli.ts measures the three-platform case. This thread blocks while it
 * solves, which suits the CLI, not the server.
 */
export class ThisThreadThenPoolSolver implements PlatformSolver {
  readonly #here = new InProcessSolver();
  readonly #pool: SolvePool;
  readonly #parallelAfterMs: number;
  readonly #waiting: WaitingSolve[] = [];
  #poolRunning = 0;
  #usePool = false;
  #hereScheduled = false;

  constructor(pool: SolvePool, options: { parallelAfterMs?: number } = {}) {
    this.#pool = pool;
    this.#parallelAfterMs = options.parallelAfterMs ?? 200;
  }

  solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, signal, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#usePool && this.#waiting.length > 0 && this.#poolRunning < this.#pool.size) {
      const job = this.#waiting.shift()!;
      this.#poolRunning++;
      this.#pool
        .solve(job.input, job.signal)
        .then(job.resolve, job.reject)
        .finally(() => {
          this.#poolRunning--;
          this.#dispatch();
        });
    }
    if (this.#waiting.length === 0 || this.#hereScheduled) return;
    // A turn later, so the event loop can finish loading other platforms' indexes first.
    this.#hereScheduled = true;
    setImmediate(() => {
      const job = this.#waiting.shift();
      const started = performance.now();
      const done = () => {
        if (performance.now() - started > this.#parallelAfterMs) this.#usePool = true;
        this.#hereScheduled = false;
        this.#dispatch();
      };
      if (!job) return done();
      this.#here.solve(job.input, job.signal).then(job.resolve, job.reject).finally(done);
    });
  }
}
