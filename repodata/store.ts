/**
 * The repodata store: turns (channel, subdir) into a `SubdirIndex`, through the disk cache and the
 * network, and keeps what it loaded in memory for the next request of a long-running process.
 *
 * Per HTTP(S) subdir, in order:
 * 1. In memory and still fresh (Cache-Control max-age, else `ttlSeconds`): use it, no I/O at all.
 * 2. On disk (`cache.ts`) and fresh, or `offline`: index the cached file (the lazy index reads its
 *    sidecar, so a warm start does not even scan), unless memory already holds the index of the same
 *    content (same sha256): then only the state is refreshed.
 * 3. Otherwise revalidate or fetch, trying the sharded index (CEP 16) first, then
 *    `repodata.json.zst`, then `repodata.json`; a format that answered once is asked next time
 *    with its ETag / Last-Modified, and a 304 keeps the cached copy. A channel found to serve no
 *    shards is not asked again for a day. A downloaded repodata.json is streamed (through zstd) to a
 *    temp file and indexed there; only a document that indexes is committed to the cache, and the
 *    index built on the way is the one returned (no second scan). The scan checks the document's
 *    structure (truncation, garbage, broken separators: reported with their byte offset); a syntax
 *    error inside one record's object is reported when that record is first read, naming the
 *    channel, subdir and byte, since checking every record up front would cost a full parse.
 * Each failure is a typed error naming the channel and subdir, and leaves the cache as it was.
 * A subdir answering 404 in every format is empty (conda treats a missing subdir so), and that
 * answer is cached like any other (so a server does not probe three URLs per request); a channel
 * whose platform subdir and noarch are both missing is an error (`ChannelNotFoundError`).
 *
 * `file://` and local path channels are read in place (`repodata.json`, else `.zst`), re-indexed
 * only when the file's size or mtime change.
 *
 * For sharded channels `prepare` fetches the shards of every name reachable from the root names
 * through `depends` (of every record of every reached name, in every channel and subdir of the
 * request), so the solver can then read records synchronously. Each name is expanded as soon as
 * its shards arrive. Shards are cached forever by hash.
 *
 * Concurrent loads of the same subdir (and fetches of the same shard) share one run, which stops
 * only when every caller waiting for it has given up (`SharedWork`): one caller's abort never fails
 * another. A `prepare` over the same index objects and roots as an earlier one does not walk the
 * shard closure again. Network requests of the whole store go through one bounded pool
 * (`concurrency`); `close()` stops loads still running. The HTTP client (undici, ~0.1 s to load) is
 * imported only when a request is about to be made, so a resolve from a fresh cache or a local
 * channel never pays for it.
 */
import { readFile, rename, stat, unlink } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Dispatcher } from 'undici';
import type { Channel } from '../vocabulary/channel.js';
import { tryParseMatchSpec } from '../vocabulary/match-spec.js';
import type { PackageRecord } from '../vocabulary/record.js';
import { indexRepodata } from './build-index.js';
import { defaultCacheDir, isFresh, RepodataCache, type CacheFormat, type CacheState } from './cache.js';
import {
  ChannelNotFoundError,
  RepodataCorruptError,
  RepodataFetchError,
  RepodataOfflineError,
  RepodataStoreClosedError,
  RepodataTooLargeError,
} from './fetch-errors.js';
import type { DownloadRules, FetchContext, HttpResponse } from './fetch.js';
import { checkUrlAllowed, type CheckUrl } from './url-policy.js';
import { sharedUint8 } from './index-tables.js';
import { loadIndexFromCache, writeIndexSidecar } from './index-file.js';
import { scanOnWorker, WORKER_SCAN_BYTES } from './index-scan.js';
import { LazySubdirIndex } from './lazy-index.js';
import { ConcurrencyLimit, SharedWork } from './limit.js';
import { describeSource, RepodataParseError } from './parse-errors.js';
import { decodeShardIndex, MAX_SHARD_BYTES, MAX_SHARD_INDEX_BYTES, resolveShardUrls, SHARD_INDEX_FILE, shardMatchesHash, ShardedSubdirIndex } from './shards.js';
import type { ChannelRef, LoadProgress, SubdirIndex } from './types.js';
import { zstdDecompress, ZstdDataError } from './zstd.js';

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
  /** A downloaded repodata.json at least this large is indexed on a worker thread; default `WORKER_SCAN_BYTES`. */
  readonly workerScanBytes?: number;
}

export interface LoadOptions {
  readonly signal?: AbortSignal | undefined;
}

interface MemoryEntry {
  readonly index: SubdirIndex;
  /** For HTTP subdirs: the state the index was built from (its sha256 is the validator). */
  state: CacheState | null;
  /** For local subdirs: size and mtime of the file. */
  readonly stamp: string | null;
}

/** How long a repodata download holds its slot in the store's pool before stepping aside. */
const STEP_ASIDE_MS = 3000;
/** A day: how long "this channel serves no shard index" is remembered. */
const SHARDS_ABSENT_RECHECK_MS = 24 * 60 * 60 * 1000;
/**
 * The default cap on one subdir's decoded repodata.json: conda-forge's largest subdir is about
 * 250 MB today, so 1 GiB leaves room to grow while a decompression bomb stops early.
 */
export const DEFAULT_MAX_REPODATA_BYTES = 1024 * 1024 * 1024;
/** Index sets whose completed closures are remembered (a server sees few distinct channel lists). */
const MAX_REMEMBERED_CLOSURES = 1024;
/** A process-wide identity for index objects, for keys of index sets. */
const indexIds = new WeakMap<SubdirIndex, number>();
let nextIndexId = 1;

type FetchFormat = Exclude<CacheFormat, 'missing'>;

/** One format of one subdir being asked for (`#fetch` -> `#receive`). */
interface FetchAttempt {
  readonly channel: Channel;
  readonly subdir: string;
  readonly key: string;
  /** The cached state before this fetch, if any. */
  readonly state: CacheState | null;
  readonly context: FetchContext;
  readonly format: FetchFormat;
  readonly url: string;
  readonly shardsAbsentAt: number | null;
}

const FORMAT_FILES: Record<FetchFormat, string> = { shards: SHARD_INDEX_FILE, zst: 'repodata.json.zst', json: 'repodata.json' };
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The index of a subdir the channel does not have (404 on every repodata file); `load` returns null for it. */
export class MissingSubdirIndex implements SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  readonly recordCount = 0;

  constructor(channel: ChannelRef, subdir: string) {
    this.channel = channel;
    this.subdir = subdir;
  }

  names(): Iterable<string> {
    return [];
  }

  has(): boolean {
    return false;
  }

  records(): readonly PackageRecord[] {
    return [];
  }
}

export class RepodataStore {
  readonly cache: RepodataCache;
  readonly #options: RepodataStoreOptions;
  #dispatcher: Dispatcher | undefined;
  readonly #ownsDispatcher: boolean;
  readonly #limit: ConcurrencyLimit;
  readonly #memory = new Map<string, MemoryEntry>();
  readonly #loads = new SharedWork<string, SubdirIndex | null>();
  /** Root names whose shard closure is complete, per set of index objects (see `prepare`). */
  readonly #closures = new Map<string, Set<string>>();
  readonly #refreshed = new Set<string>();
  readonly #now: () => number;
  readonly #maxBytes: number;
  readonly #workerScanBytes: number;

  constructor(options: RepodataStoreOptions) {
    this.#maxBytes = options.maxRepodataBytes ?? DEFAULT_MAX_REPODATA_BYTES;
    this.#workerScanBytes = options.workerScanBytes ?? WORKER_SCAN_BYTES;
    this.#options = options;
    this.cache = new RepodataCache(options.cacheDir);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher;
    this.#limit = new ConcurrencyLimit(options.concurrency ?? 8);
    this.#now = options.now ?? Date.now;
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
    const loaded = await Promise.all(channels.flatMap((channel) => subdirs.map((subdir) => this.load(channel, subdir, options))));
    const indexes: SubdirIndex[] = [];
    channels.forEach((channel, c) => {
      const row = loaded.slice(c * subdirs.length, (c + 1) * subdirs.length);
      if (row.every((index) => index === null)) throw new ChannelNotFoundError(channel.name, subdirs, channel.baseUrl);
      row.forEach((index, s) => indexes.push(index ?? emptyIndex(channel, subdirs[s]!)));
    });
    if (indexes.some((index) => index instanceof ShardedSubdirIndex)) {
      // The same indexes were already completed for these roots (a server's next request): the
      // closure cannot have grown, since indexes are immutable and shards only get added.
      const setKey = this.#indexSetKey(indexes);
      let done = this.#closures.get(setKey);
      const roots = done ? rootNames.filter((name) => !done!.has(name)) : rootNames;
      if (roots.length === 0) return indexes;
      await prefetchClosure(indexes, roots, options.signal);
      if (this.#closures.size >= MAX_REMEMBERED_CLOSURES) this.#closures.clear();
      if (!done) this.#closures.set(setKey, (done = new Set()));
      for (const name of roots) done.add(name);
      for (const index of indexes) {
        if (index instanceof ShardedSubdirIndex) {
          this.#options.onProgress?.({ channel: index.channel.name, subdir: index.subdir, phase: 'done', records: index.recordCount });
        }
      }
    }
    return indexes;
  }

  /**
   * One subdir's index, or null when the channel does not have that subdir. Concurrent calls for
   * the same subdir share one load; a caller whose signal aborts stops waiting at once, and the load
   * itself stops only when every caller waiting for it has given up.
   */
  load(channel: Channel, subdir: string, options: LoadOptions = {}): Promise<SubdirIndex | null> {
    const key = this.#key(channel, subdir);
    return this.#loads.run(
      key,
      (signal) => (channel.kind === 'file' ? this.#loadLocal(channel, subdir, key) : this.#loadRemote(channel, subdir, key, signal)),
      options.signal,
    );
  }

  /** Stop loads still running, drop the indexes held in memory, close the HTTP client. */
  async close(): Promise<void> {
    this.#loads.abortAll(new RepodataStoreClosedError());
    this.#memory.clear();
    if (this.#ownsDispatcher && this.#dispatcher) await this.#dispatcher.close();
  }

  /** The HTTP module and a dispatcher, loaded on first use. */
  async #net(channel: Channel, subdir: string, signal: AbortSignal | undefined): Promise<{ http: typeof import('./fetch.js'); context: FetchContext }> {
    const http = await import('./fetch.js');
    this.#dispatcher ??= http.createDefaultDispatcher();
    return {
      http,
      context: { channel: channel.name, subdir, dispatcher: this.#dispatcher, checkUrl: this.#options.checkUrl, signal, rules: this.#options.downloadRules },
    };
  }

  /** Identity of the indexes that can contribute records (empty ones are made afresh each time). */
  #indexSetKey(indexes: readonly SubdirIndex[]): string {
    return indexes
      .filter((index) => index instanceof ShardedSubdirIndex || index.recordCount > 0)
      .map((index) => {
        let id = indexIds.get(index);
        if (id === undefined) indexIds.set(index, (id = nextIndexId++));
        return id;
      })
      .join(',');
  }

  #key(channel: Channel, subdir: string): string {
    const secret = channel.credentials ? JSON.stringify(channel.credentials) : null;
    return this.cache.entryKey(channel.name, subdir, channel.publicSubdirUrl(subdir), secret);
  }

  #remember(key: string, entry: MemoryEntry): void {
    this.#memory.delete(key);
    this.#memory.set(key, entry);
    const max = this.#options.maxIndexes ?? 64;
    while (this.#memory.size > max) this.#memory.delete(this.#memory.keys().next().value as string);
  }

  #progress(channel: Channel, subdir: string, phase: 'fetch' | 'cache' | 'index' | 'done', extra: { bytes?: number; totalBytes?: number; records?: number } = {}): void {
    this.#options.onProgress?.({ channel: channel.name, subdir, phase, ...extra });
  }

  // ---- local channels -------------------------------------------------------------------------

  async #loadLocal(channel: Channel, subdir: string, key: string): Promise<SubdirIndex | null> {
    const dir = `${fileURLToPath(channel.baseUrl)}/${subdir}`;
    for (const [file, zst] of [
      ['repodata.json', false],
      ['repodata.json.zst', true],
    ] as const) {
      const path = `${dir}/${file}`;
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) continue;
      const stamp = `${file}:${info.size}:${info.mtimeMs}`;
      const known = this.#memory.get(key);
      if (known && known.stamp === stamp) {
        this.#remember(key, known);
        return known.index;
      }
      this.#progress(channel, subdir, 'cache', { bytes: info.size, totalBytes: info.size });
      if (!zst && info.size > this.#maxBytes) throw new RepodataTooLargeError(channel.name, subdir, this.#maxBytes, { url: path });
      let bytes: Uint8Array;
      try {
        const raw = await readFile(path);
        bytes = zst ? await zstdDecompress(raw, { maxOutputBytes: this.#maxBytes }) : raw;
      } catch (error) {
        if (error instanceof RepodataFetchError) throw error;
        if (error instanceof ZstdDataError && error.tooLarge) throw new RepodataTooLargeError(channel.name, subdir, this.#maxBytes, { url: path });
        const code = (error as { code?: unknown })?.code;
        if (code === 'ZSTD_DATA' || (error as Error)?.name === 'ZstdDataError') {
          throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${file}`, { cause: error });
        }
        throw new RepodataFetchError(channel.name, subdir, `cannot read ${file}: ${typeof code === 'string' ? code : String(error)}`, { cause: error });
      }
      const index = indexRepodata(toShared(bytes), { channel: channelRef(channel), subdir });
      this.#progress(channel, subdir, 'done', { records: index.recordCount });
      this.#remember(key, { index, state: null, stamp });
      return index;
    }
    return null;
  }

  // ---- HTTP channels --------------------------------------------------------------------------

  async #loadRemote(channel: Channel, subdir: string, key: string, signal: AbortSignal | undefined): Promise<SubdirIndex | null> {
    const now = this.#now();
    const ttl = this.#options.ttlSeconds ?? 60;
    const mustRefresh = this.#options.refresh === true && !this.#refreshed.has(key);
    const known = this.#memory.get(key);
    if (known?.state && !mustRefresh && (this.#options.offline || isFresh(known.state, ttl, now))) {
      this.#remember(key, known);
      return present(known.index);
    }

    let state = await this.cache.readState(key);
    if (state && state.format !== 'missing') state = await this.cache.checkData(key, state);
    if (state && (this.#options.offline || (!mustRefresh && isFresh(state, ttl, now)))) {
      this.#progress(channel, subdir, 'cache', { bytes: state.size, totalBytes: state.size });
      return present(await this.#indexFromState(channel, subdir, key, state));
    }
    if (this.#options.offline) throw new RepodataOfflineError(channel.name, subdir);

    const { http, context } = await this.#net(channel, subdir, signal);
    const fetched = await this.#fetch(http, channel, subdir, key, state, context);
    this.#refreshed.add(key);
    return present(await this.#indexFromState(channel, subdir, key, fetched.state, fetched.index));
  }

  /**
   * Revalidate or download. Returns the committed state, with the index when the download was
   * indexed on the way (a monolithic file is indexed before it is committed, so a document that
   * does not parse never enters the cache). All formats answering 404 commits a `missing` state.
   */
  async #fetch(
    http: typeof import('./fetch.js'),
    channel: Channel,
    subdir: string,
    key: string,
    state: CacheState | null,
    context: FetchContext,
  ): Promise<{ state: CacheState; index?: SubdirIndex }> {
    const { httpGet } = http;
    const now = this.#now();
    const probeShards =
      this.#options.shards !== false &&
      (state === null || state.format === 'shards' || state.shardsAbsentAt === null || now - state.shardsAbsentAt > SHARDS_ABSENT_RECHECK_MS);
    // The shard index first when it is (re)checked, then the format that answered last time (with
    // its validators), then the rest.
    const formats: FetchFormat[] = probeShards ? ['shards'] : [];
    if (state && state.format !== 'missing' && !formats.includes(state.format)) formats.push(state.format);
    for (const format of ['zst', 'json'] as const) if (!formats.includes(format)) formats.push(format);
    // A cached monolithic state that is not re-probed for shards keeps its verdict.
    let shardsAbsentAt: number | null = state && !probeShards ? state.shardsAbsentAt : null;

    for (const format of formats) {
      const url = `${channel.subdirUrl(subdir)}/${FORMAT_FILES[format]}`;
      const validators = state && state.format === format ? { etag: state.etag, lastModified: state.lastModified } : undefined;
      const outcome = await this.#download(async (): Promise<'missing' | { state: CacheState; index?: SubdirIndex }> => {
        const response = await httpGet(context, url, { validators });
        // Whatever happens below (a cache that cannot be written, a bad document), the body is
        // finished or dropped: a body left unread would hold its connection and slot forever.
        try {
          return await this.#receive(http, { channel, subdir, key, state, context, format, url, shardsAbsentAt }, response);
        } finally {
          response.body.destroy();
        }
      }, context.signal);
      if (outcome !== 'missing') return outcome;
      if (format === 'shards') shardsAbsentAt = this.#now();
    }
    // 404 in every format: the channel has no such subdir. Remembered like any other answer.
    const writer = await this.cache.createWriter(key);
    const missing = await this.cache.commit(key, writer, 'missing', {
      url: channel.publicSubdirUrl(subdir),
      format: 'missing',
      sourceUrl: `${channel.publicSubdirUrl(subdir)}/repodata.json`,
      etag: null,
      lastModified: null,
      cacheControl: null,
      fetchedAt: this.#now(),
      size: 0,
      sha256: EMPTY_SHA256,
      shardsAbsentAt,
    });
    return { state: missing };
  }

  /**
   * One HTTP exchange in the store's pool. One still running after a few seconds (a server slow to
   * answer, a long or trickling body) moves from its slot to the pool's aside budget: a slow server
   * then delays only the requests that wait for it, while quick channels keep the slots.
   */
  async #download<T>(task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return this.#limit.run(async (stepAside) => {
      const slow = setTimeout(stepAside, STEP_ASIDE_MS);
      try {
        return await task();
      } finally {
        clearTimeout(slow);
      }
    }, signal);
  }

  /** What one response of `#fetch` means: a missing format, a revalidated or a new cache state. */
  async #receive(http: typeof import('./fetch.js'), attempt: FetchAttempt, response: HttpResponse): Promise<'missing' | { state: CacheState; index?: SubdirIndex }> {
    const { failForStatus, readBodyBytes, streamBody } = http;
    const { channel, subdir, key, state, context, format, url, shardsAbsentAt } = attempt;
    // The optional formats count as "not served" on any client error but auth and rate limits.
    const absent =
      response.status === 404 ||
      response.status === 410 ||
      (format !== 'json' && response.status >= 400 && response.status < 500 && ![401, 403, 407, 429].includes(response.status));
    if (absent) {
      await response.body.dump();
      return 'missing';
    }
    const fields = {
      url: channel.publicSubdirUrl(subdir),
      format,
      sourceUrl: `${channel.publicSubdirUrl(subdir)}/${FORMAT_FILES[format]}`,
      etag: response.etag,
      lastModified: response.lastModified,
      cacheControl: response.cacheControl,
      fetchedAt: this.#now(),
    };
    if (response.status === 304 && state && state.format === format) {
      await response.body.dump();
      this.#progress(channel, subdir, 'cache', { bytes: state.size, totalBytes: state.size });
      const updated = await this.cache.updateState(key, {
        ...state,
        ...fields,
        etag: response.etag ?? state.etag,
        lastModified: response.lastModified ?? state.lastModified,
        cacheControl: response.cacheControl ?? state.cacheControl,
        shardsAbsentAt: format === 'shards' ? null : shardsAbsentAt,
      });
      return { state: updated };
    }
    if (response.status !== 200) return failForStatus(context, response);

    if (format === 'shards') {
      // The shard index is small (0.6 MB for conda-forge linux-64): read, check, then cache decompressed.
      const compressed = await readBodyBytes(context, response, MAX_SHARD_INDEX_BYTES);
      this.#progress(channel, subdir, 'fetch', { bytes: compressed.length, totalBytes: compressed.length });
      let raw: Buffer;
      try {
        raw = await zstdDecompress(compressed, { maxOutputBytes: MAX_SHARD_INDEX_BYTES });
      } catch (cause) {
        throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${SHARD_INDEX_FILE}: ${(cause as Error).message}`, { url, cause });
      }
      decodeShardIndex(raw, channel.name, subdir);
      const writer = await this.cache.createWriter(key);
      try {
        await writer.write(raw);
      } catch (error) {
        await writer.discard();
        throw error;
      }
      const { createHash } = await import('node:crypto');
      const committed = await this.cache.commit(key, writer, 'shards.msgpack', {
        ...fields,
        size: raw.length,
        sha256: createHash('sha256').update(raw).digest('hex'),
        shardsAbsentAt: null,
      });
      return { state: committed };
    }

    const writer = await this.cache.createWriter(key);
    let committed = false;
    try {
      const body = await streamBody(context, response, {
        decoding: format === 'zst' ? 'zstd' : 'identity',
        maxOutputBytes: this.#maxBytes,
        onData: (chunk) => writer.write(chunk),
        onProgress: (received, total) => this.#progress(channel, subdir, 'fetch', { bytes: received, totalBytes: total ?? undefined }),
      });
      // Index the temp file before committing it: broken JSON is reported, never cached.
      await writer.close();
      const source = { channel: channelRef(channel), subdir };
      // The parse error's own "Cannot parse repodata for <channel/subdir>: " would repeat what the
      // fetch error says (a pattern up to the first colon stopped inside http://host:port).
      const parsePrefix = `Cannot parse repodata for ${describeSource(channel.name, subdir)}: `;
      const corrupt = (message: string, cause?: unknown) =>
        new RepodataCorruptError(channel.name, subdir, message.startsWith(parsePrefix) ? message.slice(parsePrefix.length) : message, { url: fields.sourceUrl, cause });
      // A large document is scanned on a worker thread, which leaves a sidecar to load from here
      // (and to keep beside the committed file).
      const sidecarPath = `${writer.path}.index`;
      try {
        if (body.size >= this.#workerScanBytes) {
          const outcome = await scanOnWorker({ jsonPath: writer.path, sidecarPath, source });
          if (outcome.kind === 'parse-error') throw corrupt(outcome.message);
        }
        let loaded;
        try {
          loaded = loadIndexFromCache({ jsonPath: writer.path, sidecarPath, source, writeSidecar: false });
        } catch (error) {
          if (error instanceof RepodataParseError) throw corrupt(error.message, error);
          throw error;
        }
        this.#progress(channel, subdir, 'index', { records: loaded.index.recordCount });
        const saved = await this.cache.commit(key, writer, 'json', { ...fields, size: body.size, sha256: body.sha256, shardsAbsentAt });
        committed = true;
        // The sidecar goes beside the committed file (the worker's as it is); failing to put it
        // there is not an error: the next cold start scans again.
        const finalSidecar = `${this.cache.dataPath(saved)}.index`;
        if (loaded.from === 'sidecar') {
          await rename(sidecarPath, finalSidecar).catch(() => undefined);
        } else if (loaded.index instanceof LazySubdirIndex) {
          try {
            writeIndexSidecar(finalSidecar, loaded.index.tables);
          } catch {
            // See above.
          }
        }
        return { state: saved, index: loaded.index };
      } finally {
        await unlink(sidecarPath).catch(() => undefined);
      }
    } finally {
      if (!committed) await writer.discard();
    }
  }

  async #indexFromState(
    channel: Channel,
    subdir: string,
    key: string,
    state: CacheState,
    built?: SubdirIndex,
  ): Promise<SubdirIndex> {
    const known = this.#memory.get(key);
    if (!built && known?.state && known.state.sha256 === state.sha256 && known.state.format === state.format) {
      // Same content as the index in memory (a 304, or another process refreshed the state): no re-parse.
      known.state = state;
      this.#remember(key, known);
      return known.index;
    }
    const ref = channelRef(channel);
    let index: SubdirIndex;
    if (state.format === 'missing') {
      index = new MissingSubdirIndex(ref, subdir);
    } else if (state.format === 'shards') {
      index = await this.#shardedIndex(channel, subdir, state, known?.index);
    } else {
      index =
        built ??
        loadIndexFromCache({
          jsonPath: this.cache.dataPath(state),
          source: { channel: ref, subdir },
          bytes: this.#options.indexBytes ?? 'memory',
        }).index;
      if (this.#options.checkUrl) {
        const policy = { channel: channel.name, subdir, checkUrl: this.#options.checkUrl };
        for (const base of packageBases(index, channel.publicSubdirUrl(subdir))) await checkUrlAllowed(policy, base);
      }
    }
    if (!(index instanceof ShardedSubdirIndex)) this.#progress(channel, subdir, 'done', { records: index.recordCount });
    this.#remember(key, { index, state, stamp: null });
    return index;
  }

  async #shardedIndex(channel: Channel, subdir: string, state: CacheState, previous: SubdirIndex | undefined): Promise<ShardedSubdirIndex> {
    const raw = await readFile(this.cache.dataPath(state));
    const shardIndex = decodeShardIndex(raw, channel.name, subdir);
    const publicIndexUrl = `${channel.publicSubdirUrl(subdir)}/${SHARD_INDEX_FILE}`;
    const { packageBase, shardsBase: publicShardsBase } = resolveShardUrls(shardIndex.info, publicIndexUrl, channel.name, subdir);
    const { shardsBase } = resolveShardUrls(shardIndex.info, `${channel.subdirUrl(subdir)}/${SHARD_INDEX_FILE}`, channel.name, subdir);
    const policy = { channel: channel.name, subdir, checkUrl: this.#options.checkUrl };
    await checkUrlAllowed(policy, packageBase);
    await checkUrlAllowed(policy, publicShardsBase);
    return new ShardedSubdirIndex({
      channel: channelRef(channel),
      subdir,
      index: shardIndex,
      packageBase,
      previous: previous instanceof ShardedSubdirIndex ? previous : undefined,
      onProgress: this.#options.onProgress,
      fetchShard: async (sha256, name, { signal: shardSignal, bypassCache }) => {
        if (!bypassCache) {
          const cached = await this.cache.readShard(sha256);
          if (cached) return { bytes: cached, fromCache: true };
        }
        if (this.#options.offline) throw new RepodataOfflineError(channel.name, subdir);
        // The HTTP client is loaded only when a shard is not in the cache.
        const { http, context: shardContext } = await this.#net(channel, subdir, shardSignal);
        const { failForStatus, httpGet, readBodyBytes } = http;
        const url = `${shardsBase}${sha256}.msgpack.zst`;
        const bytes = await this.#download(async () => {
          const response = await httpGet(shardContext, url);
          try {
            if (response.status !== 200) return failForStatus(shardContext, response);
            return await readBodyBytes(shardContext, response, MAX_SHARD_BYTES);
          } finally {
            response.body.destroy();
          }
        }, shardSignal);
        if (!(await shardMatchesHash(bytes, sha256))) {
          throw new RepodataCorruptError(channel.name, subdir, `the shard of "${name}" does not match its hash ${sha256}`, { url });
        }
        await this.cache.writeShard(sha256, bytes);
        return { bytes, fromCache: false };
      },
    });
  }
}

/**
 * Where the records of a monolithic index point other than the subdir itself (which the policy saw
 * as a request URL): `info.base_url`. The lazy index read it while scanning; an eager parse (the
 * fallback for documents the scan declines) is asked through its records' URLs.
 */
function packageBases(index: SubdirIndex, publicSubdirUrl: string): string[] {
  const own = `${publicSubdirUrl}/`;
  if (index instanceof LazySubdirIndex) {
    const baseUrl = index.tables.info.baseUrl;
    return baseUrl ? [new URL(baseUrl, own).href] : [];
  }
  const bases = new Set<string>();
  for (const name of index.names()) {
    for (const record of index.records(name)) {
      const base = record.url.slice(0, record.url.lastIndexOf('/') + 1);
      if (base !== own) bases.add(base);
    }
  }
  return [...bases];
}

function channelRef(channel: Channel): ChannelRef {
  return { name: channel.name, baseUrl: channel.baseUrl };
}

function toShared(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const out = sharedUint8(bytes.length);
  out.set(bytes);
  return out;
}

/** `load` answers null for a subdir the channel does not have. */
function present(index: SubdirIndex): SubdirIndex | null {
  return index instanceof MissingSubdirIndex ? null : index;
}

/**
 * Fetch the shards of every name reachable from `roots` through `depends`, in every sharded index.
 * Records of monolithic indexes are followed too (their dependencies may be in a sharded channel).
 * Each name is expanded as soon as its own shards are in, so independent branches of the graph
 * overlap instead of waiting for the slowest shard of a breadth-first level.
 */
async function prefetchClosure(indexes: readonly SubdirIndex[], roots: readonly string[], signal: AbortSignal | undefined): Promise<void> {
  const sharded = indexes.filter((index): index is ShardedSubdirIndex => index instanceof ShardedSubdirIndex);
  const seen = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    let pending = 0;
    let failed = false;
    const fail = (error: unknown): void => {
      if (!failed) {
        failed = true;
        reject(error);
      }
    };
    const expand = (name: string): void => {
      for (const index of indexes) {
        if (!index.has(name)) continue;
        for (const record of index.records(name)) {
          for (const dep of record.depends) {
            const depName = dependencyName(dep);
            if (depName !== null) visit(depName);
          }
        }
      }
    };
    const visit = (name: string): void => {
      if (failed || seen.has(name)) return;
      seen.add(name);
      const waits = sharded.filter((index) => index.has(name) && !index.isLoaded(name)).map((index) => index.prefetch([name], { signal }));
      if (waits.length === 0) {
        expand(name);
        return;
      }
      pending += 1;
      Promise.all(waits)
        .then(() => {
          if (!failed) expand(name);
        })
        .catch(fail)
        .finally(() => {
          pending -= 1;
          if (pending === 0 && !failed) resolve();
        });
    };
    try {
      signal?.throwIfAborted();
      for (const name of roots) visit(name);
    } catch (error) {
      fail(error);
      return;
    }
    if (pending === 0 && !failed) resolve();
  });
}

/** `depends` strings repeat thousands of times across records: their names are cached. */
const dependencyNames = new Map<string, string | null>();
const SIMPLE_NAME = /^\s*([^\s=<>!~[\](),|;@*:/]+)/;

/** The package name a `depends` entry refers to (`python >=3.9` -> `python`), or null. */
export function dependencyName(dep: string): string | null {
  let name = dependencyNames.get(dep);
  if (name !== undefined) return name;
  if (dep.includes('::') || dep.includes('/')) {
    // A channel-qualified spec: let the match-spec parser find the name.
    const parsed = tryParseMatchSpec(dep);
    name = parsed && parsed.nameIsExact && parsed.name !== '*' ? parsed.name : null;
  } else {
    name = SIMPLE_NAME.exec(dep)?.[1] ?? null;
  }
  if (dependencyNames.size >= 100_000) dependencyNames.clear();
  dependencyNames.set(dep, name);
  return name;
}

function emptyIndex(channel: Channel, subdir: string): SubdirIndex {
  const none: readonly PackageRecord[] = [];
  return {
    channel: channelRef(channel),
    subdir,
    recordCount: 0,
    names: () => [],
    has: () => false,
    records: () => none,
  };
}
