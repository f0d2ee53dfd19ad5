/**
 * The public API of the repodata layer (`conda-resolve/repodata`):
 * - the `SubdirIndex` seam and the store that fetches, caches and indexes channels (with its disk
 *   cache and the URL policy it consults);
 * - parsing and indexing one repodata.json (the lazy index, the eager parse, the in-memory records
 *   index and its empty form), and handing an index to a worker thread;
 * - sharded (CEP 16) repodata;
 * - the identity of index objects, for keys that must change when an index is reloaded;
 * - the typed errors.
 * Internal helpers (the JSON scanner, sidecar encoding, zstd, the request pool, HTTP plumbing) stay
 * unexported here.
 */
export type { ChannelRef, LoadProgress, LoadProgressEvent, SubdirIndex } from './types.js';
export { indexIdentity } from './index-identity.js';

// The store: channels + subdirs -> indexes, with the disk and memory caches.
export { RepodataStore, DEFAULT_MAX_REPODATA_BYTES, defaultCacheDir } from './store.js';
export type { RepodataStoreOptions, LoadOptions } from './store.js';
export { RepodataCache, freshnessMs, isFresh } from './cache.js';
export type { CacheFormat, CacheState } from './cache.js';
export { checkUrlAllowed } from './url-policy.js';
export type { CheckUrl } from './url-policy.js';

// Parsing and indexing one repodata.json.
export { parseRepodata, MAX_REPODATA_VERSION, PACKAGE_SECTIONS } from './parse.js';
export type { ParsedRepodata, RepodataInfo, RepodataSource } from './parse.js';
export {
  normaliseRecord,
  recordContext,
  OversizedRecordError,
  MAX_RECORD_SPECS,
  MAX_RECORD_SPEC_CHARS,
  MAX_RECORD_FIELD_LENGTH,
} from './record-normalise.js';
export { indexRepodata, reviveSubdirIndex, EagerSubdirIndex } from './monolithic.js';
export type { ShareableSubdirIndex, SharedSubdirIndexHandle } from './monolithic.js';
export { RecordsIndex, emptyIndex } from './records-index.js';
export type { RecordsSnapshot } from './records-index.js';
export { LazySubdirIndex } from './lazy/lazy-subdir-index.js';
export { loadIndexFromCache } from './lazy/cached-repodata.js';

// Sharded repodata.
export { ShardedSubdirIndex } from './sharded/sharded-subdir.js';
export type { ShardFetcher } from './sharded/sharded-subdir.js';
export { decodeShardIndex, resolveShardUrls, SHARD_INDEX_FILE } from './sharded/shard-index.js';
export type { ShardIndex, ShardIndexInfo, ShardHashes } from './sharded/shard-index.js';
export { decodeShard } from './sharded/shard.js';
export { dependencyName } from './sharded/closure.js';

// Errors.
export { RepodataParseError, RepodataVersionError, RepodataIndexUnsupportedError } from './parse-errors.js';
export {
  RepodataFetchError,
  RepodataCorruptError,
  RepodataTooLargeError,
  RepodataTimeoutError,
  ChannelNotFoundError,
  RepodataOfflineError,
  RepodataUrlRefusedError,
  RepodataCacheError,
  ShardNotLoadedError,
  RepodataStoreClosedError,
} from './fetch-errors.js';
export { ZstdDataError } from './zstd.js';

// Python package indexes (the simple repository API): projects, files and core metadata.
export { PypiIndexClient, DEFAULT_INDEX_URL } from './pypi/client.js';
export type { PypiIndexClientOptions, PypiMetadata, MetadataSource } from './pypi/client.js';
export type { PypiFile, PypiProject, ProjectPage, IndexStrategy, Yanked, CoreMetadataAvailability } from './pypi/types.js';
export { parseProjectPage, parseHtmlPage, parseJsonPage, PYPI_ACCEPT } from './pypi/pages.js';
export {
  PypiError,
  PypiFetchError,
  PypiProjectNotFoundError,
  PypiIndexPageError,
  PypiIndexUrlError,
  PypiCorruptError,
  PypiTooLargeError,
  PypiNeedsBuildError,
  PypiOfflineError,
} from './pypi/errors.js';
export { selectFile, releaseFiles } from './pypi/select.js';
export { PypiCache, PYPI_CACHE_FOLDER, PYPI_CACHE_SUBFOLDERS, isPypiCacheFile } from './pypi/page-cache.js';
export type { SelectOptions } from './pypi/select.js';
