/**
 * Handing channel indexes to worker threads without copying them.
 *
 * Indexes built from a repodata.json (`repodata/monolithic.ts`) share their bytes and span tables
 * through SharedArrayBuffers. Any other `SubdirIndex` (a sharded channel's fetched names, for
 * instance) crosses as a snapshot of the records it holds, which for sharded channels is only the
 * closure the solve reaches, and is rebuilt in the worker as a `RecordsIndex`.
 */
import { reviveSubdirIndex, type SharedSubdirIndexHandle } from '../../repodata/monolithic.js';
import { indexIdentity } from '../../repodata/index-identity.js';
import { RecordsIndex, type RecordsSnapshot } from '../../repodata/records-index.js';
import type { SubdirIndex } from '../../repodata/types.js';

export type SharedIndexHandle = SharedSubdirIndexHandle | RecordsSnapshot;

/** The name of one index object between the pool and its workers: a worker keeps the index under it. */
export type IndexKey = string;

/** A key unique to this index object (`indexIdentity`): a reloaded index gets a new key. */
export function indexKey(index: SubdirIndex): IndexKey {
  return `${index.channel.baseUrl}/${index.subdir}#${indexIdentity(index)}`;
}

export function shareIndex(index: SubdirIndex): SharedIndexHandle {
  const shareable = index as SubdirIndex & { toShared?: () => SharedIndexHandle };
  if (typeof shareable.toShared === 'function') return shareable.toShared();
  if (index instanceof RecordsIndex) return index.toSnapshot();
  return {
    kind: 'conda-resolve/records-snapshot',
    channel: index.channel,
    subdir: index.subdir,
    entries: [...index.names()].filter((name) => safeHas(index, name)).map((name) => [name, index.records(name)] as const),
  };
}

export function reviveIndex(handle: SharedIndexHandle): SubdirIndex {
  if (handle.kind === 'conda-resolve/records-snapshot') return RecordsIndex.fromSnapshot(handle);
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
