/**
 * A `SubdirIndex` over eagerly parsed records: the fallback when the lazy scan reports something it
 * does not reproduce exactly (`RepodataIndexUnsupportedError`), and the natural index for small
 * documents. It can cross to a worker thread too: the handle carries the bytes in shared memory and
 * the worker parses them again.
 */
import type { PackageRecord } from '../vocabulary/record.js';
import { toSharedBytes } from './index-tables.js';
import { parseRepodata } from './parse.js';
import { RepodataParseError, describeSource } from './parse-errors.js';
import type { RepodataSource } from './record-normalise.js';
import type { ChannelRef, SubdirIndex } from './types.js';

export interface SharedEagerIndexHandle {
  readonly kind: 'conda-resolve/eager-subdir-index';
  readonly version: 1;
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly bytes: Uint8Array;
}

const EMPTY: readonly PackageRecord[] = Object.freeze([]);

export class EagerSubdirIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly recordCount: number;
  readonly #byName = new Map<string, PackageRecord[]>();
  readonly #input: Uint8Array | string;

  /** Parse `input` eagerly. Keeping `bytes` lets `toShared()` hand them to workers. */
  constructor(input: Uint8Array | string, source: RepodataSource) {
    const parsed = parseRepodata(input, source);
    const subdir = source.subdir ?? parsed.info.subdir;
    if (!subdir) throw new RepodataParseError(describeSource(source.channel.name, null), 'the document names no subdir ("info.subdir") and none was given');
    this.channel = source.channel;
    this.subdir = subdir;
    this.recordCount = parsed.records.length;
    for (const record of parsed.records) {
      const list = this.#byName.get(record.name);
      if (list) list.push(record);
      else this.#byName.set(record.name, [record]);
    }
    this.#input = input;
  }

  static fromShared(handle: SharedEagerIndexHandle): EagerSubdirIndex {
    return new EagerSubdirIndex(handle.bytes, { channel: handle.channel, subdir: handle.subdir });
  }

  names(): Iterable<string> {
    return this.#byName.keys();
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  records(name: string): readonly PackageRecord[] {
    return this.#byName.get(name) ?? EMPTY;
  }

  /** Nothing to release: the records live in memory. */
  close(): void {}

  toShared(): SharedEagerIndexHandle {
    const bytes = toSharedBytes(typeof this.#input === 'string' ? new TextEncoder().encode(this.#input) : this.#input);
    return { kind: 'conda-resolve/eager-subdir-index', version: 1, channel: this.channel, subdir: this.subdir, bytes };
  }
}
