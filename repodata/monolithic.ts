/**
 * One monolithic repodata.json as a `SubdirIndex`: the lazy index (`lazy/`), or the eager parse
 * (`EagerSubdirIndex`) for a caller that wants every record built. Both can cross to worker
 * threads: `toShared()` gives a structured-cloneable handle, `reviveSubdirIndex` rebuilds the index there.
 */
import { LazySubdirIndex, type SharedLazyIndexHandle } from './lazy/lazy-subdir-index.js';
import { parseRepodata } from './parse.js';
import { RepodataParseError, describeSource } from './parse-errors.js';
import { groupByName, RecordsIndex } from './records-index.js';
import type { RepodataSource } from './record-normalise.js';
import { toSharedBytes } from './shared-memory.js';
import type { ChannelRef, SubdirIndex } from './types.js';

export interface SharedEagerIndexHandle {
  readonly kind: 'conda-resolve/eager-subdir-index';
  readonly version: 1;
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly bytes: Uint8Array;
}

export type SharedSubdirIndexHandle = SharedLazyIndexHandle | SharedEagerIndexHandle;

/** A `SubdirIndex` that can cross to worker threads. */
export interface ShareableSubdirIndex extends SubdirIndex {
  toShared(): SharedSubdirIndexHandle;
  /** Release what the index holds open (a file-backed lazy index closes its file). */
  close(): void;
}

/**
 * The records of a whole document, parsed at once. Its handle carries the document's bytes in
 * shared memory, and the worker parses them again.
 */
export class EagerSubdirIndex extends RecordsIndex implements ShareableSubdirIndex {
  readonly #input: Uint8Array | string;

  constructor(input: Uint8Array | string, source: RepodataSource) {
    const parsed = parseRepodata(input, source);
    const subdir = source.subdir ?? parsed.info.subdir;
    if (!subdir)
      throw new RepodataParseError(
        describeSource(source.channel.name, null),
        'the document names no subdir ("info.subdir") and none was given',
      );
    super(source.channel, subdir, groupByName(parsed.records));
    this.#input = input;
  }

  static fromShared(handle: SharedEagerIndexHandle): EagerSubdirIndex {
    return new EagerSubdirIndex(handle.bytes, { channel: handle.channel, subdir: handle.subdir });
  }

  /** Nothing to release: the records live in memory. */
  close(): void {}

  toShared(): SharedEagerIndexHandle {
    const bytes = toSharedBytes(typeof this.#input === 'string' ? new TextEncoder().encode(this.#input) : this.#input);
    return { kind: 'conda-resolve/eager-subdir-index', version: 1, channel: this.channel, subdir: this.subdir, bytes };
  }
}

/**
 * Index a whole repodata.json. Throws `RepodataParseError` (or `RepodataVersionError`) when the
 * document is bad; never a raw SyntaxError.
 */
export function indexRepodata(bytes: Uint8Array, source: RepodataSource): ShareableSubdirIndex {
  return LazySubdirIndex.fromBytes(bytes, source);
}

/** Rebuild, in this thread, an index handed over by `toShared()` in another. */
export function reviveSubdirIndex(handle: SharedSubdirIndexHandle): ShareableSubdirIndex {
  return handle.kind === 'conda-resolve/lazy-subdir-index' ? LazySubdirIndex.fromShared(handle) : EagerSubdirIndex.fromShared(handle);
}
