/**
 * The public API of the repodata layer (`conda-resolve/repodata`): the store that fetches, caches
 * and indexes channels; the parsers and indexes over repodata.json; sharded (CEP 16) repodata; and
 * the typed errors. Internal helpers (the JSON scanner, sidecar encoding, HTTP plumbing) stay
 * unexported here.
 */
export type { ChannelRef, LoadProgress, LoadProgressEvent, SubdirIndex } from './types.js';

// The store: channels + subdirs -> indexes, with the disk and memory caches.
export { RepodataStore, MissingSubdirIndex, dependencyName, defaultCacheDir } from './store.js';
export type { RepodataStoreOptions, LoadOptions } from './store.js';
export { RepodataCache, freshnessMs, isFresh } from './cache.js';
export type { CacheFormat, CacheState } from './cache.js';
export { checkUrlAllowed } from './url-policy.js';
export { ConcurrencyLimit, SharedWork } from './limit.js';
export type { CheckUrl } from './url-policy.js';

// Parsing and indexing one repodata.json.
export { parseRepodata, MAX_REPODATA_VERSION, PACKAGE_SECTIONS } from './parse.js';
export type { ParsedRepodata, RepodataInfo, RepodataSource } from './parse.js';
export { normaliseRecord, recordContext, OversizedRecordError, MAX_RECORD_SPECS, MAX_RECORD_SPEC_CHARS, MAX_RECORD_FIELD_LENGTH } from './record-normalise.js';
export { indexRepodata, reviveSubdirIndex } from './build-index.js';
export type { ShareableSubdirIndex, SharedSubdirIndexHandle } from './build-index.js';
export { LazySubdirIndex, bytesInMemory } from './lazy-index.js';
export { EagerSubdirIndex } from './eager-index.js';
export { loadIndexFromCache, RepodataFile } from './index-file.js';

// Sharded repodata.
export { ShardedSubdirIndex, decodeShardIndex, decodeShard, resolveShardUrls, SHARD_INDEX_FILE } from './shards.js';
export type { ShardIndex, ShardIndexInfo, ShardFetcher, ShardHashes, ShardedRecordsSnapshot } from './shards.js';

// zstd.
export { zstdCompress, zstdDecompress, createZstdDecoder, ZstdDataError } from './zstd.js';

// Errors.
export { RepodataParseError, RepodataVersionError, RepodataIndexUnsupportedError } from './parse-errors.js';
export {
  RepodataFetchError,
  RepodataCorruptError,
  ChannelNotFoundError,
  RepodataOfflineError,
  RepodataUrlRefusedError,
  RepodataCacheError,
  ShardNotLoadedError,
  RepodataStoreClosedError,
} from './fetch-errors.js';
