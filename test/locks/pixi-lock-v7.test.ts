/**
 * pixi.lock version 7: read (every package kind, named platforms, indexes, options), written back
 * byte for byte as pixi writes it, and bad input refused naming the file, environment and entry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockExportEnvironments, readLockFile } from '../../src/locks/lock-file.js';
import { exportRattlerLockV7 } from '../../src/locks/pixi-lock/write-v7.js';
import { InputFileError } from '../../src/errors.js';
import { thirdPartyText } from '../helpers/third-party.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/locks');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
// pixi's own locks from conda/rattler (test/THIRD-PARTY-DATA.md), in ../shared/third-party: absent, their tests skip.
const RATTLER_V7 = thirdPartyText('conda-rattler/pixi.lock');
const RATTLER_V6 = thirdPartyText('conda-rattler/js-rattler/pixi.lock');

/** A v7 lock in pixi's layout: a named platform, PyPI packages, a source package, options. */
const V7_WITH_PYPI = fixture('pypi.v7.pixi.lock');

describe('pixi.lock v7 read', () => {
  const lock = readLockFile('pixi.lock', V7_WITH_PYPI);
  const env = lock.environments.get('default')!;

  it('is told from v6 by its version and read as rattler-lock-v7', () => {
    expect(lock.format).toBe('rattler-lock-v7');
    expect(lock.version).toBe(7);
  });

  it('keys a named platform by its subdir, keeping the name for writing', () => {
    expect([...env.platforms.keys()]).toEqual(['linux-64', 'osx-arm64']);
    expect(env.details.platformNames?.get('osx-arm64')).toBe('p1');
  });

  it('derives a binary package name, version, build and noarch from its file name', () => {
    const tzdata = env.platforms.get('osx-arm64')![0]!;
    expect(tzdata).toMatchObject({
      name: 'tzdata',
      version: '2024b',
      build: 'hc8b5060_0',
      build_number: 0,
      subdir: 'noarch',
      noarch: 'generic',
      channel: 'conda-forge',
    });
    expect(env.platforms.get('linux-64')!.find((r) => r.name === 'python')).toMatchObject({
      build: 'h2628c8c_0_cpython',
      build_number: 0,
      depends: ['tzdata'],
    });
  });

  it('keeps PyPI packages as records with manager pip, and the index list', () => {
    const pypi = env.pypi.get('linux-64')!;
    expect(pypi.map((r) => [r.name, r.version])).toEqual([
      ['local-pkg', null],
      ['requests', '2.31.0'],
      ['urllib3', '2.2.1'],
    ]);
    expect(pypi[1]).toMatchObject({
      manager: 'pip',
      requires_python: '>=3.7',
      requires_dist: ['urllib3>=1.21.1,<3', "PySocks>=1.5.6,!=1.5.7 ; extra == 'socks'"],
    });
    expect(pypi[2]!.index).toBe('https://my-index.example.com/simple');
    expect(env.pypiIndexes).toEqual(['https://pypi.org/simple']);
  });

  it('keeps a conda source package as a reference, with a warning naming it', () => {
    expect(env.details.references?.get('linux-64')).toEqual([
      { kind: 'conda_source', id: 'child-package[87dc0b8a] @ child-package', name: 'child-package', version: '0.1' },
    ]);
    expect(env.warnings[0]).toContain('environment "default" keeps 1 source or path-based package (child-package) as references');
  });

  it.skipIf(RATTLER_V7 === undefined)("reads pixi's own v7 lock (source packages with variants, 5 environments, 4 platforms)", () => {
    const real = readLockFile('pixi.lock', RATTLER_V7!);
    expect([...real.environments.keys()]).toEqual(['default', 'lint', 'minio', 's3', 'semver-check']);
    expect([...real.environments.values()].some((e) => (e.details.references?.size ?? 0) > 0)).toBe(true);
    const linux = real.environments.get('default')!.platforms.get('linux-64')!;
    expect(linux.length).toBeGreaterThan(50);
    expect(linux.every((r) => r.url.startsWith('https://prefix.dev/conda-forge/'))).toBe(true);
  });

  it.skipIf(RATTLER_V6 === undefined)('reads a real v6 lock as before (options kept)', () => {
    const v6 = readLockFile('pixi.lock', RATTLER_V6!);
    expect(v6.format).toBe('rattler-lock-v6');
    expect(v6.environments.get('default')!.details.options).toEqual({ 'pypi-prerelease-mode': 'if-necessary-or-explicit' });
  });
});

describe('pixi.lock v7 written back', () => {
  const written: [string, string][] = [['a lock with PyPI packages, a named platform and a source package', V7_WITH_PYPI]];
  if (RATTLER_V7 !== undefined) written.unshift(["conda/rattler's pixi.lock (written by pixi)", RATTLER_V7]);
  it.each(written)('%s: read and written again, it is the same file byte for byte', (_name, text) => {
    const lock = readLockFile('pixi.lock', text);
    expect(exportRattlerLockV7(lockExportEnvironments(lock))).toBe(text);
  });

  it("a v6 lock written as v7 has the top-level platforms, pixi's channel URLs and no derivable fields", () => {
    const v6 = `version: 6
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
packages:
- conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
  sha256: 4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf
  md5: 8ac3367aafb1cc0a068483c580af8015
  license: LicenseRef-Public-Domain
  size: 122354
  timestamp: 1728047496079
`;
    const written = exportRattlerLockV7(lockExportEnvironments(readLockFile('pixi.lock', v6)));
    expect(written).toBe(`version: 7
platforms:
- name: linux-64
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
packages:
- conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda
  sha256: 4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf
  md5: 8ac3367aafb1cc0a068483c580af8015
  license: LicenseRef-Public-Domain
  size: 122354
  timestamp: 1728047496079
`);
    expect(readLockFile('pixi.lock', written).environments.get('default')!.platforms.get('linux-64')![0]!.name).toBe('tzdata');
  });
});

describe('pixi.lock bad input: the error names the file, the environment and the entry', () => {
  const fails = (text: string): string => {
    try {
      readLockFile('pixi.lock', text);
    } catch (error) {
      expect(error).toBeInstanceOf(InputFileError);
      expect((error as InputFileError).code).toBe('CR_ERR_INPUT_LOCK');
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('a lock of an unknown future version', () => {
    expect(fails('version: 8\nplatforms: []\nenvironments: {}\npackages: []\n')).toBe(
      'Cannot read lock file "pixi.lock": pixi.lock version 8 is newer than this conda-resolve reads (versions 1 to 7); upgrade conda-resolve, or write the lock in version 7 with the pixi release that reads it',
    );
  });

  it('a truncated file', () => {
    const cut = V7_WITH_PYPI.slice(0, V7_WITH_PYPI.indexOf('- pypi: ./local-pkg\n  name'));
    expect(fails(cut)).toContain(
      'Cannot read lock file "pixi.lock": environments.default.packages.linux-64[3] names pypi: ./local-pkg, which "packages" does not list',
    );
    expect(fails(V7_WITH_PYPI.slice(0, 40))).toMatch(/^Cannot read lock file "pixi.lock": /);
  });

  it('an entry whose URL is not a package', () => {
    const text = V7_WITH_PYPI.replaceAll(
      'https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda',
      'https://conda.anaconda.org/conda-forge/noarch/tzdata.txt',
    );
    expect(fails(text)).toBe(
      'Cannot read lock file "pixi.lock": packages[1] (conda: https://conda.anaconda.org/conda-forge/noarch/tzdata.txt, in environment "default", platform linux-64): "https://conda.anaconda.org/conda-forge/noarch/tzdata.txt" is not a conda package (its file name does not end in .conda or .tar.bz2)',
    );
  });

  it('a pypi entry without a version', () => {
    const text = V7_WITH_PYPI.replace('  name: requests\n  version: 2.31.0\n', '  name: requests\n');
    expect(fails(text)).toBe(
      'Cannot read lock file "pixi.lock": packages[4] (pypi: https://files.pythonhosted.org/packages/8c/40/requests-2.31.0-py3-none-any.whl, in environment "default", platform linux-64): the PyPI package "requests" has no "version" (a locked distribution is pinned)',
    );
  });

  it('a platform the top-level list does not name', () => {
    expect(fails(V7_WITH_PYPI.replace('- name: p1\n  subdir: osx-arm64\n', ''))).toContain(
      'environments.default.packages.p1: platform "p1" is not in the lock\'s "platforms" list',
    );
  });

  it('YAML anchors and aliases (a small file standing for a huge one)', () => {
    const text = V7_WITH_PYPI.replace('  depends:\n  - tzdata\n', '  depends: &D\n  - tzdata\n').replace(
      '  depends:\n  - python\n',
      '  depends: *D\n',
    );
    expect(fails(text)).toContain('defines the YAML anchor "&D"; anchors and aliases are not accepted');
  });
});

describe('pixi.lock versions 1 to 3 (the conda-lock-like layout of 2023)', () => {
  it('reads a v3 lock into environment default, PyPI entries included', () => {
    const v3 = `version: 3
metadata:
  content_hash:
    linux-64: c3966519f924c1bb939575751347ce8bb8bfa39fcad33745cb1d712dd269ee2d
  channels:
    - url: https://conda.anaconda.org/conda-forge/
      used_env_vars: []
  platforms:
    - linux-64
  sources: []
package:
  - platform: linux-64
    name: _openmp_mutex
    version: "4.5"
    category: main
    manager: conda
    dependencies:
      - libgomp >=7.5.0
    url: https://conda.anaconda.org/conda-forge/linux-64/_openmp_mutex-4.5-2_gnu.tar.bz2
    hash:
      md5: 73aaf86a425cc6e73fcf236a5a46396d
      sha256: fbe2c5e56a653bebb982eda4876a9178aedfc2b545f25d0ce9c4c0b508253d22
    build: 2_gnu
    subdir: linux-64
    build_number: 16
  - platform: linux-64
    name: six
    version: 1.16.0
    category: main
    manager: pypi
    requires_dist: []
    url: https://files.pythonhosted.org/packages/d9/5a/six-1.16.0-py2.py3-none-any.whl
    hash:
      sha256: 8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254
`;
    const lock = readLockFile('pixi.lock', v3);
    const env = lock.environments.get('default')!;
    expect(lock.version).toBe(3);
    expect(env.platforms.get('linux-64')![0]).toMatchObject({ name: '_openmp_mutex', build_number: 16, depends: ['libgomp >=7.5.0'] });
    expect(env.pypi.get('linux-64')![0]).toMatchObject({ name: 'six', version: '1.16.0', manager: 'pip' });
  });
});
