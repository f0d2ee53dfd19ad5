/**
 * A UUID derived from the document's content (the bytes of a name-based UUID, RFC 9562 section 5.8,
 * from SHA-256): the same packages give the same serial number and namespace, so an SBOM committed
 * beside a lock changes only when the lock does.
 */
import { createHash } from 'node:crypto';

export function contentUuid(content: string): string {
  const bytes = createHash('sha256').update(content).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8: custom
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
