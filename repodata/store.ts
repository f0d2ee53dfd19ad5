/**
 * The repodata store: (channel, subdir) -> `SubdirIndex`, through memory, the disk cache and the
 * network, deciding when to do I/O (the I/O is in `remote-subdir.ts`, `local-channel.ts` and
 * `sharded/closure.ts`). Per HTTP subdir: fresh in memory, use it; fresh on disk or offline, open the
 * cached index; otherwise revalidate or fetch. A subdir missing in every format is empty, as in conda;
 * a channel missing both its platform subdir and noarch is `ChannelNotFoundError`. Concurrent loads of
 * one subdir share one run (`SharedWork`), so one caller's abort never fails another.
 */
import type { Dispatcher } from 'undici';
import type { Channel } from '../vocabulary/channel.js';
import { defaultCacheDir, isFresh, RepodataCache, type CacheState } from './cache.js';
import { ChannelNotFoundError, RepodataOfflineError, RepodataStoreClosedError } from './fetch-errors.js';
import type { DownloadRules } from './fetch.js';
import { findLocalRepodata, indexLocalRepodata } from './local-channel.js';
import { ConcurrencyLimit, SharedWork } from './limit.js';
import { emptyIndex } from './records-index.js';
import { DEFAULT_STEP_ASIDE_MS, RemoteSubdirs } from './remote-subdir.js';
import { followSignal } from './follow-signal.js';
import { DecodingMeter, type DecodingBudget } from './decoding-budget.js';
import { ShardClosures } from './sharded/closure.js';
import { ShardedSubdirIndex } from './sharded/sharded-subdir.js';
import { channelRef, type LoadProgress, type LoadProgressEvent, type SubdirIndex } from './types.js';
import type { CheckUrl } from './url-policy.js';
import type { NetworkPolicy } from './net/network.js';

export { defaultCacheDir };

export interface RepodataStoreOptions {
  readonly cacheDir: string;
  /** Use the cache only; a subdir that was never fetched is an error. */
  readonly offline?: boolean;
  /** Revalidate every subdir once now, whatever its freshness. */
  readonly refresh?: boolean;
  /** Freshness when the server sends no `max-age`; default 60 s. */
  readonly ttlSeconds?: number;
  /** Network requests at once, over all channels, subdirs and shards; default 8. */
  readonly concurrency?: number;
  readonly onProgress?: LoadProgress | undefined;
  /** Channel policy: called with every URL before it is requested, and with base URLs inside repodata. */
  readonly checkUrl?: CheckUrl | undefined;
  readonly dispatcher?: Dispatcher;
  /** Mirrors, stored credentials and retries (`net/network.ts`). */
  readonly network?: NetworkPolicy;
  /** Ask channels for `repodata_shards.msgpack.zst` first; default true. */
  readonly shards?: boolean;
  /**
   * How a cached monolithic index holds its bytes: `memory` reads the file into shared memory (what
   * worker threads need), `positional` reads only the records asked for (fastest for one solve).
   */
  readonly indexBytes?: 'memory' | 'positional';
  /** Subdir indexes kept in memory (least recently used dropped first); default 64. */
  readonly maxIndexes?: number;
  readonly now?: () => number;
  /** Stop a subdir whose repodata.json decodes to more than this; default `DEFAULT_MAX_REPODATA_BYTES`. */
  readonly maxRepodataBytes?: number;
  /** Time and rate rules of each download (`DEFAULT_DOWNLOAD_RULES` where unset). */
  readonly downloadRules?: DownloadRules;
  /**
   * How long a slow download holds its slot in the network pool before it moves aside so other
   * subdirs can start; default `DEFAULT_STEP_ASIDE_MS` (3 s). Tests shorten it.
   */
  readonly stepAsideMs?: number;
}

export interface LoadOptions {
  readonly signal?: AbortSignal | undefined;
  /**
   * The request's own decoding budget (`decoding-budget.ts`): the loads it waits for are charged to
   * it; once it is spent they fail with `RepodataRequestBudgetError`, other requests' loads go on.
   */
  readonly budget?: DecodingBudget | undefined;
}

interface MemoryEntry {
  /** Null for a subdir the channel does not have. */
  readonly index: SubdirIndex | null;
  /** For HTTP subdirs: the state the index was built from (its sha256 is the validator). */
  state: CacheState | null;
  /** For local subdirs: file, size and mtime. */
  readonly stamp: string | null;
  /** For local subdirs: when the file was last looked at (`#now()`). */
  checkedAt?: number;
}

/**
 * A local subdir's file is looked at again at most this often: a server answering hundreds of
 * requests a second for a local channel would otherwise spend a directory read and a stat on each.
 */
const LOCAL_RECHECK_MS = 1000;

/**
 * The default cap on one subdir's decoded repodata.json: conda-forge's largest subdir is about
 * 250 MB today, so 1 GiB leaves room to grow while a decompression bomb stops early.
 */
export const DEFAULT_MAX_REPODATA_BYTES = 1024 * 1024 * 1024;

export class RepodataStore {
  readonly cache: RepodataCache;
  readonly #options: RepodataStoreOptions;
  readonly #remote: RemoteSubdirs;
  readonly #memory = new Map<string, MemoryEntry>();
  /** What each index in memory was built from, for caches shared between processes. */
  readonly #contentIds = new WeakMap<SubdirIndex, string>();
  /** The channel (with its credentials) each index was loaded from, so another process can load it too. */
  readonly #channels = new WeakMap<SubdirIndex, Channel>();
  readonly #loads = new SharedWork<string, SubdirIndex | null>();
  /** The decoded bytes of each load under way, for the budgets of the requests waiting for it. */
  readonly #meters = new Map<string, DecodingMeter>();
  readonly #closures = new ShardClosures();
  readonly #refreshed = new Set<string>();
  readonly #now: () => number;
  readonly #maxBytes: number;

  constructor(options: RepodataStoreOptions) {
    this.#maxBytes = options.maxRepodataBytes ?? DEFAULT_MAX_REPODATA_BYTES;
    this.#options = options;
    this.cache = new RepodataCache(options.cacheDir);
    this.#now = options.now ?? Date.now;
    this.#remote = new RemoteSubdirs({
      cache: this.cache,
      limit: new ConcurrencyLimit(options.concurrency ?? 8),
      now: this.#now,
      offline: options.offline === true,
      shards: options.shards !== false,
      indexBytes: options.indexBytes ?? 'memory',
      maxRepodataBytes: this.#maxBytes,
      stepAsideMs: options.stepAsideMs ?? DEFAULT_STEP_ASIDE_MS,
      checkUrl: options.checkUrl,
      downloadRules: options.downloadRules,
      onProgress: options.onProgress,
      dispatcher: options.dispatcher,
      network: options.network,
    });
  }

  /**
   * The indexes of every (channel, subdir), channel-major (`channels[0]` x `subdirs`, then
   * `channels[1]` ...). Missing subdirs are empty indexes; a channel missing all of them fails.
   * Sharded subdirs come back with the closure of `rootNames` fetched.
   */
  async prepare(
    channels: readonly Channel[],
    subdirs: readonly string[],
    rootNames: readonly string[],
    options: LoadOptions = {},
  ): Promise<SubdirIndex[]> {
    // Every load waits on one follower of the caller's signal (follow-signal.ts). When one fails
    // the answer is that failure: the loads still running are left, and stop unless another caller
    // waits for them (a hostile channel's other subdirs must not decode on for nobody).
    // A spent budget stops them too (and the shard closure below).
    const { signal, unlink, abort } = followSignal(options.signal, options.budget?.signal);
    try {
      const loaded = await Promise.all(
        channels.flatMap((channel) =>
          subdirs.map((subdir) =>
            this.load(channel, subdir, { ...options, signal }).catch((error: unknown) => {
              abort(error);
              throw error;
            }),
          ),
        ),
      );
      const indexes: SubdirIndex[] = [];
      channels.forEach((channel, c) => {
        const row = loaded.slice(c * subdirs.length, (c + 1) * subdirs.length);
        if (row.every((index) => index === null)) throw new ChannelNotFoundError(channel.name, subdirs, channel.baseUrl);
        row.forEach((index, s) => indexes.push(index ?? emptyIndex(channelRef(channel), subdirs[s]!)));
      });
      if (await this.#closures.complete(indexes, rootNames, signal)) {
        for (const index of indexes) {
          if (index instanceof ShardedSubdirIndex) {
            this.#options.onProgress?.({
              channel: index.channel.name,
              url: index.channel.baseUrl,
              subdir: index.subdir,
              phase: 'done',
              records: index.recordCount,
            });
          }
        }
      }
      return indexes;
    } finally {
      unlink();
    }
  }

  /**
   * One subdir's index, or null when the channel does not have that subdir. Concurrent calls for
   * the same subdir share one load; a caller whose signal aborts stops waiting at once, and the load
   * itself stops only when every caller waiting for it has given up.
   */
  load(channel: Channel, subdir: string, options: LoadOptions = {}): Promise<SubdirIndex | null> {
    const key = this.#key(channel, subdir);
    const { budget } = options;
    if (budget?.spent) return Promise.reject(budget.errorFor(channel.name, subdir));
    let meter = this.#meters.get(key);
    if (!meter) {
      meter = new DecodingMeter(channel.name, subdir);
      this.#meters.set(key, meter);
    }
    const joined = meter;
    joined.join(budget);
    return this.#loads
      .run(
        key,
        (signal) =>
          channel.kind === 'file' ? this.#loadLocal(channel, subdir, key) : this.#loadRemote(channel, subdir, key, signal, joined),
        options.signal,
      )
      .then(
        (index) => {
          if (index) this.#channels.set(index, channel);
          return index;
        },
        (error: unknown) => {
          // Named for this subdir, whichever of the request's loads passed the budget.
          throw budget?.spent && error === budget.signal.reason ? budget.errorFor(channel.name, subdir) : error;
        },
      )
      .finally(() => {
        joined.leave(budget);
        if (joined.idle && this.#meters.get(key) === joined) this.#meters.delete(key);
      });
  }

  /** The channel an index this store handed out was loaded from; null for an empty stand-in. */
  sourceChannel(index: SubdirIndex): Channel | null {
    return this.#channels.get(index) ?? null;
  }

  /** Stop loads still running, drop the indexes held in memory, close the HTTP client. */
  async close(): Promise<void> {
    this.#loads.abortAll(new RepodataStoreClosedError());
    this.#memory.clear();
    await this.#remote.close();
  }

  #key(channel: Channel, subdir: string): string {
    const secret = channel.credentials ? JSON.stringify(channel.credentials) : null;
    return this.cache.entryKey(channel.name, subdir, channel.publicSubdirUrl(subdir), secret);
  }

  /**
   * The content identity of an index this store handed out: the sha256 of the repodata (or shard
   * index) it was built from (exact where an ETag or Last-Modified may differ between mirrors), or a
   * local file's stamp (name, size, mtime). Unlike
   * `indexIdentity` it is the same in every process that read the same bytes; null when unknown.
   */
  contentIdentity(index: SubdirIndex): string | null {
    return this.#contentIds.get(index) ?? null;
  }

  #remember(key: string, entry: MemoryEntry): void {
    if (entry.index) {
      const { state, stamp } = entry;
      this.#contentIds.set(entry.index, state ? `sha256:${state.sha256}` : `local:${stamp ?? ''}`);
    }
    this.#memory.delete(key);
    this.#memory.set(key, entry);
    const max = this.#options.maxIndexes ?? 64;
    while (this.#memory.size > max) this.#memory.delete(this.#memory.keys().next().value as string);
  }

  #progress(
    channel: Channel,
    subdir: string,
    phase: LoadProgressEvent['phase'],
    extra: Omit<LoadProgressEvent, 'channel' | 'subdir' | 'phase'> = {},
  ): void {
    this.#options.onProgress?.({ channel: channel.name, url: channel.baseUrl, subdir, phase, ...extra });
  }

  async #loadLocal(channel: Channel, subdir: string, key: string): Promise<SubdirIndex | null> {
    const recent = this.#memory.get(key);
    if (recent?.checkedAt !== undefined && this.#now() - recent.checkedAt < LOCAL_RECHECK_MS) {
      this.#remember(key, recent);
      return recent.index;
    }
    const found = await findLocalRepodata(channel, subdir, this.#options.shards !== false);
    if (!found) return null;
    const known = this.#memory.get(key);
    if (known && known.stamp === found.stamp) {
      known.checkedAt = this.#now();
      this.#remember(key, known);
      return known.index;
    }
    this.#progress(channel, subdir, 'cache', { bytes: found.size, totalBytes: found.size, cache: 'local' });
    const index = await indexLocalRepodata(channel, subdir, found, {
      cacheDir: this.cache.dir,
      maxBytes: this.#maxBytes,
      indexBytes: this.#options.indexBytes ?? 'memory',
      shards: this.#options.shards !== false,
      onProgress: this.#options.onProgress,
    });
    // A sharded subdir reports `done` once the request's closure is fetched (`prepare`).
    if (!(index instanceof ShardedSubdirIndex)) this.#progress(channel, subdir, 'done', { records: index.recordCount });
    this.#remember(key, { index, state: null, stamp: found.stamp, checkedAt: this.#now() });
    return index;
  }

  async #loadRemote(
    channel: Channel,
    subdir: string,
    key: string,
    signal: AbortSignal | undefined,
    meter: DecodingMeter,
  ): Promise<SubdirIndex | null> {
    const now = this.#now();
    const ttl = this.#options.ttlSeconds ?? 60;
    const mustRefresh = this.#options.refresh === true && !this.#refreshed.has(key);
    const known = this.#memory.get(key);
    if (known?.state && !mustRefresh && (this.#options.offline || isFresh(known.state, ttl, now))) {
      this.#remember(key, known);
      return known.index;
    }

    let state = await this.cache.readState(key);
    if (state && state.format !== 'missing') state = await this.cache.checkData(key, state);
    if (state && (this.#options.offline || (!mustRefresh && isFresh(state, ttl, now)))) {
      this.#progress(channel, subdir, 'cache', { bytes: state.size, totalBytes: state.size, cache: 'fresh' });
      return this.#indexFromState(channel, subdir, key, state);
    }
    if (this.#options.offline) throw new RepodataOfflineError(channel.name, subdir);

    const fetched = await this.#remote.fetch(channel, subdir, key, state, signal, meter);
    this.#refreshed.add(key);
    return this.#indexFromState(channel, subdir, key, fetched.state, fetched.index);
  }

  /** The index of a committed state: the one in memory when it has the same content, else opened. */
  async #indexFromState(
    channel: Channel,
    subdir: string,
    key: string,
    state: CacheState,
    built?: SubdirIndex,
  ): Promise<SubdirIndex | null> {
    const known = this.#memory.get(key);
    if (!built && known?.state && known.state.sha256 === state.sha256 && known.state.format === state.format) {
      // Same content as the index in memory (a 304, or another process refreshed the state): no re-parse.
      known.state = state;
      this.#remember(key, known);
      return known.index;
    }
    let index: SubdirIndex | null;
    if (state.format === 'missing') {
      index = null;
    } else if (built) {
      await this.#remote.checkPackageBases(channel, subdir, built);
      index = built;
    } else {
      index = await this.#remote.open(channel, subdir, state, known?.index ?? undefined);
    }
    if (!(index instanceof ShardedSubdirIndex)) this.#progress(channel, subdir, 'done', { records: index?.recordCount ?? 0 });
    this.#remember(key, { index, state, stamp: null });
    return index;
  }
}
