/**
 * Reading one member out of a zip (a wheel, a zip sdist) through a `ByteSource` that may be HTTP
 * range requests: the tail holds the end-of-central-directory record, which locates the central
 * directory, which locates the member's local header and data (APPNOTE.TXT 4.3; zip64 records
 * where sizes or offsets overflow 32 bits). This is what pip's and uv's "lazy wheel" do; a wheel
 * writes its `.dist-info` last, so the first tail read usually holds METADATA too.
 *
 * Members are inflated with node:zlib under a cap on the inflated size (a zip bomb stops at the cap,
 * whatever the header claims) and checked against their CRC-32 and declared size.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { PypiCorruptError, PypiTooLargeError } from './errors.js';

/** Random access to a file of known size. */
export interface ByteSource {
  readonly size: number;
  /** Bytes `[offset, offset + length)`; may return more around them only if the caller asked for a range within. */
  read(offset: number, length: number): Promise<Buffer>;
}

export interface ZipEntry {
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly localHeaderOffset: number;
}

/** Who the zip is, for errors. */
export interface ZipLabel {
  readonly project: string;
  readonly filename: string;
  readonly url: string | null;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65,535. */
const MAX_EOCD_SPAN = 22 + 0xffff;
/** The central directory of a wheel with tens of thousands of files is a few MB; more is not a wheel. */
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;

function corrupt(label: ZipLabel, detail: string, cause?: unknown): PypiCorruptError {
  return new PypiCorruptError(`Cannot read ${label.filename} of ${label.project}: ${detail}`, {
    project: label.project,
    url: label.url,
    cause,
  });
}

/** A source that keeps the bytes it fetched from the tail, so the central directory and a member near the end cost no second request. */
export class TailCachedSource implements ByteSource {
  readonly size: number;
  readonly #inner: ByteSource;
  #tailStart: number;
  #tail: Buffer;

  constructor(inner: ByteSource, tail?: { start: number; bytes: Buffer }) {
    this.#inner = inner;
    this.size = inner.size;
    this.#tailStart = tail?.start ?? inner.size;
    this.#tail = tail?.bytes ?? Buffer.alloc(0);
  }

  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.size);
    if (offset >= this.#tailStart) return this.#tail.subarray(offset - this.#tailStart, end - this.#tailStart);
    if (end >= this.#tailStart) {
      // Extend the tail down to `offset`: one request for the gap.
      const gap = await this.#inner.read(offset, this.#tailStart - offset);
      this.#tail = Buffer.concat([gap, this.#tail]);
      this.#tailStart = offset;
      return this.#tail.subarray(0, end - offset);
    }
    return this.#inner.read(offset, end - offset);
  }
}

/** The central directory's entries. */
export async function readCentralDirectory(source: ByteSource, label: ZipLabel): Promise<ZipEntry[]> {
  const span = Math.min(source.size, MAX_EOCD_SPAN);
  if (source.size < 22) throw corrupt(label, `it is ${source.size} bytes, too short to be a zip`);
  const tail = await source.read(source.size - span, span);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
      at = i;
      break;
    }
  }
  if (at < 0) throw corrupt(label, 'it is not a zip file (no end-of-central-directory record)');
  let count = tail.readUInt16LE(at + 10);
  let cdSize = tail.readUInt32LE(at + 12);
  let cdOffset = tail.readUInt32LE(at + 16);
  const eocdOffset = source.size - span + at;
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const locatorAt = eocdOffset - 20;
    const locator = locatorAt >= 0 ? await source.read(locatorAt, 20) : Buffer.alloc(0);
    if (locator.length < 20 || locator.readUInt32LE(0) !== ZIP64_LOCATOR_SIGNATURE) throw corrupt(label, 'its zip64 end record is missing');
    const recordOffset = Number(locator.readBigUInt64LE(8));
    const record = await source.read(recordOffset, 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD_SIGNATURE) throw corrupt(label, 'its zip64 end record is damaged');
    count = Number(record.readBigUInt64LE(32));
    cdSize = Number(record.readBigUInt64LE(40));
    cdOffset = Number(record.readBigUInt64LE(48));
  }
  if (cdSize > MAX_CENTRAL_DIRECTORY) throw corrupt(label, `its central directory claims ${cdSize} bytes`);
  if (cdOffset + cdSize > source.size) throw corrupt(label, 'its central directory lies past the end of the file');
  const cd = await source.read(cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL_SIGNATURE)
      throw corrupt(label, `its central directory is damaged at entry ${k + 1} of ${count}`);
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    if (p + 46 + nameLength + extraLength + commentLength > cd.length)
      throw corrupt(label, `its central directory is cut off at entry ${k + 1}`);
    let uncompressedSize = cd.readUInt32LE(p + 24);
    let compressedSize = cd.readUInt32LE(p + 20);
    let localHeaderOffset = cd.readUInt32LE(p + 42);
    // Zip64 extra field: the 8-byte values, in this order, of those that overflowed.
    const extra = cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength);
    for (let e = 0; e + 4 <= extra.length; ) {
      const id = extra.readUInt16LE(e);
      const size = extra.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        const take = (): number => {
          const value = q + 8 <= e + 4 + size && q + 8 <= extra.length ? Number(extra.readBigUInt64LE(q)) : 0;
          q += 8;
          return value;
        };
        if (uncompressedSize === 0xffffffff) uncompressedSize = take();
        if (compressedSize === 0xffffffff) compressedSize = take();
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = take();
      }
      e += 4 + size;
    }
    entries.push({
      name: cd.toString('utf8', p + 46, p + 46 + nameLength),
      flags: cd.readUInt16LE(p + 8),
      method: cd.readUInt16LE(p + 10),
      crc: cd.readUInt32LE(p + 16),
      compressedSize,
      uncompressedSize,
      localHeaderOffset,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** One member's bytes, inflated under `maxBytes`. */
export async function readZipMember(source: ByteSource, entry: ZipEntry, maxBytes: number, label: ZipLabel): Promise<Buffer> {
  const what = `${entry.name} in ${label.filename} of ${label.project}`;
  if (entry.flags & 1) throw corrupt(label, `${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8)
    throw corrupt(label, `${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`);
  if (entry.uncompressedSize > maxBytes || entry.compressedSize > maxBytes) {
    throw new PypiTooLargeError(`${what} is ${entry.uncompressedSize} bytes, more than the ${maxBytes}-byte limit`, maxBytes, {
      project: label.project,
      url: label.url,
    });
  }
  // The local header's name and extra field may differ in length from the central copy: read it first
  // together with the data (plus room for a longer extra field), then again if that was not enough.
  const guess = 30 + entry.name.length * 4 + 1024 + entry.compressedSize;
  let chunk = await source.read(entry.localHeaderOffset, guess);
  if (chunk.length < 30 || chunk.readUInt32LE(0) !== LOCAL_SIGNATURE) throw corrupt(label, `the local header of ${entry.name} is missing`);
  const dataStart = 30 + chunk.readUInt16LE(26) + chunk.readUInt16LE(28);
  if (chunk.length < dataStart + entry.compressedSize) {
    chunk = await source.read(entry.localHeaderOffset, dataStart + entry.compressedSize);
    if (chunk.length < dataStart + entry.compressedSize) throw corrupt(label, `${entry.name} is cut off`);
  }
  const data = chunk.subarray(dataStart, dataStart + entry.compressedSize);
  let out: Buffer;
  if (entry.method === 0) out = Buffer.from(data);
  else {
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, maxBytes) });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new PypiTooLargeError(`${what} inflates to more than ${maxBytes} bytes, the limit (a zip bomb?)`, maxBytes, {
          project: label.project,
          url: label.url,
        });
      }
      throw corrupt(label, `${entry.name} cannot be inflated`, error);
    }
  }
  if (out.length !== entry.uncompressedSize)
    throw corrupt(label, `${entry.name} inflates to ${out.length} bytes, not the ${entry.uncompressedSize} its header says`);
  if (crc32(out) !== entry.crc) throw corrupt(label, `${entry.name} fails its CRC-32 check`);
  return out;
}

/** A whole file held in memory as a source. */
export function bufferSource(bytes: Buffer): ByteSource {
  return { size: bytes.length, read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.length, offset + length)) };
}
