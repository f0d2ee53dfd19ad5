/**
 * A sharded subdir (CEP 16) as a `SubdirIndex`: the names come from its shard index, the records
 * of a name from its shard, fetched on demand (`prefetch`) and kept.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import { describeSubdir, RepodataCorruptError, ShardNotLoadedError } from '../fetch-errors.js';
import { SharedWork } from '../limit.js';
import { recordContext, type RecordContext } from '../record-normalise.js';
import type { RecordsSnapshot } from '../records-index.js';
import type { ChannelRef, LoadProgress, SubdirIndex } from '../types.js';
import { decodeShard } from './shard.js';
import type { ShardIndex } from './shard-index.js';

/**
 * Where the compressed bytes of a shard come from. Bytes from the network or a local channel must
 * have been checked with `shardMatchesHash` before they were cached; bytes from the cache are
 * checked when decoded, and `bypassCache` asks for a fresh copy after a cached one failed.
 */
export type ShardFetcher = (
  sha256: string,
  name: string,
  options: { readonly signal: AbortSignal | undefined; readonly bypassCache: boolean },
) => Promise<{
  readonly bytes: Uint8Array;
  readonly fromCache: boolean;
  /**
   * The shard being written to the cache, when the fetcher does not wait for it: the records can be
   * used meanwhile, and the closure walk goes on to the next shards (see `prefetch`).
   */
  readonly saved?: Promise<void> | undefined;
}>;

export interface ShardedSubdirIndexOptions {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly index: ShardIndex;
  /** The absolute package base URL (resolved `base_url`, with a trailing slash). */
  readonly packageBase: string;
  readonly fetchShard: ShardFetcher;
  /** Records already decoded for the same shard hashes (an earlier version of this index). */
  readonly previous?: ShardedSubdirIndex | undefined;
  readonly onProgress?: LoadProgress | undefined;
}

const EMPTY: readonly PackageRecord[] = Object.freeze([]);

/**
 * A sharded subdir. `names()`/`has()` answer from the shard index; `records(name)` answers only
 * for names fetched by `prefetch` (the store's `prepare` does it for the closure of the request),
 * and throws `ShardNotLoadedError` otherwise, so a solver can never silently miss records.
 */
export class ShardedSubdirIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly shardIndex: ShardIndex;
  readonly packageBase: string;
  readonly #context: RecordContext;
  readonly #fetchShard: ShardFetcher;
  readonly #onProgress: LoadProgress | undefined;
  /** name -> records, with the hash they were decoded from. */
  readonly #loaded = new Map<string, { sha256: string; records: readonly PackageRecord[] }>();
  /** Shard fetches in flight, shared by concurrent `prefetch` calls (see `SharedWork`). */
  readonly #fetching = new SharedWork<string, void>();
  #recordCount = 0;
  #shardBytes = 0;
  /** Cache writes still running, and the errors of those that failed (reported by `flushSaves`). */
  readonly #saving = new Set<Promise<void>>();
  #saveErrors: unknown[] = [];

  constructor(options: ShardedSubdirIndexOptions) {
    this.channel = options.channel;
    this.subdir = options.subdir;
    this.shardIndex = options.index;
    this.packageBase = options.packageBase;
    this.#fetchShard = options.fetchShard;
    this.#onProgress = options.onProgress;
    this.#context = recordContext(
      { channel: options.channel, subdir: options.subdir },
      { subdir: options.subdir, baseUrl: options.packageBase, repodataVersion: 2, removed: [] },
    );
    if (options.previous) {
      for (const [name, entry] of options.previous.#loaded) {
        if (options.index.shards.get(name) === entry.sha256) {
          this.#loaded.set(name, entry);
          this.#recordCount += entry.records.length;
        }
      }
    }
  }

  get recordCount(): number {
    return this.#recordCount;
  }

  names(): Iterable<string> {
    return this.shardIndex.shards.keys();
  }

  has(name: string): boolean {
    return this.shardIndex.shards.has(name);
  }

  /** Whether `records(name)` can answer without fetching. */
  isLoaded(name: string): boolean {
    return this.#loaded.has(name) || !this.shardIndex.shards.has(name);
  }

  /** The names whose shards have been fetched. */
  loadedNames(): Iterable<string> {
    return this.#loaded.keys();
  }

  /**
   * A structured-cloneable snapshot of the fetched records, for worker threads: the
   * `conda-resolve/records-snapshot` handle that `src/solving/shared-index.ts` revives. (Without it, a
   * snapshot built by probing `records()` of every listed name would throw once per unfetched name.)
   */
  toShared(): RecordsSnapshot {
    return {
      kind: 'conda-resolve/records-snapshot',
      channel: this.channel,
      subdir: this.subdir,
      entries: [...this.#loaded].map(([name, entry]) => [name, entry.records] as const),
    };
  }

  records(name: string): readonly PackageRecord[] {
    const entry = this.#loaded.get(name);
    if (entry) return entry.records;
    if (!this.shardIndex.shards.has(name)) return EMPTY;
    throw new ShardNotLoadedError(this.channel.name, this.subdir, name);
  }

  /**
   * Fetch the shards of `names` that this subdir has and that are not loaded yet. A shard another
   * call is already fetching is waited for, not fetched twice; `signal` ends this call's wait, and
   * the fetch itself only once no call waits for it any more.
   *
   * Resolves once the shards are also in the cache, unless `deferCaching`: then the caller (a
   * closure walk, which would otherwise wait for a disk write before asking for the next level)
   * calls `flushSaves` when it is done.
   */
  async prefetch(names: Iterable<string>, options: { signal?: AbortSignal | undefined; deferCaching?: boolean } = {}): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const name of names) {
      if (this.isLoaded(name)) continue;
      waits.push(this.#fetching.run(name, (signal) => this.#load(name, signal), options.signal));
    }
    // Wait for all, then report the first failure (so no request is left running unobserved).
    const results = await Promise.allSettled(waits);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (options.deferCaching !== true) await this.flushSaves();
  }

  /** Wait for the cache writes of fetched shards; throws the first that failed since the last call. */
  async flushSaves(): Promise<void> {
    while (this.#saving.size > 0) await Promise.all(this.#saving);
    const [error] = this.#saveErrors;
    this.#saveErrors = [];
    if (error !== undefined) throw error;
  }

  #trackSave(saved: Promise<void>): void {
    const tracked: Promise<void> = saved.then(
      () => void this.#saving.delete(tracked),
      (error: unknown) => {
        this.#saving.delete(tracked);
        this.#saveErrors.push(error);
      },
    );
    this.#saving.add(tracked);
  }

  async #load(name: string, signal: AbortSignal): Promise<void> {
    const sha256 = this.shardIndex.shards.get(name)!;
    const where = { channel: this.channel.name, subdir: this.subdir };
    const first = await this.#fetchShard(sha256, name, { signal, bypassCache: false });
    if (first.saved) this.#trackSave(first.saved);
    let bytes = first.bytes;
    let records: PackageRecord[];
    try {
      records = await decodeShard(bytes, sha256, name, this.#context, where);
    } catch (error) {
      // A damaged cache copy is replaced, never used; a bad copy from the source is an error.
      if (!first.fromCache || !(error instanceof RepodataCorruptError)) throw error;
      const again = await this.#fetchShard(sha256, name, { signal, bypassCache: true });
      if (again.saved) this.#trackSave(again.saved);
      bytes = again.bytes;
      records = await decodeShard(bytes, sha256, name, this.#context, where);
    }
    if (this.#loaded.has(name)) return;
    this.#loaded.set(name, { sha256, records });
    this.#recordCount += records.length;
    this.#shardBytes += bytes.length;
    this.#onProgress?.({
      channel: this.channel.name,
      subdir: this.subdir,
      phase: 'shards',
      bytes: this.#shardBytes,
      records: this.#recordCount,
    });
  }

  toString(): string {
    return `sharded ${describeSubdir(this.channel.name, this.subdir)}`;
  }
}
