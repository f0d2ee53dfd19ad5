/**
 * Writes `-o FILE` where the user pointed it, never replacing what is not a regular file: a regular
 * file is replaced atomically (a temporary file beside it, then a rename); a symbolic link is
 * followed and its target written so (the links stay); a FIFO or character device is written into,
 * since a rename would replace it (as root, `/dev/full` itself); `/dev/stdout`, `/dev/stderr` and
 * their `/dev/fd/N` and `/proc/self/fd/N` names go to the stream itself, which may be a socket that
 * cannot be opened by name; a directory, socket file or block device is refused. Every failure is
 * an `OutputFileError` naming the path as the user gave it.
 */
import { randomBytes } from 'node:crypto';
import { constants, write, type Stats } from 'node:fs';
import { chmod, chown, lstat, open, readlink, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CondaResolveError } from '../../../vocabulary/errors.js';

/** `-o FILE` could not be written. `path` is the name the user gave. */
export class OutputFileError extends CondaResolveError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('CR_ERR_OUTPUT_FILE', message, options);
    this.path = path;
  }
}

export interface WriteFileOptions {
  /** The name as the user gave it, for error messages; default `path`. */
  readonly name?: string;
  /**
   * Where `/dev/stdout` and `/dev/stderr` go: the command's own streams, so that output written
   * there comes in order with what the stream already carries. Without them, descriptors 1 and 2.
   */
  readonly stdout?: NodeJS.WritableStream;
  readonly stderr?: NodeJS.WritableStream;
}

/** What a path finally names once links are followed. */
interface Target {
  /** The final path (the link's target, not the link). */
  readonly path: string;
  /** Null when nothing exists there yet. */
  readonly stats: Stats | null;
  /** This process's standard output or error, when the path names one; written to as is. */
  readonly fd?: number;
  /** Under /proc: the kernel's own links (`pipe:[123]`), opened by name, never renamed over. */
  readonly procfs?: boolean;
  readonly viaLink: boolean;
}

/** Linux's limit on links followed in one path (MAXSYMLINKS). */
const MAX_LINKS = 40;

/** Nothing under /proc can be created: a missing name there is a descriptor that is not open. */
const PROC_MISSING = 'CR_PROC_MISSING';

const REASONS: Readonly<Record<string, string>> = {
  [PROC_MISSING]: 'no such file or open descriptor',
  ENOENT: 'no such directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EBADF: 'not an open file descriptor',
  EPIPE: 'the reading end was closed',
  ENXIO: 'no such device or address',
  EBUSY: 'device or resource busy',
  ETXTBSY: 'text file busy',
  EXDEV: 'cross-device link',
};

const writeToFd = promisify(write);

export async function writeFileAtomic(path: string, text: string, options: WriteFileOptions = {}): Promise<void> {
  const name = options.name ?? path;
  const absolute = resolve(path);
  let target: Target;
  const walk = { path: absolute, viaLink: false };
  try {
    target = await resolveTarget(walk);
  } catch (error) {
    const looped = (error as NodeJS.ErrnoException).code === 'ELOOP';
    throw outputError(name, walk.viaLink && !looped ? walk.path : undefined, error);
  }
  const linkedTo = target.viaLink ? target.path : undefined;
  const data = Buffer.from(text, 'utf8');
  try {
    if (target.fd !== undefined) {
      const stream = target.fd === 1 ? options.stdout : options.stderr;
      return await (stream ? writeStream(stream, data) : writeDescriptor(target.fd, data));
    }
    const stats = target.stats;
    if (stats === null) return await replaceAtomically(target.path, data, null);
    if (stats.isDirectory()) throw errno('EISDIR');
    if (stats.isSocket()) throw new OutputFileError(name, `${prefix(name, linkedTo)}: it is a socket`);
    if (stats.isBlockDevice())
      throw new OutputFileError(name, `${prefix(name, linkedTo)}: it is a block device (refusing to overwrite a disk)`);
    if (stats.isFIFO() || stats.isCharacterDevice() || target.procfs) return await writeInPlace(target.path, data, stats.isFile());
    return await replaceAtomically(target.path, data, stats);
  } catch (error) {
    if (error instanceof OutputFileError) throw error;
    throw outputError(name, linkedTo, error);
  }
}

/**
 * Follows links one by one (as the kernel would) to what the path finally names. `walk` is kept up
 * to date, so that an error can say which link led where.
 */
async function resolveTarget(walk: { path: string; viaLink: boolean }): Promise<Target> {
  let current = walk.path;
  let viaLink = false;
  for (let hops = 0; ; hops++) {
    walk.path = current;
    walk.viaLink = viaLink;
    // The directory as the kernel sees it: a link's relative target is read from there, and
    // `/dev/fd/N` shows itself as `/proc/PID/fd/N`.
    current = join(await realpath(dirname(current)), basename(current));
    const fd = descriptorOf(current);
    if (fd !== undefined) return { path: current, stats: null, fd, viaLink };
    if (current.startsWith('/proc/')) {
      // /proc/PID/fd/N links read as `pipe:[123]` or `socket:[45]`: only the kernel can follow them.
      try {
        return { path: current, stats: await stat(current), procfs: true, viaLink };
      } catch (error) {
        throw (error as NodeJS.ErrnoException).code === 'ENOENT' ? errno(PROC_MISSING) : error;
      }
    }
    let stats: Stats;
    try {
      stats = await lstat(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: current, stats: null, viaLink };
      throw error;
    }
    if (!stats.isSymbolicLink()) return { path: current, stats, viaLink };
    if (hops >= MAX_LINKS) throw errno('ELOOP');
    current = resolve(dirname(current), await readlink(current));
    viaLink = true;
  }
}

/**
 * 1 or 2 when the path names this process's standard output or error (`/dev/stdout`, `/dev/fd/1`,
 * `/proc/self/fd/2`...). Other descriptors are opened by name, as a shell does: a number could
 * just as well be one of the runtime's own descriptors.
 */
function descriptorOf(path: string): number | undefined {
  if (path === '/dev/stdout') return 1;
  if (path === '/dev/stderr') return 2;
  const match = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))\/fd)\/([12])$/.exec(path);
  if (!match || (match[1] !== undefined && Number(match[1]) !== process.pid)) return undefined;
  return Number(match[2]);
}

async function replaceAtomically(path: string, data: Buffer, existing: Stats | null): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // `wx`: a file (or link) someone placed at the temporary name is never written through.
    await writeFile(temp, data, { flag: 'wx' });
    if (existing) {
      // The replaced file's owner (root writing someone's file; refused and skipped otherwise)
      // and then its mode, as chown clears set-user-ID bits.
      if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) {
        await chown(temp, existing.uid, existing.gid).catch(() => undefined);
      }
      await chmod(temp, existing.mode & 0o7777);
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** FIFOs and devices: open and write; opening a FIFO waits for a reader, as `echo > fifo` does. */
async function writeInPlace(path: string, data: Buffer, truncate: boolean): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_NOCTTY | (truncate ? constants.O_TRUNC : 0));
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function writeStream(stream: NodeJS.WritableStream, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => stream.write(data, (error) => (error ? reject(error) : resolve())));
}

/** Writes all of `data` to a descriptor this process holds, waiting out a full non-blocking pipe. */
async function writeDescriptor(fd: number, data: Buffer): Promise<void> {
  let offset = 0;
  let wait = 1;
  while (offset < data.length) {
    try {
      const { bytesWritten } = await writeToFd(fd, data, offset, data.length - offset, null);
      offset += bytesWritten;
      wait = 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await sleep(wait);
      wait = Math.min(wait * 2, 50);
    }
  }
}

function prefix(name: string, linkedTo: string | undefined): string {
  return `Cannot write "${name}"${linkedTo === undefined ? '' : ` (a link to "${linkedTo}")`}`;
}

function outputError(name: string, linkedTo: string | undefined, error: unknown): OutputFileError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = (code && REASONS[code]) ?? (code ? code : 'write failed');
  return new OutputFileError(name, `${prefix(name, linkedTo)}: ${why}`, { cause: error });
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}
