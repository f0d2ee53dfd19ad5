import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PypiIndexClient } from '../../../repodata/pypi/client.js';
import { selectFile } from '../../../repodata/pypi/select.js';
import { targetTags } from '../../../vocabulary/pypi/tags.js';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { buildWheel, metadataText, startIndexServer, tarGz, type IndexServer } from '../../helpers/pypi-index.js';
import { thrown } from '../../helpers/thrown.js';

describe('choosing the file of a release for a target', () => {
  let server: IndexServer;
  let client: PypiIndexClient;
  const cacheDir = mkdtempSync(join(tmpdir(), 'pypi-select-'));
  const text = metadataText('numpy', '2.1.3');
  const wheel = (tag: string) => {
    const built = buildWheel('numpy', '2.1.3', text, { tag });
    return { filename: built.filename, bytes: built.bytes, metadata: text };
  };
  beforeAll(async () => {
    server = await startIndexServer([
      {
        name: 'numpy',
        files: [
          wheel('cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64'),
          wheel('cp312-cp312-macosx_14_0_arm64'),
          wheel('cp312-cp312-win_amd64'),
          { filename: 'numpy-2.1.3.tar.gz', bytes: tarGz([{ name: 'numpy-2.1.3/PKG-INFO', data: Buffer.from(text) }]) },
        ],
      },
    ]);
    client = new PypiIndexClient({ indexUrl: server.indexUrl, cacheDir });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('takes the wheel the target prefers, and reads its metadata', async () => {
    const project = await client.getProject('numpy');
    const file = selectFile(
      project,
      '2.1.3',
      targetTags({ platform: 'linux-64', pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: '2.28' }] }),
    );
    expect(file.filename).toBe('numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl');
    expect((await client.getMetadata(file)).metadata.versionText).toBe('2.1.3');
    const mac = selectFile(
      project,
      '2.1.3',
      targetTags({ platform: 'osx-arm64', pythonVersion: '3.12', virtualPackages: [{ name: '__osx', version: '14.5' }] }),
    );
    expect(mac.filename).toMatch(/macosx_14_0_arm64/);
  });

  it('names the platforms the release has wheels for when none fits the target', async () => {
    const project = await client.getProject('numpy');
    const error = thrown(() =>
      selectFile(
        project,
        '2.1.3',
        targetTags({ platform: 'linux-aarch64', pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: '2.28' }] }),
      ),
    );
    expect(error).toBeInstanceOf(CondaResolveError);
    expect((error as CondaResolveError).code).toBe('CR_ERR_PYPI_NO_COMPATIBLE_WHEEL');
    expect((error as Error).message).toMatch(
      /^numpy 2\.1\.3 has wheels for manylinux_2_17_x86_64, macosx_14_0_arm64 and win_amd64, none for linux-aarch64/,
    );
    expect((error as Error).message).toMatch(/sdist/);
    // With sdists accepted, the sdist is the file (its PKG-INFO is read only when static).
    const sdist = selectFile(
      project,
      '2.1.3',
      targetTags({ platform: 'linux-aarch64', pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: '2.28' }] }),
      { allowSdist: true },
    );
    expect(sdist.filename).toBe('numpy-2.1.3.tar.gz');
  });
});
