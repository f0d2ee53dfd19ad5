/**
 * Handing channel indexes to worker threads without copying them.
 *
 * Indexes built from a repodata.json (`repodata/build-index.ts`) share their bytes and span tables
 * through SharedArrayBuffers. Any other `SubdirIndex` (a sharded channel's fetched names, for
 * instance) crosses as a snapshot of the records it holds, which for sharded channels is only the
 * closure the solve reaches.
 */
import { reviveSubdirIndex, type SharedSubdirIndexHandle } from '../repodata/monolithic.js';
import type { ChannelRef, SubdirIndex } from '../repodata/types.js';
import type { PackageRecord } from '../vocabulary/record.js';

interface RecordsSnapshotHandle {
  readonly kind: 'conda-resolve/records-snapshot';
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly entries: readonly (readonly [string, readonly PackageRecord[]])[];
}

export type SharedIndexHandle = SharedSubdirIndexHandle | RecordsSnapshotHandle;

const keys = new WeakMap<SubdirIndex, string>();
let nextKey = 0;

/** A key unique to this index object: a reloaded index (new validator) gets a new key. */
export function indexKey(index: SubdirIndex): string {
  let key = keys.get(index);
  if (!key) {
    key = `${index.channel.baseUrl}/${index.subdir}#${++nextKey}`;
    keys.set(index, key);
  }
  return key;
}

export function shareIndex(index: SubdirIndex): SharedIndexHandle {
  const shareable = index as SubdirIndex & { toShared?: () => SharedIndexHandle };
  if (typeof shareable.toShared === 'function') return shareable.toShared();
  return {
    kind: 'conda-resolve/records-snapshot',
    channel: index.channel,
    subdir: index.subdir,
    entries: [...index.names()].filter((name) => safeHas(index, name)).map((name) => [name, index.records(name)] as const),
  };
}

export function reviveIndex(handle: SharedIndexHandle): SubdirIndex {
  if (handle.kind === 'conda-resolve/records-snapshot') return new SnapshotIndex(handle);
  return reviveSubdirIndex(handle);
}

/** Names a sharded index lists but has not fetched would throw on `records`; skip them. */
function safeHas(index: SubdirIndex, name: string): boolean {
  try {
    index.records(name);
    return true;
  } catch {
    return false;
  }
}

class SnapshotIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly recordCount: number;
  readonly #byName: Map<string, readonly PackageRecord[]>;

  constructor(handle: RecordsSnapshotHandle) {
    this.channel = handle.channel;
    this.subdir = handle.subdir;
    this.#byName = new Map(handle.entries);
    let count = 0;
    for (const records of this.#byName.values()) count += records.length;
    this.recordCount = count;
  }

  names(): Iterable<string> {
    return this.#byName.keys();
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  records(name: string): readonly PackageRecord[] {
    return this.#byName.get(name) ?? [];
  }
}
