/**
 * Memory that worker threads can share: typed arrays over a SharedArrayBuffer where the platform
 * has one (an ArrayBuffer otherwise), so repodata bytes and index tables cross to a worker without
 * a copy.
 */
/** Allocate over a SharedArrayBuffer where the platform has one, so the tables can be shared. */
function sharedBuffer(byteLength: number): ArrayBufferLike {
  return typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(byteLength) : new ArrayBuffer(byteLength);
}

export function sharedUint32(length: number): Uint32Array {
  return new Uint32Array(sharedBuffer(length * 4));
}

export function sharedInt32(length: number): Int32Array {
  return new Int32Array(sharedBuffer(length * 4));
}

export function sharedUint8(length: number): Uint8Array {
  return new Uint8Array(sharedBuffer(length));
}

/** Copy bytes into shared memory (a no-op when they already are). */
export function toSharedBytes(bytes: Uint8Array): Uint8Array {
  if (typeof SharedArrayBuffer !== 'function' || bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const shared = sharedUint8(bytes.length);
  shared.set(bytes);
  return shared;
}
