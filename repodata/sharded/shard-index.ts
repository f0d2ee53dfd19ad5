/**
 * The shard index of one subdir (CEP 16): `<subdir>/repodata_shards.msgpack.zst`, zstd-compressed
 * msgpack `{version, info: {base_url, shards_base_url, subdir, created_at, ...}, shards: {name: <32
 * raw sha256 bytes>}}`. It follows the usual HTTP freshness rules (the cache keeps it decompressed).
 *
 * `base_url` and `shards_base_url` may be absolute or relative to the shard index URL; both are
 * treated as directories (a missing trailing slash is added, as rattler does). An empty or absent
 * `base_url` means the subdir URL itself, like monolithic repodata.
 */
import { createHash } from 'node:crypto';
import { decode } from '@msgpack/msgpack';
import { RepodataCorruptError } from '../fetch-errors.js';
import { decodeMap, toHex } from './msgpack.js';

export const SHARD_INDEX_FILE = 'repodata_shards.msgpack.zst';

/** The conda-forge linux-64 shard index is about 0.6 MB decompressed. */
export const MAX_SHARD_INDEX_BYTES = 256 * 1024 * 1024;

export interface ShardIndexInfo {
  /** As written in the index; resolve with `resolveShardUrls`. */
  readonly baseUrl: string | null;
  readonly shardsBaseUrl: string | null;
  readonly subdir: string | null;
  readonly createdAt: string | null;
}

export interface ShardIndex {
  readonly info: ShardIndexInfo;
  /** Package name -> lowercase hex sha256 of its shard. */
  readonly shards: ShardHashes;
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Package name -> shard hash. A conda-forge index has 25,000+ names and a solve looks up a few
 * hundred, so the fast reader builds no string per name: it keeps where each name's bytes and hash
 * are in the decoded index, in an open-addressing table keyed by a hash of the name's bytes. A name
 * becomes a string only when looked up or listed (building 25,000 strings and a Map of them cost
 * 40-80 ms per decode, and an index is decoded when fetched and again when opened).
 */
export class ShardHashes {
  readonly #bytes: Uint8Array;
  /** Per entry: the byte offset of its name, and the name's byte length (-1: shadowed by a later duplicate). */
  readonly #nameAt: Int32Array;
  readonly #nameLength: Int32Array;
  /** Per entry: the byte offset of its 32 raw hash bytes. */
  readonly #hashAt: Int32Array;
  /** Open addressing: entry number + 1, 0 for an empty slot; its length is a power of two. */
  readonly #table: Int32Array;
  /** Entries the generic decoder made (name -> hex), used instead of the table when set. */
  readonly #map: Map<string, string> | null;
  /** Names looked up so far -> entry number, or -1 for absent. */
  readonly #lookups = new Map<string, number>();
  readonly #size: number;

  private constructor(bytes: Uint8Array, entries: ShardEntries | null, map: Map<string, string> | null) {
    this.#bytes = bytes;
    this.#map = map;
    const count = entries?.count ?? 0;
    this.#nameAt = entries?.nameAt ?? new Int32Array(0);
    this.#nameLength = entries?.nameLength ?? new Int32Array(0);
    this.#hashAt = entries?.hashAt ?? new Int32Array(0);
    let slots = 8;
    while (slots < count * 2) slots *= 2;
    this.#table = new Int32Array(map ? 0 : slots);
    let size = map ? map.size : 0;
    for (let entry = 0; entry < count; entry++) {
      const slot = this.#find(this.#nameAt[entry]!, this.#nameLength[entry]!, bytes);
      const previous = this.#table[slot]!;
      // A repeated name: the later entry wins, as in a generic msgpack decode.
      if (previous !== 0) this.#nameLength[previous - 1] = -1;
      else size += 1;
      this.#table[slot] = entry + 1;
    }
    this.#size = size;
  }

  /** From the fast reader's entry positions. */
  static fromEntries(bytes: Uint8Array, entries: ShardEntries): ShardHashes {
    return new ShardHashes(bytes, entries, null);
  }

  /** From names and lowercase hex hashes. */
  static fromMap(map: Map<string, string>): ShardHashes {
    return new ShardHashes(new Uint8Array(0), null, map);
  }

  get size(): number {
    return this.#size;
  }

  has(name: string): boolean {
    return this.#map ? this.#map.has(name) : this.#entry(name) >= 0;
  }

  /** Lowercase hex sha256 of the shard of `name`, or undefined. */
  get(name: string): string | undefined {
    if (this.#map) return this.#map.get(name);
    const entry = this.#entry(name);
    if (entry < 0) return undefined;
    const at = this.#hashAt[entry]!;
    return toHex(this.#bytes.subarray(at, at + 32));
  }

  *keys(): IterableIterator<string> {
    if (this.#map) {
      yield* this.#map.keys();
      return;
    }
    const text = asBuffer(this.#bytes);
    for (let entry = 0; entry < this.#nameAt.length; entry++) {
      const length = this.#nameLength[entry]!;
      if (length >= 0) yield text.toString('utf8', this.#nameAt[entry]!, this.#nameAt[entry]! + length);
    }
  }

  #entry(name: string): number {
    let entry = this.#lookups.get(name);
    if (entry !== undefined) return entry;
    const key = Buffer.from(name, 'utf8');
    entry = this.#table[this.#find(0, key.length, key)]! - 1;
    // Bounded: a server process looks up names from many requests.
    if (this.#lookups.size >= 100_000) this.#lookups.clear();
    this.#lookups.set(name, entry);
    return entry;
  }

  /** The slot holding the name `source[at, at + length)`, or the empty slot where it would go. */
  #find(at: number, length: number, source: Uint8Array): number {
    // FNV-1a over the name's bytes.
    let hash = 0x811c9dc5;
    for (let i = at; i < at + length; i++) hash = Math.imul(hash ^ source[i]!, 0x01000193);
    const mask = this.#table.length - 1;
    const bytes = this.#bytes;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.#table[slot]!;
      if (held === 0) return slot;
      const entry = held - 1;
      const nameAt = this.#nameAt[entry]!;
      // A shadowed entry's length is -1, so it is never matched (its successor holds the slot).
      if (this.#nameLength[entry] !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (bytes[nameAt + i] !== source[at + i]) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }
}

/** Where the fast reader found each entry of the `shards` map. */
export interface ShardEntries {
  readonly count: number;
  readonly nameAt: Int32Array;
  readonly nameLength: Int32Array;
  readonly hashAt: Int32Array;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Thrown inside the fast reader when the layout is not the expected one (the generic decoder then decides). */
class Unexpected extends Error {}

/**
 * A reader for the one layout CEP 16 writers produce (`{..., info: {...}, shards: {str: bin(32)}}`),
 * recording where each hash is instead of decoding 25,000 small values: ~5x faster than a generic
 * msgpack decode. Returns null for anything else (then the generic decoder reads it).
 */
function readIndexFast(b: Uint8Array): { info: unknown; entries: ShardEntries } | null {
  let pos = 0;
  const text = asBuffer(b);
  const need = (n: number): void => {
    if (pos + n > b.length) throw new Unexpected();
  };
  const u8 = (): number => {
    need(1);
    return b[pos++]!;
  };
  const u16 = (): number => (u8() << 8) | u8();
  const u32 = (): number => ((u8() << 24) | (u8() << 16) | (u8() << 8) | u8()) >>> 0;
  const mapLength = (): number => {
    const t = u8();
    if (t >= 0x80 && t <= 0x8f) return t & 0x0f;
    if (t === 0xde) return u16();
    if (t === 0xdf) return u32();
    throw new Unexpected();
  };
  const strLength = (t: number): number => {
    if (t >= 0xa0 && t <= 0xbf) return t & 0x1f;
    if (t === 0xd9) return u8();
    if (t === 0xda) return u16();
    if (t === 0xdb) return u32();
    return -1;
  };
  const str = (): string => {
    const length = strLength(u8());
    if (length < 0) throw new Unexpected();
    need(length);
    const start = pos;
    pos += length;
    return text.toString('utf8', start, pos);
  };
  /** Skip one value of any type. */
  const skip = (): void => {
    let items = 1;
    while (items > 0) {
      items -= 1;
      const t = u8();
      if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) continue;
      if (t >= 0x80 && t <= 0x8f) items += 2 * (t & 0x0f);
      else if (t >= 0x90 && t <= 0x9f) items += t & 0x0f;
      else if (t === 0xdc) items += u16();
      else if (t === 0xdd) items += u32();
      else if (t === 0xde) items += 2 * u16();
      else if (t === 0xdf) items += 2 * u32();
      else {
        let length = strLength(t);
        if (length < 0) {
          switch (t) {
            case 0xc4:
              length = u8();
              break;
            case 0xc5:
              length = u16();
              break;
            case 0xc6:
              length = u32();
              break;
            case 0xcc:
            case 0xd0:
              length = 1;
              break;
            case 0xcd:
            case 0xd1:
              length = 2;
              break;
            case 0xca:
            case 0xce:
            case 0xd2:
              length = 4;
              break;
            case 0xcb:
            case 0xcf:
            case 0xd3:
              length = 8;
              break;
            case 0xd4:
              length = 2;
              break;
            case 0xd5:
              length = 3;
              break;
            case 0xd6:
              length = 5;
              break;
            case 0xd7:
              length = 9;
              break;
            case 0xd8:
              length = 17;
              break;
            case 0xc7:
              length = u8() + 1;
              break;
            case 0xc8:
              length = u16() + 1;
              break;
            case 0xc9:
              length = u32() + 1;
              break;
            default:
              throw new Unexpected();
          }
        }
        need(length);
        pos += length;
      }
    }
  };
  try {
    let info: unknown = undefined;
    let entries: ShardEntries | null = null;
    for (let n = mapLength(); n > 0; n--) {
      const key = str();
      if (key === 'shards') {
        const count = mapLength();
        // Each entry takes at least 35 bytes (a name header, bin8 header, 32 bytes).
        if (count > (b.length - pos) / 35) throw new Unexpected();
        entries = { count, nameAt: new Int32Array(count), nameLength: new Int32Array(count), hashAt: new Int32Array(count) };
        for (let m = 0; m < count; m++) {
          const length = strLength(u8());
          if (length < 0) throw new Unexpected();
          need(length);
          entries.nameAt[m] = pos;
          entries.nameLength[m] = length;
          pos += length;
          if (u8() !== 0xc4 || u8() !== 32) throw new Unexpected();
          need(32);
          entries.hashAt[m] = pos;
          pos += 32;
        }
      } else if (key === 'info') {
        const start = pos;
        skip();
        info = decode(b.subarray(start, pos));
      } else {
        skip();
      }
    }
    if (pos !== b.length || entries === null) return null;
    return { info, entries };
  } catch (error) {
    if (error instanceof Unexpected || error instanceof TypeError || error instanceof RangeError) return null;
    throw error;
  }
}

/**
 * Indexes decoded lately, by content: a downloaded index is decoded to check it before it is
 * cached, then again when the cache entry is opened, moments later. Hashing the bytes costs a few
 * milliseconds; decoding 25,000 names costs ten times more.
 */
const recentlyDecoded = new Map<string, ShardIndex>();
const RECENTLY_DECODED = 8;

/** Decode a decompressed shard index. Throws `RepodataCorruptError` for anything malformed. */
export function decodeShardIndex(bytes: Uint8Array, channel: string, subdir: string): ShardIndex {
  const key = `${createHash('sha256').update(bytes).digest('hex')} ${channel} ${subdir}`;
  const known = recentlyDecoded.get(key);
  if (known) return known;
  const index = decodeShardIndexUncached(bytes, channel, subdir);
  if (recentlyDecoded.size >= RECENTLY_DECODED) recentlyDecoded.delete(recentlyDecoded.keys().next().value!);
  recentlyDecoded.set(key, index);
  return index;
}

function decodeShardIndexUncached(bytes: Uint8Array, channel: string, subdir: string): ShardIndex {
  const bad = (detail: string, cause?: unknown): RepodataCorruptError =>
    new RepodataCorruptError(channel, subdir, `the shard index ${detail}`, { cause });
  let infoValue: unknown;
  let shards: ShardHashes;
  const fast = readIndexFast(bytes);
  if (fast) {
    infoValue = fast.info ?? {};
    shards = ShardHashes.fromEntries(bytes, fast.entries);
  } else {
    const top = decodeMap(bytes, bad);
    infoValue = top.info ?? {};
    const shardsValue = top.shards;
    if (shardsValue === null || typeof shardsValue !== 'object' || Array.isArray(shardsValue)) throw bad('has no "shards" map');
    const entries = new Map<string, string>();
    for (const [name, hash] of Object.entries(shardsValue as Record<string, unknown>)) {
      if (hash instanceof Uint8Array && hash.length === 32) entries.set(name, toHex(hash));
      else if (typeof hash === 'string' && /^[0-9a-fA-F]{64}$/.test(hash)) entries.set(name, hash.toLowerCase());
      else throw bad(`has an invalid hash for "${name}"`);
    }
    shards = ShardHashes.fromMap(entries);
  }
  if (infoValue === null || typeof infoValue !== 'object' || Array.isArray(infoValue)) throw bad('has an "info" that is not a map');
  const info = infoValue as Record<string, unknown>;
  return {
    info: {
      baseUrl: optionalText(info.base_url),
      shardsBaseUrl: optionalText(info.shards_base_url),
      subdir: optionalText(info.subdir),
      createdAt: optionalText(info.created_at),
    },
    shards,
  };
}

function asDirectory(url: URL): string {
  const href = url.href;
  return href.endsWith('/') ? href : `${href}/`;
}

/**
 * The absolute package base and shards base of a shard index fetched from `indexUrl`.
 * Throws `RepodataCorruptError` when either is not a URL.
 */
export function resolveShardUrls(
  info: ShardIndexInfo,
  indexUrl: string,
  channel: string,
  subdir: string,
): { packageBase: string; shardsBase: string } {
  const resolve = (value: string | null, what: string): string => {
    try {
      return asDirectory(new URL(value && value !== '' ? value : './', indexUrl));
    } catch (cause) {
      throw new RepodataCorruptError(channel, subdir, `the shard index has an invalid ${what} ${JSON.stringify(value)}`, { cause });
    }
  };
  return { packageBase: resolve(info.baseUrl, 'base_url'), shardsBase: resolve(info.shardsBaseUrl, 'shards_base_url') };
}
