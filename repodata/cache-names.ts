/**
 * The names of the files the cache writes in each of its folders (repodata/cache.ts and
 * repodata/local-channel.ts name them): `cache clean` removes only files named so, and a cache
 * folder made before markers existed is adopted only when it holds nothing else.
 */

/** The temp-file suffix every cache writer adds (`.<pid>.<random or time>.tmp`). */
const TEMP_SUFFIX = String.raw`(\.\d+\.[0-9a-f]+\.tmp)?`;
/** `<key>.state.json`, `<key>.<sha16>.{json,shards.msgpack,missing}` with the JSON's sidecars, and temp files (repodata/cache.ts). */
const REPODATA_FILE = new RegExp(
  String.raw`^[A-Za-z0-9._-]*-[a-z0-9_-]+-[0-9a-f]{16}\.(state\.json|[0-9a-f]{16}\.(json(\.index(\.records)?)?|shards\.msgpack|missing))${TEMP_SUFFIX}$|^[A-Za-z0-9._-]*-[a-z0-9_-]+-[0-9a-f]{16}\.\d+\.[0-9a-f]+\.tmp$`,
);
const SHARD_FILE = new RegExp(String.raw`^[0-9a-f]{64}\.msgpack\.zst${TEMP_SUFFIX}$`);

/** Whether `name` is a file the cache writes in `repodata/` (cache clean removes only these there). */
export function isRepodataCacheFile(name: string): boolean {
  return REPODATA_FILE.test(name);
}

/** Whether `name` is a file the cache writes in `shards/`. */
export function isShardCacheFile(name: string): boolean {
  return SHARD_FILE.test(name);
}

/** `<path digest>-<stamp digest>.{index,index.records,json}` and their temp files (repodata/local-channel.ts `sidecarNames`). */
const LOCAL_FILE = /^[0-9a-f]{16}-[0-9a-f]{16}\.(index(\.records)?|json)(\.\d+\.[0-9a-f]+\.tmp)?$/;

/** Whether `name` is a file the cache writes in `local/` (cache clean removes only these there). */
export function isLocalCacheFile(name: string): boolean {
  return LOCAL_FILE.test(name);
}

/** `<url digest>.{json,state.json}` and their temp files (src/pypi-mapping/remote.ts). */
const PYPI_MAPPING_FILE = /^[0-9a-f]{16}\.(state\.)?json(\.\d+\.[0-9a-f]+\.tmp)?$/;

/** Whether `name` is a file the cache writes in `pypi-mapping/`. */
export function isPypiMappingCacheFile(name: string): boolean {
  return PYPI_MAPPING_FILE.test(name);
}
