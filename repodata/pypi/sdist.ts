/**
 * The PKG-INFO of an sdist: `<name>-<version>/PKG-INFO` at the top of a `.tar.gz` (PEP 625's only
 * format) or of a legacy `.zip`. The gzip stream is inflated piece by piece under a cap and the tar
 * walked header by header (POSIX ustar, with pax `path` records and GNU long names), stopping at
 * the first top-level PKG-INFO: a tar bomb costs at most the cap.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { PypiCorruptError, PypiTooLargeError } from './errors.js';
import type { ZipLabel } from './zip.js';

const BLOCK = 512;
const TOP_LEVEL_PKG_INFO = /^\.?\/?[^/]+\/PKG-INFO$/;

function octal(block: Buffer, start: number, length: number): number {
  const text = block
    .toString('latin1', start, start + length)
    .replace(/\0.*$/s, '')
    .trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return -1;
  return parseInt(text, 8);
}

function cString(block: Buffer, start: number, length: number): string {
  const end = block.indexOf(0, start);
  return block.toString('utf8', start, end < 0 || end > start + length ? start + length : end);
}

/** The `path` of a pax extended header block's records (`<len> path=<value>\n`). */
function paxPath(data: Buffer): string | null {
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(32, at);
    if (space < 0) break;
    const length = Number(data.toString('latin1', at, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.toString('utf8', space + 1, at + length - 1);
    if (record.startsWith('path=')) return record.slice(5);
    at += length;
  }
  return null;
}

/** The bytes of the top-level PKG-INFO in a gzip-compressed tar, or null when it has none. */
export async function readTarGzPkgInfo(
  bytes: Buffer,
  maxInflatedBytes: number,
  maxMemberBytes: number,
  label: ZipLabel,
): Promise<Buffer | null> {
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  const input = Readable.from([bytes]);
  input.pipe(gunzip);
  input.on('error', () => undefined);
  let held: Buffer = Buffer.alloc(0);
  let inflated = 0;
  // The state of the walk: waiting for a header, or skipping / taking an entry's data.
  let need = BLOCK;
  let mode: 'header' | 'skip' | 'take' | 'pax' | 'longname' = 'header';
  let pendingPath: string | null = null;
  let takeSize = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > maxInflatedBytes) {
        throw new PypiTooLargeError(
          `Cannot read ${label.filename} of ${label.project}: it inflates to more than ${maxInflatedBytes} bytes before its PKG-INFO, the limit`,
          maxInflatedBytes,
          { project: label.project, url: label.url },
        );
      }
      held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
      while (held.length >= need) {
        const piece = held.subarray(0, need);
        held = held.subarray(need);
        if (mode === 'header') {
          if (piece.every((b) => b === 0)) return null;
          const size = octal(piece, 124, 12);
          if (size < 0)
            throw new PypiCorruptError(`Cannot read ${label.filename} of ${label.project}: it is not a tar archive`, {
              project: label.project,
              url: label.url,
            });
          const type = String.fromCharCode(piece[156]!);
          const prefix = piece.toString('latin1', 257, 262) === 'ustar' ? cString(piece, 345, 155) : '';
          const path = pendingPath ?? (prefix ? `${prefix}/${cString(piece, 0, 100)}` : cString(piece, 0, 100));
          pendingPath = null;
          const padded = Math.ceil(size / BLOCK) * BLOCK;
          if (type === 'x' || type === 'L') {
            mode = type === 'x' ? 'pax' : 'longname';
            takeSize = size;
            need = padded;
          } else if ((type === '0' || type === '\0') && TOP_LEVEL_PKG_INFO.test(path)) {
            if (size > maxMemberBytes) {
              throw new PypiTooLargeError(
                `Cannot read ${path} in ${label.filename} of ${label.project}: it is ${size} bytes, more than the ${maxMemberBytes}-byte limit`,
                maxMemberBytes,
                { project: label.project, url: label.url },
              );
            }
            mode = 'take';
            takeSize = size;
            need = padded;
          } else {
            mode = 'skip';
            need = padded;
          }
          if (need === 0) {
            if (mode === 'take') return Buffer.alloc(0);
            mode = 'header';
            need = BLOCK;
          }
        } else if (mode === 'take') {
          return Buffer.from(piece.subarray(0, takeSize));
        } else {
          if (mode === 'pax') pendingPath = paxPath(piece.subarray(0, takeSize));
          else if (mode === 'longname') pendingPath = cString(piece, 0, takeSize);
          mode = 'header';
          need = BLOCK;
        }
      }
      // Skipped data need not be held: only the count matters.
      if (mode === 'skip' && held.length > 0 && held.length < need) {
        need -= held.length;
        held = Buffer.alloc(0);
      }
    }
  } catch (error) {
    if (error instanceof PypiTooLargeError || error instanceof PypiCorruptError) throw error;
    throw new PypiCorruptError(`Cannot read ${label.filename} of ${label.project}: it is not a valid gzip-compressed tar`, {
      project: label.project,
      url: label.url,
      cause: error,
    });
  } finally {
    gunzip.destroy();
    input.destroy();
  }
  return null;
}
