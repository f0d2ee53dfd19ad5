/**
 * One HTTP exchange over an undici dispatcher, with a body reader that cannot crash the process.
 * undici 7's `request()` body pauses the HTTP/1 parser when the reader falls behind and then asserts
 * `!paused` from a socket handler when a non-keep-alive connection ends (nodejs/undici#5360), which
 * nothing can catch. So the parser is paused only for keep-alive responses with length or chunked
 * framing; other bodies are queued without backpressure, bounded by the download's size cap. The
 * reader also enforces the download's total time and minimum rate while it keeps up.
 */
import type { Dispatcher } from 'undici';

/** How long a body may take, and how slowly it may arrive. */
export interface BodyTimeRules {
  /** From the response's headers to its last byte. */
  readonly maxMs: number;
  /** The rate rule: at least `minBytes` in every `windowMs`. */
  readonly minBytes: number;
  readonly windowMs: number;
  /** Makes the error thrown when a rule is broken (the caller names channel and subdir). */
  readonly onBroken: (what: 'total' | 'rate', received: number) => Error;
}

export interface ExchangeHead {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: ResponseBody;
}

/** Above this many queued bytes a keep-alive response pauses the parser (TCP backpressure). */
const HIGH_WATER = 4 * 1024 * 1024;
/** `dump()` reads at most this much of an unwanted body to keep the connection, then drops it. */
const DUMP_LIMIT = 256 * 1024;
/** A batch handed to the reader at once (bounded, so one await does not carry the whole file). */
const MAX_BATCH = 8 * 1024 * 1024;

class AbortedBodyError extends Error {
  constructor() {
    super('the response body was discarded');
    this.name = 'AbortedBodyError';
  }
}

/**
 * The body of a response: an async iterable of chunks (batched when the reader lags), or `dump()`
 * to discard it. Exactly one reader.
 */
export class ResponseBody implements AsyncIterable<Buffer> {
  #queue: Buffer[] = [];
  #queued = 0;
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;
  #controller: Dispatcher.DispatchController | null = null;
  #mayPause = false;
  #received = 0;
  #timers: NodeJS.Timeout[] = [];
  #windowStart = 0;
  /** Set by `pipeTo`: chunks go to it as they arrive instead of the queue. */
  #sink: ((chunk: Buffer) => Promise<void> | void) | null = null;
  /** The response is paused until the sink's promise settles (see `pipeTo`). */
  #sinkBehind = false;
  /** `pipeTo`'s settle, called once the body ended or failed. */
  #onEnd: (() => void) | null = null;

  /** Bytes received so far on the wire (after HTTP framing, before any content decoding). */
  get received(): number {
    return this.#received;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** @internal Called by the exchange when the headers arrived. */
  start(controller: Dispatcher.DispatchController, mayPause: boolean, rules: BodyTimeRules | null): void {
    this.#controller = controller;
    this.#mayPause = mayPause;
    if (!rules || this.#ended) return;
    const total = setTimeout(() => this.destroy(rules.onBroken('total', this.#received)), rules.maxMs);
    this.#windowStart = this.#received;
    const rate = setInterval(() => {
      const got = this.#received - this.#windowStart;
      this.#windowStart = this.#received;
      // A reader that holds many bytes unread is the slow side, not the server.
      if (got < rules.minBytes && this.#queued < HIGH_WATER && !controller.paused) this.destroy(rules.onBroken('rate', this.#received));
    }, rules.windowMs);
    total.unref();
    rate.unref();
    this.#timers.push(total, rate);
  }

  /** @internal */
  push(chunk: Buffer): void {
    if (this.#ended) return;
    this.#received += chunk.length;
    if (this.#sink !== null) {
      this.#deliver(chunk);
      return;
    }
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    if (this.#mayPause && this.#queued >= HIGH_WATER && this.#controller && !this.#controller.paused) this.#controller.pause();
    this.#notify();
  }

  /** @internal */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearTimers();
    this.#notify();
  }

  /** @internal The exchange failed after the headers (connection lost, aborted, timed out). */
  fail(error: Error): void {
    if (this.#ended) return;
    this.#error = error;
    this.#ended = true;
    this.#clearTimers();
    this.#notify();
  }

  /** Stop the download (idempotent; a finished body is left alone). */
  destroy(reason?: Error): void {
    if (this.#ended && this.#queue.length === 0) return;
    const error = reason ?? new AbortedBodyError();
    if (!this.#ended) this.#controller?.abort(error);
    this.fail(error);
    this.#queue = [];
    this.#queued = 0;
  }

  /** Discard the body: read a small one to the end (keeping the connection), drop a large one. Never rejects. */
  async dump(): Promise<void> {
    try {
      for await (const chunk of this) {
        void chunk;
        if (this.#received > DUMP_LIMIT) break;
      }
    } catch {
      // A body being thrown away may fail however it likes.
    } finally {
      this.destroy();
    }
  }

  /**
   * Hand every chunk to `sink` as it arrives, inside the network's data callback, instead of
   * queueing it: no batch is copied, and while the sink works the socket is not read, so TCP holds
   * the rest (the sink does a bounded amount of work per chunk; a sink that can run long, such as
   * a decompressor, must use the iterator). Resolves when the body ends; rejects with the body's
   * error, or with what the sink threw (the download is then stopped). The one reader.
   *
   * A sink that falls behind with work of its own (writes to a slow disk) returns a promise: a
   * response that may be paused (kept alive, with its own framing) is then paused until it
   * settles; any other goes on, its memory bounded by the download's size cap as above.
   */
  pipeTo(sink: (chunk: Buffer) => Promise<void> | void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#sink = sink;
      const queued = this.#queue;
      this.#queue = [];
      this.#queued = 0;
      for (const chunk of queued) if (!this.#deliver(chunk)) break;
      this.#wake = null;
      // The queue may have paused the response while it waited for a reader (above HIGH_WATER):
      // nothing waits in it now.
      if (!this.#ended && !this.#sinkBehind && this.#controller?.paused) this.#controller.resume();
      const settle = (): void => {
        if (this.#error) reject(this.#error);
        else resolve();
      };
      if (this.#ended) settle();
      else this.#onEnd = settle;
    });
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        if (this.#queue.length > 0) {
          yield this.#take();
          continue;
        }
        if (this.#error) throw this.#error;
        if (this.#ended) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      // Leaving early (break, or the reader threw) stops the download.
      if (!this.#ended || this.#queue.length > 0) this.destroy();
    }
  }

  #take(): Buffer {
    let batch: Buffer;
    if (this.#queue.length === 1 || this.#queue[0]!.length >= MAX_BATCH) {
      batch = this.#queue.shift()!;
    } else {
      let size = 0;
      let count = 0;
      while (count < this.#queue.length && size + this.#queue[count]!.length <= MAX_BATCH) size += this.#queue[count++]!.length;
      batch = Buffer.concat(this.#queue.splice(0, count), size);
    }
    this.#queued -= batch.length;
    if (this.#controller?.paused && this.#queued < HIGH_WATER / 2) this.#controller.resume();
    return batch;
  }

  /** Give `chunk` to the sink; false (and the download stopped) when the sink threw. */
  #deliver(chunk: Buffer): boolean {
    try {
      const behind = this.#sink!(chunk);
      if (behind !== undefined && this.#mayPause && this.#controller && !this.#sinkBehind) {
        const controller = this.#controller;
        this.#sinkBehind = true;
        if (!controller.paused) controller.pause();
        const caughtUp = (): void => {
          this.#sinkBehind = false;
          if (!this.#ended && controller.paused) controller.resume();
        };
        behind.then(caughtUp, caughtUp);
      }
      return true;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      // A body that already ended (its last chunks were queued) only needs the error kept.
      if (this.#ended) this.#error ??= failure;
      else this.destroy(failure);
      return false;
    }
  }

  #notify(): void {
    const onEnd = this.#onEnd;
    if (onEnd !== null && this.#ended) {
      this.#onEnd = null;
      onEnd();
    }
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  #clearTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();
}

/**
 * Whether pausing undici's parser is safe for this response: only a connection kept alive with
 * its own framing, since undici 7 runs the `!paused` assertion only for connections that end.
 */
function keptAlive(headers: Record<string, string | string[] | undefined>): boolean {
  const connection = header(headers, 'connection');
  if (!connection.split(',').some((token) => token.trim() === 'keep-alive') || connection.includes('close')) return false;
  return header(headers, 'content-length') !== '' || header(headers, 'transfer-encoding').includes('chunked');
}

export interface ExchangeOptions {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly signal?: AbortSignal | undefined;
  readonly bodyRules?: BodyTimeRules | undefined;
}

/** Send a GET and resolve when the headers arrive; the body is read from the result. */
export function exchange(dispatcher: Dispatcher, options: ExchangeOptions): Promise<ExchangeHead> {
  const { url, signal } = options;
  return new Promise<ExchangeHead>((resolve, reject) => {
    const body = new ResponseBody();
    let started = false;
    let controllerRef: Dispatcher.DispatchController | null = null;
    const onAbort = (): void => {
      const reason = signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      if (controllerRef) controllerRef.abort(reason);
      else settleError(reason);
    };
    let settled = false;
    const settleError = (error: Error): void => {
      signal?.removeEventListener('abort', onAbort);
      if (!started) {
        if (!settled) {
          settled = true;
          reject(error);
        }
      } else {
        body.fail(error);
      }
    };
    if (signal?.aborted) {
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        controllerRef = controller;
        if (signal?.aborted) controller.abort(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      onResponseStart(controller, statusCode, headers) {
        if (statusCode < 200) return;
        started = true;
        settled = true;
        body.start(controller, keptAlive(headers), options.bodyRules ?? null);
        resolve({ status: statusCode, headers, body });
      },
      onResponseData(_controller, chunk) {
        body.push(chunk);
      },
      onResponseEnd() {
        signal?.removeEventListener('abort', onAbort);
        body.end();
      },
      onResponseError(_controller, error) {
        settleError(error);
      },
    };
    try {
      dispatcher.dispatch({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers: options.headers }, handler);
    } catch (error) {
      settleError(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
