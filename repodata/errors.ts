/**
 * The codes repodata/ throws, and what each means (merged into `ErrorCodes`). The error classes are
 * in fetch-errors.ts (fetching and caching) and parse-errors.ts (parsing and indexing).
 */
export const REPODATA_ERROR_CODES = {
  CR_ERR_REPODATA_FETCH: 'Repodata could not be downloaded: an HTTP status, a connection failure.',
  CR_ERR_REPODATA_CORRUPT:
    'Downloaded repodata is not what it claims to be (truncated zstd, bad msgpack, a shard whose hash does not match, a body shorter than announced).',
  CR_ERR_REPODATA_TOO_LARGE: 'A repodata document decodes to more than the configured cap (a decompression bomb or the wrong file).',
  CR_ERR_REPODATA_TIMEOUT: 'A repodata download broke its time or rate rule.',
  CR_ERR_REPODATA_CHANNEL_NOT_FOUND: 'Neither the platform subdir nor noarch of a channel exists.',
  CR_ERR_REPODATA_OFFLINE: 'Offline mode is on and the cache has no copy of a subdir.',
  CR_ERR_REPODATA_URL_REFUSED: "The store's checkUrl policy refused a URL.",
  CR_ERR_REPODATA_CACHE: 'The repodata cache directory cannot be used.',
  CR_ERR_REPODATA_SHARD_NOT_LOADED: 'A sharded index was asked for a name it was not prepared for (a programming error).',
  CR_ERR_REPODATA_STORE_CLOSED: 'The store was closed while a load was running.',
  CR_ERR_REPODATA_PARSE: 'A repodata document is not valid (not JSON, wrong shape, a record without a name).',
  CR_ERR_REPODATA_VERSION: 'A repodata document declares a repodata_version newer than 2.',
  CR_ERR_REPODATA_RECORD_TOO_LARGE: 'A repodata record is larger than the bound on one record.',
  CR_ERR_REPODATA_INDEX_UNSUPPORTED:
    'A lazy index sidecar or its tables do not fit the document (damaged, stale, another platform); the caller scans again.',
  CR_ERR_REPODATA_ZSTD: 'A zstd stream cannot be decoded.',
} as const;

export type RepodataErrorCode = keyof typeof REPODATA_ERROR_CODES;

type RepodataErrorCodes = typeof REPODATA_ERROR_CODES;

declare module '../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends RepodataErrorCodes {}
}
