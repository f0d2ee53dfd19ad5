/**
 * A `SubdirIndex` over records already in memory, grouped by name: what an eager parse gives, what
 * a worker thread rebuilds from a snapshot of another index's records, and, with no records, the
 * empty index of a subdir a channel does not have.
 */
import type { PackageRecord } from '../vocabulary/record.js';
import type { ChannelRef, SubdirIndex } from './types.js';

/**
 * The records an index holds, as structured-cloneable data for `postMessage` (a sharded index
 * sends the names it has fetched this way).
 */
export interface RecordsSnapshot {
  readonly kind: 'conda-resolve/records-snapshot';
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly entries: readonly (readonly [string, readonly PackageRecord[]])[];
}

const EMPTY: readonly PackageRecord[] = Object.freeze([]);

export class RecordsIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly recordCount: number;
  readonly #byName: ReadonlyMap<string, readonly PackageRecord[]>;

  /** `byName` is kept, not copied; names map to non-empty lists. */
  constructor(channel: ChannelRef, subdir: string, byName: ReadonlyMap<string, readonly PackageRecord[]>) {
    this.channel = channel;
    this.subdir = subdir;
    this.#byName = byName;
    let count = 0;
    for (const records of byName.values()) count += records.length;
    this.recordCount = count;
  }

  /** Group `records` by name, each name's records in the order given. */
  static fromRecords(channel: ChannelRef, subdir: string, records: Iterable<PackageRecord>): RecordsIndex {
    return new RecordsIndex(channel, subdir, groupByName(records));
  }

  /** Rebuild an index in this thread from a snapshot made in another. */
  static fromSnapshot(snapshot: RecordsSnapshot): RecordsIndex {
    return new RecordsIndex(snapshot.channel, snapshot.subdir, new Map(snapshot.entries));
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

  toSnapshot(): RecordsSnapshot {
    return { kind: 'conda-resolve/records-snapshot', channel: this.channel, subdir: this.subdir, entries: [...this.#byName] };
  }
}

/** name -> records, each name's records in the order given. */
export function groupByName(records: Iterable<PackageRecord>): Map<string, PackageRecord[]> {
  const byName = new Map<string, PackageRecord[]>();
  for (const record of records) {
    const list = byName.get(record.name);
    if (list) list.push(record);
    else byName.set(record.name, [record]);
  }
  return byName;
}

const NO_RECORDS: ReadonlyMap<string, readonly PackageRecord[]> = new Map();

/** The index of a subdir the channel does not have: no names, no records. */
export function emptyIndex(channel: ChannelRef, subdir: string): RecordsIndex {
  return new RecordsIndex(channel, subdir, NO_RECORDS);
}
