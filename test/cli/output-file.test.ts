/**
 * `-o FILE` writes where the user pointed: a regular file is replaced atomically (temporary file,
 * then rename), a symbolic link is followed to its target, and FIFOs and character devices are
 * written into, never replaced. As root, a regression here would replace a system device, so the
 * device tests check with `stat` that the device is still one afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
  chmodSync,
  chownSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/cli/resolve/write-file.js';
import { DEMO, requireBuild, runCli, spawnCli, tempDir } from './run-cli.js';

const isRoot = process.getuid?.() === 0;
// The machine's own /dev/full, /dev/null and /dev/stdout are named directly only by a user who
// cannot replace them: as root, a regression (the old code renamed a regular file over whatever
// it was given) would break the machine. Root reaches them through a symbolic link in a temporary
// directory (a regression replaces only the link) or uses a second device node made there.
const isCharDevice = (path: string): boolean => existsSync(path) && statSync(path).isCharacterDevice();
const hasDevFull = isCharDevice('/dev/full');
const hasDevNull = isCharDevice('/dev/null');
const demo = ['-c', DEMO, '-p', 'linux-64', 'python=3.9'];

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
});

function mkfifo(path: string): void {
  const result = spawnSync('mkfifo', [path]);
  if (result.status !== 0) throw new Error(`mkfifo failed: ${result.stderr}`);
}

/** A second node for /dev/full (major 1, minor 7) or /dev/null (1, 3) in a temporary directory; root only. */
function mknod(path: string, minor: 3 | 7): void {
  const result = spawnSync('mknod', [path, 'c', '1', String(minor)]);
  if (result.status !== 0) throw new Error(`mknod failed: ${result.stderr}`);
}
const mknodFull = (path: string): void => mknod(path, 7);

/** Reads a FIFO to its end in another process, as a user's `cat fifo` would. */
function readFifo(path: string): Promise<string> {
  const child = spawn('cat', [path]);
  children.push(child);
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(text));
  });
}

describe('writeFileAtomic', () => {
  it('creates a new regular file and leaves no temporary file behind', async () => {
    const dir = tempDir('cr-out-');
    await writeFileAtomic(join(dir, 'out.json'), 'new\n');
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('new\n');
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('replaces an existing regular file by rename (a new inode), keeping its mode', async () => {
    const dir = tempDir('cr-out-');
    const path = join(dir, 'out.json');
    writeFileSync(path, 'old\n');
    chmodSync(path, 0o640);
    const before = statSync(path);
    await writeFileAtomic(path, 'new\n');
    const after = statSync(path);
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['out.json']);
  });

  it('writes through a symbolic link to its target, atomically in the target directory', async () => {
    const dir = tempDir('cr-out-');
    mkdirSync(join(dir, 'real'));
    const target = join(dir, 'real', 'target.lock');
    writeFileSync(target, 'old\n');
    symlinkSync('real/target.lock', join(dir, 'link.lock'));
    await writeFileAtomic(join(dir, 'link.lock'), 'new\n');
    expect(lstatSync(join(dir, 'link.lock')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'link.lock'))).toBe('real/target.lock');
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(readdirSync(join(dir, 'real'))).toEqual(['target.lock']);
    expect(readdirSync(dir).sort()).toEqual(['link.lock', 'real']);
  });

  it('follows a chain of links, relative to each link, to the final target', async () => {
    const dir = tempDir('cr-out-');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'final.txt'), 'old\n');
    symlinkSync('../b/final.txt', join(dir, 'a', 'second'));
    symlinkSync('a/second', join(dir, 'first'));
    await writeFileAtomic(join(dir, 'first'), 'new\n');
    expect(lstatSync(join(dir, 'first')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'a', 'second')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'b', 'final.txt'), 'utf8')).toBe('new\n');
  });

  it('creates the target of a dangling symbolic link', async () => {
    const dir = tempDir('cr-out-');
    symlinkSync('made.json', join(dir, 'link.json'));
    await writeFileAtomic(join(dir, 'link.json'), 'new\n');
    expect(lstatSync(join(dir, 'link.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'made.json'), 'utf8')).toBe('new\n');
  });

  it('says which link is dangling into a missing directory, and which links loop', async () => {
    const dir = tempDir('cr-out-');
    symlinkSync('nowhere/made.json', join(dir, 'link.json'));
    await expect(writeFileAtomic(join(dir, 'link.json'), 'x', { name: 'link.json' })).rejects.toMatchObject({
      code: 'CR_ERR_OUTPUT_FILE',
      message: `Cannot write "link.json" (a link to "${join(realpathSync(dir), 'nowhere', 'made.json')}"): no such directory`,
    });
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    await expect(writeFileAtomic(join(dir, 'loop-a'), 'x', { name: 'loop-a' })).rejects.toMatchObject({
      code: 'CR_ERR_OUTPUT_FILE',
      message: 'Cannot write "loop-a": too many levels of symbolic links',
    });
    expect(lstatSync(join(dir, 'loop-a')).isSymbolicLink()).toBe(true);
  });

  it('writes into a FIFO instead of replacing it', async () => {
    const dir = tempDir('cr-out-');
    const fifo = join(dir, 'pipe');
    mkfifo(fifo);
    const read = readFifo(fifo);
    await writeFileAtomic(fifo, 'through the pipe\n');
    expect(await read).toBe('through the pipe\n');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(['pipe']);
  });

  it("writes to an open file descriptor named /dev/fd/N (a shell's 3>file)", async () => {
    const dir = tempDir('cr-out-');
    const path = join(dir, 'fd-target');
    const fd = openSync(path, 'w');
    try {
      await writeFileAtomic(`/dev/fd/${fd}`, 'via the descriptor\n');
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe('via the descriptor\n');
  });

  it('refuses a directory, naming it', async () => {
    const dir = tempDir('cr-out-');
    mkdirSync(join(dir, 'sub'));
    await expect(writeFileAtomic(join(dir, 'sub'), 'x', { name: 'sub' })).rejects.toMatchObject({
      name: 'OutputFileError',
      code: 'CR_ERR_OUTPUT_FILE',
      message: 'Cannot write "sub": it is a directory',
    });
    expect(readdirSync(dir)).toEqual(['sub']);
  });

  it('refuses a socket, naming it, and leaves it alone', async () => {
    const dir = tempDir('cr-out-');
    const path = join(dir, 'sock');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    await expect(writeFileAtomic(path, 'x', { name: 'sock' })).rejects.toMatchObject({
      code: 'CR_ERR_OUTPUT_FILE',
      message: 'Cannot write "sock": it is a socket',
    });
    expect(lstatSync(path).isSocket()).toBe(true);
  });

  it.runIf(isRoot)('writes into a character device: a full one gives ENOSPC and stays a device', async () => {
    const dir = tempDir('cr-out-');
    const device = join(dir, 'full');
    mknodFull(device);
    const before = lstatSync(device);
    await expect(writeFileAtomic(device, 'x\n', { name: 'full' })).rejects.toMatchObject({
      code: 'CR_ERR_OUTPUT_FILE',
      message: 'Cannot write "full": no space left on device',
    });
    const after = lstatSync(device);
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
    expect(after.rdev).toBe(before.rdev);
    expect(readdirSync(dir)).toEqual(['full']);
  });

  it.runIf(isRoot)('writes into a character device: /dev/null takes the bytes and stays a device', async () => {
    const dir = tempDir('cr-out-');
    const device = join(dir, 'null');
    mknod(device, 3);
    const before = lstatSync(device);
    await writeFileAtomic(device, 'gone\n');
    const after = lstatSync(device);
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
    expect(readdirSync(dir)).toEqual(['null']);
  });

  it.runIf(hasDevNull)('real /dev/null (through a link) takes the bytes and stays a device', async () => {
    const dir = tempDir('cr-out-');
    symlinkSync('/dev/null', join(dir, 'null'));
    const before = statSync('/dev/null');
    await writeFileAtomic(join(dir, 'null'), 'gone\n');
    if (!isRoot) await writeFileAtomic('/dev/null', 'gone\n');
    expect(lstatSync(join(dir, 'null')).isSymbolicLink()).toBe(true);
    const after = lstatSync('/dev/null');
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev]);
  });

  it('/dev/stdout, /dev/fd/1 and /dev/fd/2 go to the streams given, in order with what they already carry', async () => {
    const dir = tempDir('cr-out-');
    symlinkSync('/dev/stdout', join(dir, 'stdout'));
    const out = new PassThrough();
    const err = new PassThrough();
    out.write('before\n');
    await writeFileAtomic(join(dir, 'stdout'), 'linked\n', { stdout: out, stderr: err });
    if (!isRoot) await writeFileAtomic('/dev/stdout', 'named\n', { stdout: out, stderr: err });
    await writeFileAtomic('/dev/fd/1', 'fd\n', { stdout: out, stderr: err });
    await writeFileAtomic('/dev/fd/2', 'to stderr\n', { stdout: out, stderr: err });
    expect(String(out.read())).toBe(`before\nlinked\n${isRoot ? '' : 'named\n'}fd\n`);
    expect(String(err.read())).toBe('to stderr\n');
    expect(lstatSync(join(dir, 'stdout')).isSymbolicLink()).toBe(true);
  });

  it.runIf(isRoot)("replacing another user's file keeps its owner and mode", async () => {
    const dir = tempDir('cr-out-');
    const path = join(dir, 'theirs.lock');
    writeFileSync(path, 'old\n');
    chownSync(path, 1234, 5678);
    chmodSync(path, 0o604);
    await writeFileAtomic(path, 'new\n');
    const after = statSync(path);
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect([after.uid, after.gid, after.mode & 0o777]).toEqual([1234, 5678, 0o604]);
  });

  it.runIf(hasDevFull)('real /dev/full: ENOSPC, and /dev/full is still the character device', async () => {
    const dir = tempDir('cr-out-');
    symlinkSync('/dev/full', join(dir, 'full'));
    const before = statSync('/dev/full');
    await expect(writeFileAtomic(join(dir, 'full'), 'x\n', { name: 'full' })).rejects.toMatchObject({
      code: 'CR_ERR_OUTPUT_FILE',
      message: 'Cannot write "full" (a link to "/dev/full"): no space left on device',
    });
    if (!isRoot) {
      await expect(writeFileAtomic('/dev/full', 'x\n')).rejects.toMatchObject({
        code: 'CR_ERR_OUTPUT_FILE',
        message: 'Cannot write "/dev/full": no space left on device',
      });
    }
    expect(lstatSync(join(dir, 'full')).isSymbolicLink()).toBe(true);
    const after = lstatSync('/dev/full');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
    expect(after.rdev).toBe(before.rdev);
  });
});

describe('conda-resolve -o', () => {
  // The built executable: its standard output is a socket (Node's child processes get socket
  // pairs), which cannot be opened by name, so the CLI must write to its own stream.
  it('-o /dev/stdout (and a link to it, and /dev/fd/1) prints the result on standard output', async () => {
    requireBuild();
    const dir = tempDir();
    symlinkSync('/dev/stdout', join(dir, 'out.json'));
    for (const name of [...(isRoot ? [] : ['/dev/stdout']), 'out.json', '/dev/fd/1']) {
      const { code, stdout, stderr } = await spawnCli([...demo, '-o', name], { cwd: dir });
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect((JSON.parse(stdout) as { platform: string }[])[0]!.platform).toBe('linux-64');
    }
    expect(readdirSync(dir)).toEqual(['out.json']);
    expect(lstatSync(join(dir, 'out.json')).isSymbolicLink()).toBe(true);
  });

  it('-o through a symbolic link writes its target and keeps the link', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'locks'));
    writeFileSync(join(dir, 'locks', 'pixi.lock'), 'old\n');
    symlinkSync('locks/pixi.lock', join(dir, 'pixi.lock'));
    const { code, stderr } = await runCli([...demo, '-o', 'pixi.lock'], { cwd: dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(lstatSync(join(dir, 'pixi.lock')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'locks', 'pixi.lock'), 'utf8').startsWith('version: 6\n')).toBe(true);
  });

  it('-o FIFO writes into the FIFO', async () => {
    const dir = tempDir();
    mkfifo(join(dir, 'out.json'));
    const read = readFifo(join(dir, 'out.json'));
    const { code, stderr } = await runCli([...demo, '-o', 'out.json'], { cwd: dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect((JSON.parse(await read) as { platform: string }[])[0]!.platform).toBe('linux-64');
    expect(lstatSync(join(dir, 'out.json')).isFIFO()).toBe(true);
  });

  it.runIf(isRoot)('-o onto a full character device: exit 1, a clear error, and the device is left alone', async () => {
    const dir = tempDir();
    mknodFull(join(dir, 'full'));
    const { code, stdout, stderr } = await runCli([...demo, '-o', 'full'], { cwd: dir });
    expect(stderr).toBe('conda-resolve: error: Cannot write "full": no space left on device\n');
    expect(stdout).toBe('');
    expect(code).toBe(1);
    expect(lstatSync(join(dir, 'full')).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir)).toEqual(['full']);
  });

  it.runIf(hasDevFull)('-o real /dev/full: exit 1, ENOSPC, and /dev/full is still the character device', async () => {
    const dir = tempDir();
    symlinkSync('/dev/full', join(dir, 'full'));
    const before = statSync('/dev/full');
    const linked = await runCli([...demo, '-o', 'full'], { cwd: dir });
    expect(linked.stderr).toBe('conda-resolve: error: Cannot write "full" (a link to "/dev/full"): no space left on device\n');
    expect(linked.code).toBe(1);
    expect(lstatSync(join(dir, 'full')).isSymbolicLink()).toBe(true);
    if (!isRoot) {
      const { code, stderr } = await runCli([...demo, '-o', '/dev/full']);
      expect(stderr).toBe('conda-resolve: error: Cannot write "/dev/full": no space left on device\n');
      expect(code).toBe(1);
    }
    const after = lstatSync('/dev/full');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.ino).toBe(before.ino);
    expect(after.rdev).toBe(before.rdev);
  });

  it.runIf(isRoot)('-o onto a null device: exit 0, nothing printed, and the device is left alone', async () => {
    const dir = tempDir();
    mknod(join(dir, 'null'), 3);
    const { code, stdout, stderr } = await runCli([...demo, '-o', 'null'], { cwd: dir });
    expect(stderr).toBe('');
    expect(stdout).toBe('');
    expect(code).toBe(0);
    expect(lstatSync(join(dir, 'null')).isCharacterDevice()).toBe(true);
  });

  it('-o through a dangling symbolic link creates its target; into a missing directory, an error naming the link', async () => {
    const dir = tempDir();
    symlinkSync('made.json', join(dir, 'out.json'));
    symlinkSync('nowhere/made.json', join(dir, 'bad.json'));
    const made = await runCli([...demo, '-o', 'out.json'], { cwd: dir });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(lstatSync(join(dir, 'out.json')).isSymbolicLink()).toBe(true);
    expect((JSON.parse(readFileSync(join(dir, 'made.json'), 'utf8')) as { platform: string }[])[0]!.platform).toBe('linux-64');
    const bad = await runCli([...demo, '-o', 'bad.json'], { cwd: dir });
    expect(bad.stderr).toBe(
      `conda-resolve: error: Cannot write "bad.json" (a link to "${join(realpathSync(dir), 'nowhere', 'made.json')}"): no such directory\n`,
    );
    expect(bad.code).toBe(1);
  });

  it('-o onto a directory: exit 1 and an error naming it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'out'));
    const { code, stderr } = await runCli([...demo, '-o', 'out'], { cwd: dir });
    expect(stderr).toBe('conda-resolve: error: Cannot write "out": it is a directory\n');
    expect(code).toBe(1);
  });
});
