/**
 * One HTTP(S) subdir between the network and the disk cache: revalidate or download it, commit what
 * arrived, open the index of what the cache holds, fetch its shards. The store decides when; this
 * module does the I/O. Formats are tried in order: CEP 16 shards, the format that answered last time
 * (with its validators, so a 304 keeps the copy), `repodata.json.zst`, `repodata.json`. A download is
 * indexed as it streams to a temp file and committed only when it indexes; each failure is a typed
 * error naming the channel and subdir and leaves the cache as it was. undici is imported only when a
 * request is about to be made, so a resolve from a fresh cache never loads it.
 */
import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import type { NetworkPolicy } from './net/network.js';
import type { Channel } from '../vocabulary/channel.js';
import type { CacheFormat, CacheState, RepodataCache } from './cache.js';
import { corruptFromParse, RepodataCorruptError, RepodataOfflineError } from './fetch-errors.js';
import type { DownloadRules, FetchContext, HttpResponse } from './fetch.js';
import type { DecodedBytesMeter } from './decoding-budget.js';
import { loadIndexFromCache } from './lazy/cached-repodata.js';
import { LazySubdirIndex } from './lazy/lazy-subdir-index.js';
import { DownloadIndexer, keepSidecar, openScannedIndex } from './lazy/stream-index.js';
import type { ConcurrencyLimit } from './limit.js';
import { RepodataParseError } from './parse-errors.js';
import { MAX_SHARD_BYTES, shardMatchesHash } from './sharded/shard.js';
import { decodeShardIndex, MAX_SHARD_INDEX_BYTES, resolveShardUrls, SHARD_INDEX_FILE } from './sharded/shard-index.js';
import { ShardedSubdirIndex, type ShardFetcher } from './sharded/sharded-subdir.js';
import { channelRef, type LoadProgress, type LoadProgressEvent, type SubdirIndex } from './types.js';
import { checkUrlAllowed, type CheckUrl } from './url-policy.js';
import { preloadZstd, zstdDecompress } from './zstd.js';

export interface RemoteSubdirsOptions {
  readonly cache: RepodataCache;
  /** The store's pool: every request of the store runs in it. */
  readonly limit: ConcurrencyLimit;
  readonly now: () => number;
  /** Shards are read from the cache only. */
  readonly offline: boolean;
  /** Ask channels for `repodata_shards.msgpack.zst` first. */
  readonly shards: boolean;
  /** How a cached monolithic index holds its bytes (`RepodataStoreOptions.indexBytes`). */
  readonly indexBytes: 'memory' | 'positional';
  readonly maxRepodataBytes: number;
  readonly checkUrl: CheckUrl | undefined;
  readonly downloadRules: DownloadRules | undefined;
  readonly onProgress: LoadProgress | undefined;
  /** A dispatcher of the caller's (kept open on `close`); else one is made on first use. */
  readonly dispatcher: Dispatcher | undefined;
  /** Mirrors, stored credentials and retries for every request. */
  readonly network?: NetworkPolicy | undefined;
  /** How long a download holds its slot in the pool before it steps aside (`DEFAULT_STEP_ASIDE_MS`). */
  readonly stepAsideMs: number;
}

/** A committed cache state, with the index when the download was indexed on the way. */
export interface FetchedSubdir {
  readonly state: CacheState;
  readonly index?: SubdirIndex;
}

type FetchFormat = Exclude<CacheFormat, 'missing'>;

/** One format of one subdir being asked for (`fetch` -> `#receive`). */
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

type HttpModule = typeof import('./fetch.js');

const FORMAT_FILES: Record<FetchFormat, string> = { shards: SHARD_INDEX_FILE, zst: 'repodata.json.zst', json: 'repodata.json' };
/** How long a repodata download holds its slot in the store's pool before stepping aside. */
export const DEFAULT_STEP_ASIDE_MS = 3000;
/** A day: how long "this channel serves no shard index" is remembered. */
const SHARDS_ABSENT_RECHECK_MS = 24 * 60 * 60 * 1000;

export class RemoteSubdirs {
  readonly #options: RemoteSubdirsOptions;
  readonly #cache: RepodataCache;
  #dispatcher: Dispatcher | undefined;

  constructor(options: RemoteSubdirsOptions) {
    this.#options = options;
    this.#cache = options.cache;
    this.#dispatcher = options.dispatcher;
  }

  /** Close the HTTP client, if this module made it. */
  async close(): Promise<void> {
    if (this.#options.dispatcher === undefined && this.#dispatcher) await this.#dispatcher.close();
  }

  /**
   * Revalidate or download one subdir and commit the answer. Returns the committed state, with the
   * index when the download was indexed on the way (a monolithic file is indexed before it is
   * committed, so a document that does not parse never enters the cache). All formats answering
   * 404 commits a `missing` state.
   */
  async fetch(
    channel: Channel,
    subdir: string,
    key: string,
    state: CacheState | null,
    signal: AbortSignal | undefined,
    meter?: DecodedBytesMeter,
  ): Promise<FetchedSubdir> {
    // Every format but plain JSON needs zstd: on a first fetch its codec loads while the HTTP client
    // does. A revalidation usually ends in 304s and needs none: it loads the codec if data comes
    // (loading it anyway kept such a run ~170 ms past its answer, waiting on V8's optimising
    // compile of the decoder in the background; bench/RESULTS.md).
    if (state === null) preloadZstd();
    const { http, context } = await this.#net(channel, subdir, signal, meter);
    const now = this.#options.now();
    const probeShards =
      this.#options.shards &&
      (state === null ||
        state.format === 'shards' ||
        state.shardsAbsentAt === null ||
        now - state.shardsAbsentAt > SHARDS_ABSENT_RECHECK_MS);
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
      const attempt = (): Promise<'missing' | FetchedSubdir> =>
        this.#download(async (): Promise<'missing' | FetchedSubdir> => {
          const response = await http.httpGet(context, url, { validators });
          // Whatever happens below (a cache that cannot be written, a bad document), the body is
          // finished or dropped: a body left unread would hold its connection and slot forever.
          try {
            return await this.#receive(http, { channel, subdir, key, state, context, format, url, shardsAbsentAt }, response);
          } finally {
            response.body.destroy();
          }
        }, context.signal);
      let outcome: 'missing' | FetchedSubdir;
      // A body cut off midway is asked for again from the start (its temp file was discarded, so
      // the cache never holds a mix of two answers), as many times as the network policy allows.
      for (let tries = 0; ; tries++) {
        try {
          outcome = await attempt();
          break;
        } catch (error) {
          if (!http.isInterruptedBody(error) || !(await context.network?.retryBody(tries, url, (error as Error).message, context.signal)))
            throw error;
        }
      }
      if (outcome !== 'missing') return outcome;
      if (format === 'shards') shardsAbsentAt = this.#options.now();
    }
    // 404 in every format: the channel has no such subdir. Remembered like any other answer.
    const missing = await this.#cache.commitBytes(key, 'missing', new Uint8Array(0), {
      url: channel.publicSubdirUrl(subdir),
      format: 'missing',
      sourceUrl: `${channel.publicSubdirUrl(subdir)}/repodata.json`,
      etag: null,
      lastModified: null,
      cacheControl: null,
      fetchedAt: this.#options.now(),
      shardsAbsentAt,
    });
    return { state: missing };
  }

  /**
   * The index of a committed state of a format with data (not `missing`). A monolithic document's
   * package base (`info.base_url`) and a sharded one's URLs go past the URL policy first.
   */
  async open(channel: Channel, subdir: string, state: CacheState, previous: SubdirIndex | undefined): Promise<SubdirIndex> {
    if (state.format === 'shards') return this.#openSharded(channel, subdir, state, previous);
    const index = loadIndexFromCache({
      jsonPath: this.#cache.dataPath(state),
      source: { channel: channelRef(channel), subdir },
      bytes: this.#options.indexBytes,
    }).index;
    await this.checkPackageBases(channel, subdir, index);
    return index;
  }

  /** Ask the URL policy about where the records of a monolithic index point. */
  async checkPackageBases(channel: Channel, subdir: string, index: SubdirIndex): Promise<void> {
    const checkUrl = this.#options.checkUrl;
    if (!checkUrl) return;
    const policy = { channel: channel.name, subdir, checkUrl };
    for (const base of packageBases(index, channel.publicSubdirUrl(subdir))) await checkUrlAllowed(policy, base);
  }

  /** The HTTP module and a dispatcher, loaded on first use. */
  async #net(
    channel: Channel,
    subdir: string,
    signal: AbortSignal | undefined,
    meter?: DecodedBytesMeter,
  ): Promise<{ http: HttpModule; context: FetchContext }> {
    const http = await import('./fetch.js');
    this.#dispatcher ??= http.createDefaultDispatcher();
    return {
      http,
      context: {
        channel: channel.name,
        subdir,
        dispatcher: this.#dispatcher,
        checkUrl: this.#options.checkUrl,
        signal,
        rules: this.#options.downloadRules,
        network: this.#options.network,
        meter,
      },
    };
  }

  /**
   * One HTTP exchange in the store's pool. One still running after a few seconds (a server slow to
   * answer, a long or trickling body) moves from its slot to the pool's aside budget: a slow server
   * then delays only the requests that wait for it, while quick channels keep the slots.
   */
  async #download<T>(task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    return this.#options.limit.run(async (stepAside) => {
      const slow = setTimeout(stepAside, this.#options.stepAsideMs);
      try {
        return await task();
      } finally {
        clearTimeout(slow);
      }
    }, signal);
  }

  #progress(
    channel: Channel,
    subdir: string,
    phase: LoadProgressEvent['phase'],
    extra: Omit<LoadProgressEvent, 'channel' | 'subdir' | 'phase'> = {},
  ): void {
    this.#options.onProgress?.({ channel: channel.name, url: channel.baseUrl, subdir, phase, ...extra });
  }

  /** What one response of `fetch` means: a missing format, a revalidated or a new cache state. */
  async #receive(http: HttpModule, attempt: FetchAttempt, response: HttpResponse): Promise<'missing' | FetchedSubdir> {
    const { failForStatus, readBodyBytes } = http;
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
      fetchedAt: this.#options.now(),
    };
    if (response.status === 304 && state && state.format === format) {
      await response.body.dump();
      this.#progress(channel, subdir, 'cache', { bytes: state.size, totalBytes: state.size, cache: 'revalidated' });
      const updated = await this.#cache.updateState(key, {
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
        throw new RepodataCorruptError(channel.name, subdir, `bad zstd data in ${SHARD_INDEX_FILE}: ${(cause as Error).message}`, {
          url,
          cause,
        });
      }
      decodeShardIndex(raw, channel.name, subdir);
      return { state: await this.#cache.commitBytes(key, 'shards.msgpack', raw, { ...fields, shardsAbsentAt: null }) };
    }
    return this.#receiveDocument(http, attempt, response, fields);
  }

  /**
   * A repodata.json (or .zst) answered 200: stream it to a temp file, indexing each chunk as it is
   * written, and commit it only once it indexed.
   */
  async #receiveDocument(
    http: HttpModule,
    attempt: FetchAttempt,
    response: HttpResponse,
    fields: Omit<CacheState, 'version' | 'dataFile' | 'mtimeMs' | 'size' | 'sha256' | 'shardsAbsentAt'>,
  ): Promise<FetchedSubdir> {
    const { channel, subdir, key, context, format, shardsAbsentAt } = attempt;
    const writer = await this.#cache.createWriter(key);
    const source = { channel: channelRef(channel), subdir };
    const corrupt = (error: RepodataParseError) =>
      corruptFromParse(channel.name, subdir, error.message, { url: fields.sourceUrl, cause: error });
    // Each chunk goes through the scanner as it arrives and to the temp file behind it: the index is
    // ready when the last byte is written, and a broken document stops the download at once.
    const plainLength = format === 'json' && response.contentEncoding === null ? (response.contentLength ?? undefined) : undefined;
    // A large document is hashed on a worker thread; small ones (most channels' noarch) inline.
    const large = (response.contentLength ?? Infinity) >= (plainLength === undefined ? 1 << 20 : 8 << 20);
    const indexer = new DownloadIndexer(writer, source, plainLength, large);
    let committed = false;
    try {
      let document;
      try {
        await http.streamBody(context, response, {
          decoding: format === 'zst' ? 'zstd' : 'identity',
          maxOutputBytes: this.#options.maxRepodataBytes,
          hash: false,
          // Plain JSON is scanned inside the network's data callback (no queue, no batch copies).
          synchronous: true,
          onData: (chunk) => indexer.push(chunk),
          onProgress: (received, total) => this.#progress(channel, subdir, 'fetch', { bytes: received, totalBytes: total ?? undefined }),
        });
        document = await indexer.finish();
      } catch (error) {
        indexer.abort();
        if (error instanceof RepodataParseError) throw corrupt(error);
        throw error;
      }
      const { tables } = document;
      await writer.close();
      // Only a document that indexed is committed; the index then reads the committed file.
      const saved = await this.#cache.commit(key, writer, 'json', {
        ...fields,
        size: document.size,
        sha256: document.sha256,
        shardsAbsentAt,
      });
      committed = true;
      const dataPath = this.#cache.dataPath(saved);
      const index = await openScannedIndex(dataPath, tables, source, this.#options.indexBytes, `${dataPath}.index`);
      this.#progress(channel, subdir, 'index', { records: index.recordCount });
      keepSidecar(`${dataPath}.index`, tables);
      return { state: saved, index };
    } finally {
      if (!committed) await writer.discard();
    }
  }

  /** A sharded subdir from its cached shard index; the shards it reuses from `previous` stay. */
  async #openSharded(channel: Channel, subdir: string, state: CacheState, previous: SubdirIndex | undefined): Promise<ShardedSubdirIndex> {
    const raw = await readFile(this.#cache.dataPath(state));
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
      fetchShard: this.#shardFetcher(channel, subdir, shardsBase),
    });
  }

  /** Shards from the cache (forever, by hash), else from `shardsBase`, checked and then cached. */
  #shardFetcher(channel: Channel, subdir: string, shardsBase: string): ShardFetcher {
    return async (sha256, name, { signal, bypassCache }) => {
      if (!bypassCache) {
        const cached = await this.#cache.readShard(sha256);
        if (cached) return { bytes: cached, fromCache: true };
      }
      if (this.#options.offline) throw new RepodataOfflineError(channel.name, subdir);
      // The HTTP client is loaded only when a shard is not in the cache.
      const { http, context } = await this.#net(channel, subdir, signal);
      const url = `${shardsBase}${sha256}.msgpack.zst`;
      const bytes = await this.#download(async () => {
        const response = await http.httpGet(context, url);
        try {
          if (response.status !== 200) return http.failForStatus(context, response);
          return await http.readBodyBytes(context, response, MAX_SHARD_BYTES);
        } finally {
          response.body.destroy();
        }
      }, signal);
      if (!(await shardMatchesHash(bytes, sha256))) {
        throw new RepodataCorruptError(channel.name, subdir, `the shard of "${name}" does not match its hash ${sha256}`, { url });
      }
      // Written while the records are used (atomically: a temp file renamed into place).
      return { bytes, fromCache: false, saved: this.#cache.writeShard(sha256, bytes) };
    };
  }
}

/**
 * Where the records of a monolithic index point other than the subdir itself (which the policy saw
 * as a request URL): `info.base_url`. The lazy index read it while scanning; another index is
 * asked through its records' URLs.
 */
function packageBases(index: SubdirIndex, publicSubdirUrl: string): string[] {
  const own = `${publicSubdirUrl}/`;
  if (index instanceof LazySubdirIndex) {
    const baseUrl = index.info.baseUrl;
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
