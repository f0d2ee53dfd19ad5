/**
 * The sha256 of a large download, computed on a worker thread while the main thread receives,
 * scans and writes it: hashing a 636 MB conda-forge-scale channel cost ~0.47 s of the main
 * thread, which is the one that keeps a cold download waiting (bench/RESULTS.md). The bytes are
 * handed over in shared memory (the download's write batches), not copied; the caller reuses a
 * batch only once both its write and its hash are done.
 *
 * One worker serves every download of the process (each hash has an id), is started on the
 * first large download, and does not keep the process alive when idle. Where a worker cannot
 * start, hashing happens inline as before.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** A document's running sha256. */
export interface DocumentHash {
  /** Bytes must be in a SharedArrayBuffer (they are read on another thread until `hashed` runs). */
  readonly shared: boolean;
  /** Hash `bytes` next; `hashed` runs once they are no longer read. */
  update(bytes: Uint8Array, hashed: () => void): void;
  /** The lowercase hex digest of everything given, once hashed. */
  digest(): Promise<string>;
  /** Forget the document. */
  abort(): void;
}

/** The worker's program (a script: an eval worker has no module resolution to do). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.kind === 'update') {
    let hash = hashes.get(m.id);
    if (hash === undefined) hashes.set(m.id, (hash = createHash('sha256')));
    hash.update(new Uint8Array(m.buffer, m.offset, m.length));
    parentPort.postMessage({ id: m.id, kind: 'hashed' });
  } else if (m.kind === 'digest') {
    const hash = hashes.get(m.id) ?? createHash('sha256');
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, kind: 'digest', hex: hash.digest('hex') });
  } else {
    hashes.delete(m.id);
  }
});
`;

type FromWorker = { id: number; kind: 'hashed' } | { id: number; kind: 'digest'; hex: string };

class InlineHash implements DocumentHash {
  readonly shared = false;
  readonly #hash = createHash('sha256');
  update(bytes: Uint8Array, hashed: () => void): void {
    this.#hash.update(bytes);
    hashed();
  }
  digest(): Promise<string> {
    return Promise.resolve(this.#hash.digest('hex'));
  }
  abort(): void {}
}

/** The shared worker and the hashes it is running; null once it failed to start or died. */
let pool: HashPool | null | undefined;

class HashPool {
  readonly #worker: Worker;
  readonly #active = new Map<number, WorkerHash>();
  #nextId = 1;
  #failure: Error | null = null;

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true });
    this.#worker.unref();
    this.#worker.on('message', (message: FromWorker) => this.#active.get(message.id)?.receive(message));
    const fail = (error: Error) => {
      pool = null;
      this.#failure = error;
      for (const hash of this.#active.values()) hash.fail(error);
      this.#active.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`the hashing thread exited (code ${code})`)));
  }

  open(): WorkerHash {
    const id = this.#nextId++;
    const hash = new WorkerHash(id, this);
    if (this.#failure !== null) hash.fail(this.#failure);
    else {
      if (this.#active.size === 0) this.#worker.ref();
      this.#active.set(id, hash);
    }
    return hash;
  }

  post(
    message:
      | { id: number; kind: 'update'; buffer: SharedArrayBuffer; offset: number; length: number }
      | { id: number; kind: 'digest' | 'drop' },
  ): void {
    if (this.#failure === null) this.#worker.postMessage(message);
  }

  close(id: number): void {
    if (this.#active.delete(id) && this.#active.size === 0) this.#worker.unref();
  }
}

class WorkerHash implements DocumentHash {
  readonly shared = true;
  readonly #id: number;
  readonly #pool: HashPool;
  /** Callbacks of the updates not yet hashed, in order. */
  readonly #waiting: Array<() => void> = [];
  #digest: { resolve: (hex: string) => void; reject: (error: Error) => void } | null = null;
  #failure: Error | null = null;

  constructor(id: number, owner: HashPool) {
    this.#id = id;
    this.#pool = owner;
  }

  update(bytes: Uint8Array, hashed: () => void): void {
    if (!(bytes.buffer instanceof SharedArrayBuffer)) throw new TypeError('DocumentHash.update: the bytes must be in shared memory');
    if (this.#failure !== null) return;
    this.#waiting.push(hashed);
    this.#pool.post({ id: this.#id, kind: 'update', buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length });
  }

  digest(): Promise<string> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#digest = { resolve, reject };
      this.#pool.post({ id: this.#id, kind: 'digest' });
    });
  }

  abort(): void {
    this.#pool.post({ id: this.#id, kind: 'drop' });
    this.#pool.close(this.#id);
    this.#waiting.length = 0;
  }

  receive(message: FromWorker): void {
    if (message.kind === 'hashed') {
      this.#waiting.shift()?.();
      return;
    }
    this.#pool.close(this.#id);
    this.#digest?.resolve(message.hex);
  }

  fail(error: Error): void {
    this.#failure = error;
    // Nothing reads the batches any more: let the caller reuse them; the digest fails.
    for (const hashed of this.#waiting.splice(0)) hashed();
    this.#digest?.reject(error);
  }
}

/** A hash for a document; on the worker thread when `offThread` and one can run, else inline. */
export function documentHash(offThread: boolean): DocumentHash {
  if (!offThread) return new InlineHash();
  if (pool === undefined) {
    try {
      pool = new HashPool();
    } catch {
      pool = null;
    }
  }
  return pool === null ? new InlineHash() : pool.open();
}
