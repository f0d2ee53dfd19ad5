/**
 * One shard (CEP 16): `<shards_base_url><sha256 hex>.msgpack.zst`, zstd-compressed msgpack
 * `{packages, "packages.conda", removed}` with records as in repodata.json except `md5`/`sha256`,
 * which are raw bytes. Shards are content-addressed, so they are immutable and cached forever by hash.
 *
 * Which bytes the hash covers differs between writers (conda-index hashes the uncompressed msgpack,
 * other tools the compressed file), so a shard is accepted when either matches. A shard matching
 * neither is corrupt: it is not cached and the load fails.
 *
 * Records go through the same normaliser as repodata.json records (`record-normalise.ts`), so a
 * sharded channel and its monolithic form give identical `PackageRecord`s, in the same order
 * (`packages` before `packages.conda`, each in document order, `removed` dropped).
 */
import { createHash } from 'node:crypto';
import type { PackageRecord } from '../../vocabulary/record.js';
import { RepodataCorruptError } from '../fetch-errors.js';
import { normaliseRecordOrSkip, type RecordContext } from '../record-normalise.js';
import { zstdDecompress } from '../zstd.js';
import { decodeMap, toHex } from './msgpack.js';

/** Decoded shards are capped (the largest conda-forge shard is about 2.6 MB). */
export const MAX_SHARD_BYTES = 64 * 1024 * 1024;

/**
 * Whether `compressed` is the shard named by `sha256` (the hash of either the compressed or the
 * decompressed bytes). False for bytes that are not even zstd.
 */
export async function shardMatchesHash(compressed: Uint8Array, sha256: string): Promise<boolean> {
  if (createHash('sha256').update(compressed).digest('hex') === sha256) {
    verified.set(compressed, { sha256, raw: null });
    return true;
  }
  try {
    const raw = await zstdDecompress(compressed, { maxOutputBytes: MAX_SHARD_BYTES });
    if (createHash('sha256').update(raw).digest('hex') !== sha256) return false;
    verified.set(compressed, { sha256, raw });
    return true;
  } catch {
    return false;
  }
}

/**
 * Shards `shardMatchesHash` accepted, with their decompressed bytes when it had to make them: the
 * fetcher checks a shard before caching it and hands the same bytes to `decodeShard`, which then
 * neither hashes nor decompresses them again.
 */
const verified = new WeakMap<Uint8Array, { readonly sha256: string; readonly raw: Buffer | null }>();

/** Check a shard's bytes against the hash the index names, and decode it into records. */
export async function decodeShard(
  compressed: Uint8Array,
  sha256: string,
  name: string,
  context: RecordContext,
  where: { channel: string; subdir: string },
): Promise<PackageRecord[]> {
  const bad = (detail: string, cause?: unknown): RepodataCorruptError =>
    new RepodataCorruptError(where.channel, where.subdir, `the shard of "${name}" (${sha256}) ${detail}`, { cause });
  const known = verified.get(compressed);
  verified.delete(compressed);
  const checked = known !== undefined && known.sha256 === sha256;
  let raw: Buffer;
  if (checked && known.raw) {
    raw = known.raw;
  } else {
    try {
      raw = await zstdDecompress(compressed, { maxOutputBytes: MAX_SHARD_BYTES });
    } catch (cause) {
      throw bad(`is not valid zstd: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
    }
  }
  if (
    !checked &&
    createHash('sha256').update(compressed).digest('hex') !== sha256 &&
    createHash('sha256').update(raw).digest('hex') !== sha256
  ) {
    throw bad('does not match its hash');
  }
  const shard = decodeMap(raw, bad);
  const removed = new Set<string>();
  if (Array.isArray(shard.removed)) for (const fn of shard.removed) if (typeof fn === 'string') removed.add(fn);
  const records: PackageRecord[] = [];
  for (const section of ['packages', 'packages.conda'] as const) {
    const entries = shard[section];
    if (entries === undefined || entries === null) continue;
    if (typeof entries !== 'object' || Array.isArray(entries)) throw bad(`has a "${section}" that is not a map`);
    for (const [fn, entry] of Object.entries(entries as Record<string, unknown>)) {
      if (removed.has(fn)) continue;
      const record = normaliseRecordOrSkip(hexDigests(entry), fn, context);
      if (record === null) continue; // over a bound: left out
      // A shard holds one name; a record of another name would be served under the wrong name.
      if (record.name !== name) throw bad(`holds "${fn}" named "${record.name}"`);
      records.push(record);
    }
  }
  return records;
}

/** Shards carry md5/sha256 as raw bytes; the normaliser reads repodata.json's hex strings. */
function hexDigests(entry: unknown): unknown {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const record = entry as Record<string, unknown>;
  const md5 = record.md5;
  const sha256 = record.sha256;
  if (!(md5 instanceof Uint8Array) && !(sha256 instanceof Uint8Array)) return entry;
  return {
    ...record,
    md5: md5 instanceof Uint8Array ? toHex(md5) : md5,
    sha256: sha256 instanceof Uint8Array ? toHex(sha256) : sha256,
  };
}
