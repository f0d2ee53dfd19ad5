/**
 * Files for the lazy index on Node: a repodata.json (or any cache file) read with positional reads,
 * and a write that a reader never sees half of. Kept apart from `cached-repodata.ts` so the record
 * cache, which that module uses, can use them too.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { sharedUint8 } from '../shared-memory.js';
import type { RepodataBytes } from './lazy-subdir-index.js';

/** Closes descriptors of readers that were dropped without `close()`. */
const finalizer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** A repodata.json on disk, read with positional reads (`pread`). */
export class RepodataFile implements RepodataBytes {
  readonly length: number;
  readonly positional = true;
  #fd: number | null;

  private constructor(fd: number, length: number) {
    this.#fd = fd;
    this.length = length;
    finalizer.register(this, fd, this);
  }

  static open(path: string): RepodataFile {
    const fd = openSync(path, 'r');
    try {
      return new RepodataFile(fd, fstatSync(fd).size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  read(start: number, end: number): Uint8Array {
    const out = new Uint8Array(end - start);
    this.#readInto(out, start);
    return out;
  }

  /** The whole file, in a SharedArrayBuffer. */
  readAll(): Uint8Array {
    const out = sharedUint8(this.length);
    this.#readInto(out, 0);
    return out;
  }

  /** Fill `out` from byte `position` of the file. */
  readInto(out: Uint8Array, position: number): void {
    this.#readInto(out, position);
  }

  close(): void {
    if (this.#fd === null) return;
    finalizer.unregister(this);
    closeSync(this.#fd);
    this.#fd = null;
  }

  #readInto(out: Uint8Array, position: number): void {
    if (this.#fd === null) throw new Error('RepodataFile is closed');
    let done = 0;
    while (done < out.length) {
      const n = readSync(this.#fd, out, done, out.length - done, position + done);
      if (n === 0) throw new Error(`repodata file shrank while reading at byte ${position + done}`);
      done += n;
    }
  }
}

/** Write `bytes` to `path` through a temporary file and a rename; throws, leaving no temporary file, when it cannot. */
export function writeFileAtomic(path: string, bytes: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
