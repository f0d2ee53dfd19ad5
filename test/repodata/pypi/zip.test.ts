import { execFileSync } from 'node:child_process';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PypiCorruptError, PypiTooLargeError } from '../../../repodata/pypi/errors.js';
import { bufferSource, readCentralDirectory, readZipMember, TailCachedSource, type ByteSource } from '../../../repodata/pypi/zip.js';
import { buildWheel, zipArchive } from '../../helpers/pypi-index.js';

const label = { project: 'demo', filename: 'demo-1.0-py3-none-any.whl', url: null };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A zip written by Python's zipfile (zip64 records forced), or null without python3. */
function pythonZip(): Buffer | null {
  try {
    const script = [
      'import io, sys, zipfile',
      'b = io.BytesIO()',
      'with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:',
      '    z.writestr("demo/__init__.py", "x = 1\\n" * 1000)',
      '    with z.open("demo-1.0.dist-info/METADATA", "w", force_zip64=True) as f:',
      '        f.write(b"Metadata-Version: 2.1\\nName: demo\\nVersion: 1.0\\nRequires-Dist: idna\\n")',
      'sys.stdout.buffer.write(b.getvalue())',
    ].join('\n');
    return execFileSync('python3', ['-c', script]);
  } catch {
    return null;
  }
}

const written = pythonZip();

describe('reading a zip member through byte ranges', () => {
  it.skipIf(written === null)('reads a zip that Python wrote, with a zip64 extra field in the local header only', async () => {
    const source = bufferSource(written!);
    const entries = await readCentralDirectory(source, label);
    const entry = entries.find((e) => e.name === 'demo-1.0.dist-info/METADATA')!;
    expect((await readZipMember(source, entry, 1 << 20, label)).toString()).toMatch(/Requires-Dist: idna/);
  });

  it('finds METADATA in a wheel and reads it with a tail read and at most one more', async () => {
    const metadata = 'Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n';
    const wheel = buildWheel('demo', '1.0', metadata, { padding: 200_000 });
    const reads: [number, number][] = [];
    const inner: ByteSource = {
      size: wheel.bytes.length,
      read: async (offset, length) => (reads.push([offset, length]), wheel.bytes.subarray(offset, offset + length)),
    };
    const source = new TailCachedSource(inner);
    const entries = await readCentralDirectory(source, label);
    expect(entries.map((e) => e.name)).toContain('demo-1.0.dist-info/METADATA');
    const entry = entries.find((e) => e.name.endsWith('/METADATA'))!;
    expect((await readZipMember(source, entry, 1 << 20, label)).toString()).toBe(metadata);
  });

  it('stops a zip bomb at the cap, whatever its header claims', async () => {
    const huge = Buffer.alloc(16 * 1024 * 1024);
    const bomb = zipArchive([
      { name: 'demo-1.0.dist-info/METADATA', data: Buffer.from('x'), raw: deflateRawSync(huge), declaredSize: 1000 },
    ]);
    expect(bomb.length).toBeLessThan(200_000);
    const source = bufferSource(bomb);
    const [entry] = await readCentralDirectory(source, label);
    const error = await rejection(readZipMember(source, entry!, 1 << 20, label));
    expect(error).toBeInstanceOf(PypiTooLargeError);
    expect((error as Error).message).toMatch(/inflates to more than 1048576 bytes.*zip bomb/);
  });

  it('refuses a member whose header says it is larger than the cap before reading it', async () => {
    const zip = zipArchive([{ name: 'demo-1.0.dist-info/METADATA', data: Buffer.from('x'), declaredSize: 50_000_000 }]);
    const source = bufferSource(zip);
    const [entry] = await readCentralDirectory(source, label);
    expect(await rejection(readZipMember(source, entry!, 1 << 20, label))).toBeInstanceOf(PypiTooLargeError);
  });

  it('refuses data that is not a zip, and a member that fails its CRC', async () => {
    expect(
      await rejection(readCentralDirectory(bufferSource(Buffer.from('not a zip at all, just text that goes on for a while')), label)),
    ).toBeInstanceOf(PypiCorruptError);
    const zip = zipArchive([{ name: 'a/METADATA', data: Buffer.from('hello') }]);
    // Flip a byte of the stored CRC in the central directory.
    const cdAt = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip[cdAt + 16]! ^= 0xff;
    const source = bufferSource(zip);
    const [entry] = await readCentralDirectory(source, label);
    const error = await rejection(readZipMember(source, entry!, 1 << 20, label));
    expect(error).toBeInstanceOf(PypiCorruptError);
    expect((error as Error).message).toMatch(/CRC-32/);
  });
});
