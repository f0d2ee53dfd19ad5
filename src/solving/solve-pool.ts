/**
 * A pool of worker threads that run solves off the event loop: the `PlatformSolver` of the server,
 * and of the CLI once a solve proves heavy (`ThisThreadThenPoolSolver`).
 *
 * Channel indexes are not copied into workers: a loaded index is handed over as a shareable handle
 * (its bytes live in SharedArrayBuffers) once per worker and kept there under its key, so the
 * second solve on the same index pays neither a copy nor a parse. Each worker runs one solve at a
 * time; further tasks wait in a bounded queue (`PoolBusyError` when it is full).
 *
 * Cancellation: a running solve cannot read messages (it is synchronous), so each task carries a
 * SharedArrayBuffer flag that the worker's AbortSignal reads; if a solve does not stop within a
 * grace period after its deadline, the worker is terminated and replaced.
 */
import { bundledWorker } from './bundle-entry.js';
import { availableParallelism } from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { SubdirIndex } from '../../repodata/types.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { indexKey, shareIndex, type IndexKey, type SharedIndexHandle } from './shared-index.js';
import type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from './types.js';
import type { ResultMessage, SolveMessage } from './worker-protocol.js';
import { timerDelay } from '../clock.js';

export class PoolBusyError extends CondaResolveError {
  constructor(limit: number) {
    super('CR_ERR_POOL_BUSY', `Cannot start the solve: the solve queue is full (${limit} waiting)`);
  }
}

export class PoolClosedError extends CondaResolveError {
  constructor() {
    super('CR_ERR_POOL_CLOSED', 'Cannot start the solve: the solver pool is shutting down');
  }
}

export interface SolvePoolOptions {
  /** Worker threads; default: available parallelism. */
  size?: number;
  /** Tasks allowed to wait for a free worker; default 64. */
  maxQueue?: number;
  /** Extra time a solve gets after its own deadline before its worker is killed; default 2 s. */
  killGraceMs?: number;
  /** Keys of indexes a worker keeps; the oldest are dropped beyond this. Default 64. */
  maxIndexesPerWorker?: number;
  /** V8 old-generation limit of each worker, in MB; default 2048. */
  maxHeapMb?: number;
}

interface WorkerSlot {
  worker: Worker;
  /** Keys of the indexes this worker holds, oldest first. */
  known: Map<IndexKey, true>;
  busy: boolean;
}

interface QueuedTask {
  input: PlatformSolveInput;
  signal: AbortSignal | undefined;
  resolve: (outcome: PlatformSolveOutcome) => void;
  reject: (error: unknown) => void;
}

const WORKER = workerSource();

export class SolvePool implements PlatformSolver {
  readonly size: number;
  readonly maxQueue: number;
  readonly #killGraceMs: number;
  readonly #maxIndexes: number;
  readonly #maxHeapMb: number;
  readonly #slots: WorkerSlot[] = [];
  readonly #queue: QueuedTask[] = [];
  #closed = false;
  #taskId = 0;

  constructor(options: SolvePoolOptions = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism());
    this.maxQueue = options.maxQueue ?? 64;
    this.#killGraceMs = options.killGraceMs ?? 2000;
    this.#maxIndexes = options.maxIndexesPerWorker ?? 64;
    this.#maxHeapMb = options.maxHeapMb ?? 2048;
  }

  /** Starts the workers now (they load the solver code), so the first solve does not wait for them. */
  warm(count = this.size): void {
    while (this.#slots.length < Math.min(count, this.size)) this.#slots.push(this.#spawn());
  }

  get queued(): number {
    return this.#queue.length;
  }

  get running(): number {
    return this.#slots.filter((slot) => slot.busy).length;
  }

  solve(input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    if (this.#closed) return Promise.reject(new PoolClosedError());
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<PlatformSolveOutcome>((resolve, reject) => {
      const entry: QueuedTask = { input, signal, resolve, reject };
      const slot = this.#freeSlot();
      if (slot) {
        this.#run(slot, entry);
        return;
      }
      if (this.#queue.length >= this.maxQueue) {
        reject(new PoolBusyError(this.maxQueue));
        return;
      }
      this.#queue.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.#queue.indexOf(entry);
          if (at >= 0) {
            this.#queue.splice(at, 1);
            reject(abortError(signal));
          }
        },
        { once: true },
      );
    });
  }

  /** Stops the workers; running solves are abandoned and queued ones rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#queue.splice(0)) entry.reject(new PoolClosedError());
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
    this.#slots.length = 0;
  }

  #freeSlot(): WorkerSlot | undefined {
    const idle = this.#slots.find((slot) => !slot.busy);
    if (idle) return idle;
    if (this.#slots.length < this.size) {
      const slot = this.#spawn();
      this.#slots.push(slot);
      return slot;
    }
    return undefined;
  }

  #spawn(): WorkerSlot {
    // A bound on each worker's heap: a pathological request fails its own solve (the worker is
    // replaced) instead of growing the process without limit.
    const worker = new Worker(WORKER.source, { ...WORKER.options, resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb } });
    worker.unref();
    return { worker, known: new Map(), busy: false };
  }

  #run(slot: WorkerSlot, entry: QueuedTask): void {
    slot.busy = true;
    const id = ++this.#taskId;
    const { input, signal } = entry;
    const cancelFlag = new Int32Array(new SharedArrayBuffer(4));

    // Send only the indexes this worker has not seen yet; remember them (bounded, oldest first).
    const newIndexes: Record<IndexKey, SharedIndexHandle> = {};
    const keyOf = (index: SubdirIndex): IndexKey => {
      const key = indexKey(index);
      if (slot.known.has(key)) slot.known.delete(key);
      else newIndexes[key] = shareIndex(index);
      slot.known.set(key, true);
      return key;
    };
    const channels = input.channels.map((channel) => ({ name: channel.name, sources: channel.sources.map(keyOf) }));
    const forget: IndexKey[] = [];
    while (slot.known.size > this.#maxIndexes) {
      const oldest = slot.known.keys().next().value as string;
      slot.known.delete(oldest);
      forget.push(oldest);
    }

    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const finish = (outcome: PlatformSolveOutcome | undefined, error?: unknown) => {
      if (settled) return;
      settled = true;
      if (killTimer) clearTimeout(killTimer);
      slot.worker.off('message', onMessage);
      slot.worker.off('error', onError);
      slot.worker.off('exit', onExit);
      signal?.removeEventListener('abort', onAbort);
      if (outcome) entry.resolve(outcome);
      else entry.reject(error);
      slot.busy = false;
      this.#next();
    };
    const onMessage = (message: ResultMessage) => {
      if (message.type === 'result' && message.id === id) finish(message.outcome);
    };
    const onError = (error: Error) => {
      this.#replace(slot);
      finish({ kind: 'error', code: 'CR_ERR_INTERNAL', message: `Internal error: the solver worker failed (${error.name})` });
    };
    const onExit = () => {
      this.#replace(slot);
      finish({ kind: 'error', code: 'CR_ERR_INTERNAL', message: 'Internal error: the solver worker stopped' });
    };
    const onAbort = () => {
      Atomics.store(cancelFlag, 0, 1);
      // Give the solver a moment to notice; then stop the thread the hard way.
      killTimer ??= setTimeout(() => this.#kill(slot, () => finish(undefined, abortError(signal!))), this.#killGraceMs);
    };
    slot.worker.on('message', onMessage);
    slot.worker.on('error', onError);
    slot.worker.on('exit', onExit);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = input.timeoutMs;
    if (timeoutMs !== undefined) {
      killTimer = setTimeout(
        () => this.#kill(slot, () => finish({ kind: 'error', code: 'CR_ERR_SOLVE_TIMEOUT', message: timeoutMessage(timeoutMs) })),
        timerDelay(timeoutMs + this.#killGraceMs),
      );
    }
    const message: SolveMessage = {
      type: 'solve',
      id,
      forget,
      indexes: newIndexes,
      cancelFlag,
      request: {
        // A MatchSpec does not survive the structured clone; its text does, and parses back to it.
        specs: input.specs.map((spec) => spec.source),
        channels,
        virtualPackages: input.virtualPackages,
        channelPriority: input.channelPriority,
        excludeNewer: input.excludeNewer,
        locked: input.locked,
        ...(input.resolution ? { resolution: input.resolution } : {}),
        timeoutMs,
      },
    };
    slot.worker.postMessage(message);
  }

  #kill(slot: WorkerSlot, then: () => void): void {
    this.#replace(slot);
    then();
  }

  /** Replaces a dead or stuck worker with a fresh one. */
  #replace(slot: WorkerSlot): void {
    const at = this.#slots.indexOf(slot);
    slot.worker.removeAllListeners();
    void slot.worker.terminate();
    if (at >= 0) {
      if (this.#closed) this.#slots.splice(at, 1);
      else this.#slots[at] = this.#spawn();
    }
  }

  #next(): void {
    while (this.#queue.length > 0) {
      const slot = this.#freeSlot();
      if (!slot) return;
      this.#run(slot, this.#queue.shift()!);
    }
  }
}

export function timeoutMessage(ms: number): string {
  return `Solve exceeded the time limit of ${formatSeconds(ms)}`;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

function abortError(signal: AbortSignal): CondaResolveError {
  const reason = signal.reason as unknown;
  if (reason instanceof CondaResolveError) return reason;
  return new CondaResolveError('CR_ERR_SOLVE_ABORTED', 'The solve was cancelled');
}

/**
 * The worker's entry: the compiled file next to this one. Running from the TypeScript source (the
 * tests, `tsx`), it is the compiled worker named by CONDA_RESOLVE_SOLVE_WORKER (the test suite's
 * global setup sets it when dist/ is up to date: registering tsx and transforming the solver in
 * every worker costs several times the worker's own start-up), or else a bootstrap that registers
 * tsx inside the worker and then imports the source (Node 20 does not apply `--import tsx` from
 * `execArgv` to worker threads: the worker fails with ERR_UNKNOWN_FILE_EXTENSION).
 */
function workerSource(): { source: URL | string; options: WorkerOptions } {
  const bundled = bundledWorker('solve');
  if (bundled) return bundled;
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith('.ts')) {
    const compiled = process.env.CONDA_RESOLVE_SOLVE_WORKER;
    if (compiled) return { source: new URL(compiled), options: {} };
    const tsx = import.meta.resolve('tsx/esm/api');
    const entry = new URL('./solve-worker.ts', here).href;
    return {
      source: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`,
      options: { eval: true },
    };
  }
  return { source: new URL('./solve-worker.js', here), options: {} };
}
