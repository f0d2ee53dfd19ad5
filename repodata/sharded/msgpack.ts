/** msgpack helpers shared by the shard index and the shards (CEP 16). */
import { decode } from '@msgpack/msgpack';

/** Lowercase hex of raw hash bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** A msgpack document that must be a map; `bad` makes the error that names the file. */
export function decodeMap(bytes: Uint8Array, bad: (reason: string, cause?: unknown) => Error): Record<string, unknown> {
  let value: unknown;
  try {
    value = decode(bytes);
  } catch (cause) {
    throw bad(`is not valid msgpack: ${cause instanceof Error ? cause.message : String(cause)}`, cause);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('is not a map');
  return value as Record<string, unknown>;
}
