/**
 * Locks as inputs (`-f pixi.lock`, `-f conda-lock.yml`): the locked records are the environment,
 * per platform, with no solve; round trips through both lock formats give back the direct output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';

const env = { SOURCE_DATE_EPOCH: '1700000000' };

describeShared('lock files as inputs, on the shared conda-forge snapshot', () => {
  const forge = pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href;
  const request = ['-q', '-c', forge, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9'];
  const dir = tempDir('cr-lock-');

  it('resolve -> pixi.lock / conda-lock.yml -> --format explicit equals the direct explicit output', async () => {
    const direct = await runCli([...request, '--format', 'explicit'], { env });
    expect(direct.code).toBe(0);
    for (const name of ['pixi.lock', 'conda-lock.yml']) {
      expect((await runCli([...request, '-o', name], { cwd: dir, env })).code).toBe(0);
      // No channel is reachable: a lock input must not load repodata.
      const back = await runCli(['-q', '-f', name, '--format', 'explicit', '--offline'], { cwd: dir, env });
      expect(back.stderr).toBe('');
      expect(back.code).toBe(0);
      expect(back.stdout).toBe(direct.stdout);
    }
  });

  it('-f pixi.lock --format conda-lock transcodes, and -p renders one platform', async () => {
    await runCli([...request, '-o', 'pixi.lock'], { cwd: dir, env });
    await runCli([...request, '-o', 'conda-lock.yml'], { cwd: dir, env });
    const transcoded = await runCli(['-q', '-f', 'pixi.lock', '--format', 'conda-lock'], { cwd: dir, env });
    expect(transcoded.stdout).toBe(readFileSync(join(dir, 'conda-lock.yml'), 'utf8'));
    const one = await runCli(['-q', '-f', 'conda-lock.yml', '--format', 'explicit', '-p', 'osx-arm64'], { cwd: dir, env });
    const direct = await runCli(['-q', '-c', forge, '-p', 'osx-arm64', 'python=3.9', '--format', 'explicit'], { env });
    expect(one.stdout).toBe(direct.stdout);
  });

  it('recognises a lock by content under another name, and gives native JSON of the locked records', async () => {
    await runCli([...request, '-o', 'pixi.lock'], { cwd: dir, env });
    writeFileSync(join(dir, 'my-env.yml'), readFileSync(join(dir, 'pixi.lock')));
    const fromLock = await runCli(['-q', '-f', 'my-env.yml'], { cwd: dir, env });
    const direct = await runCli(request, { env });
    expect(fromLock.code).toBe(0);
    const strip = (text: string) =>
      (JSON.parse(text) as { packages: { name: string; url: string; sha256: string | null }[] }[]).map((p) =>
        p.packages.map((x) => [x.name, x.url, x.sha256]),
      );
    expect(strip(fromLock.stdout)).toEqual(strip(direct.stdout));
  });

  it('refuses a platform the lock lacks, and specs beside a lock file (exit 2)', async () => {
    await runCli([...request, '-o', 'pixi.lock'], { cwd: dir, env });
    const platform = await runCli(['-q', '-f', 'pixi.lock', '-p', 'win-64'], { cwd: dir });
    expect(platform.code).toBe(2);
    expect(platform.stderr).toContain('locks only linux-64, osx-arm64');
    const mixed = await runCli(['-q', '-f', 'pixi.lock', 'numpy'], { cwd: dir });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('Cannot combine the lock file "pixi.lock" with package specs');
  });
});

const PIXI_TWO_ENVS = `version: 6
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
  test:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
      - conda: https://conda.anaconda.org/conda-forge/noarch/pytest-8.0.0-pyhd8ed1ab_0.conda
      - pypi: https://files.pythonhosted.org/packages/x/y/six-1.16.0-py2.py3-none-any.whl
packages:
- conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
  sha256: 1111111111111111111111111111111111111111111111111111111111111111
  md5: 22222222222222222222222222222222
  depends:
  - libgcc >=13
- conda: https://conda.anaconda.org/conda-forge/noarch/pytest-8.0.0-pyhd8ed1ab_0.conda
  sha256: 3333333333333333333333333333333333333333333333333333333333333333
  md5: 44444444444444444444444444444444
  noarch: python
- pypi: https://files.pythonhosted.org/packages/x/y/six-1.16.0-py2.py3-none-any.whl
  name: six
  version: 1.16.0
`;

describe('pixi.lock environments and malformed locks', () => {
  it('-e NAME picks a pixi environment; one with pypi entries cannot be an explicit file', async () => {
    const dir = tempDir('cr-lock-');
    writeFileSync(join(dir, 'pixi.lock'), PIXI_TWO_ENVS);
    const test = await runCli(['-q', '-f', 'pixi.lock', '-e', 'test', '--format', 'environment-yaml'], { cwd: dir, env });
    expect(test.code).toBe(0);
    expect(test.stdout).toContain('pytest=8.0.0=pyhd8ed1ab_0');
    const explicit = await runCli(['-q', '-f', 'pixi.lock', '-e', 'test', '--format', 'explicit'], { cwd: dir, env });
    expect(explicit.code).not.toBe(0);
    expect(explicit.stderr).toContain('external packages');
    const plain = await runCli(['-q', '-f', 'pixi.lock', '--format', 'explicit'], { cwd: dir, env });
    expect(plain.stdout).not.toContain('pytest');
    const missing = await runCli(['-q', '-f', 'pixi.lock', '-e', 'docs'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot use environment "docs" of "pixi.lock": it locks only "default", "test"');
  });

  it.each([
    ['version: 99\nenvironments: {}\npackages: []\n', 'pixi.lock version 99 is newer than this conda-resolve reads (versions 1 to 7)'],
    [
      'version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n      - conda: https://x/linux-64/a-1-0.conda\npackages: []\n',
      'which "packages" does not list',
    ],
    [
      'version: 6\nenvironments: {}\npackages:\n- conda: https://x/not-a-package\n',
      'packages[0] (conda: https://x/not-a-package): "https://x/not-a-package" is not a conda package URL',
    ],
    ['version: 6\nenvironments: [\n', 'Cannot read lock file "pixi.lock"'],
  ])('a malformed pixi.lock is a usage error naming the fault: %#', async (text, message) => {
    const dir = tempDir('cr-lock-');
    writeFileSync(join(dir, 'pixi.lock'), text);
    const { code, stderr } = await runCli(['-q', '-f', 'pixi.lock'], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe('-o FILE with a name no exporter claims', () => {
  const demo = ['-q', '-c', DEMO, '-p', 'linux-64', 'python=3.9'];
  it.each(['env.yaml.bak', 'foo.lock2', 'result'])('-o %s without --format: exit 2 listing the recognised names', async (name) => {
    const dir = tempDir();
    const { code, stderr } = await runCli([...demo, '-o', name], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain('Supported filenames:');
    expect(stderr).toContain('pixi.lock');
    expect(stderr).toContain('A file name ending in .json gets the native JSON result');
  });
  it('-o out.json still writes native JSON', async () => {
    const dir = tempDir();
    expect((await runCli([...demo, '-o', 'out.json'], { cwd: dir })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))[0].platform).toBe('linux-64');
  });
});
