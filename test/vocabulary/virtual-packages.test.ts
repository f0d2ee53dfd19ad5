import { describe, expect, it } from 'vitest';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { InvalidPlatformError, TARGET_SUBDIRS } from '../../vocabulary/platform.js';
import { InvalidVirtualPackageError, parseVirtualPackage, virtualPackageList, virtualPackages } from '../../vocabulary/virtual-packages.js';

/** `name=version=build` strings, sorted by name, for compact tables. */
const list = (platform: string, env: Record<string, string | undefined> = {}, extra: string[] = []) =>
  virtualPackageList(platform, env, extra).map((p) => `${p.name}=${p.version}=${p.build}`);

describe('default virtual packages per target platform', () => {
  it.each([
    ['linux-64', ['__archspec=1=x86_64', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-aarch64', ['__archspec=1=aarch64', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-ppc64le', ['__archspec=1=ppc64le', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-armv7l', ['__archspec=1=armv7l', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-s390x', ['__archspec=1=s390x', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['osx-64', ['__archspec=1=x86_64', '__osx=13.0=0', '__unix=0=0']],
    ['osx-arm64', ['__archspec=1=m1', '__osx=13.0=0', '__unix=0=0']],
    ['win-64', ['__archspec=1=x86_64', '__win=0=0']],
    ['win-32', ['__archspec=1=x86', '__win=0=0']],
    ['win-arm64', ['__archspec=1=aarch64', '__win=0=0']],
    ['freebsd-64', ['__archspec=1=x86_64', '__unix=0=0']],
    ['emscripten-wasm32', ['__unix=0=0']],
    ['wasi-wasm32', []],
    ['noarch', []],
  ])('%s', (platform, expected) => {
    expect(list(platform)).toEqual(expected);
  });

  it('does not depend on the host: the same input gives the same packages', () => {
    for (const platform of TARGET_SUBDIRS) expect(list(platform)).toEqual(list(platform));
  });

  it('rejects unknown platforms', () => {
    expect(() => virtualPackages('linux-65')).toThrow(InvalidPlatformError);
  });
});

describe('CONDA_OVERRIDE_* variables', () => {
  it.each<[string, Record<string, string>, string[]]>([
    ['linux-64', { CONDA_OVERRIDE_GLIBC: '2.17' }, ['__archspec=1=x86_64', '__glibc=2.17=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-64', { CONDA_OVERRIDE_GLIBC: '' }, ['__archspec=1=x86_64', '__linux=4.18=0', '__unix=0=0']],
    [
      'linux-64',
      { CONDA_OVERRIDE_LINUX: '5.15.0-91-generic' },
      ['__archspec=1=x86_64', '__glibc=2.28=0', '__linux=5.15.0=0', '__unix=0=0'],
    ],
    ['linux-64', { CONDA_OVERRIDE_LINUX: '6.1.0.4.5' }, ['__archspec=1=x86_64', '__glibc=2.28=0', '__linux=6.1.0.4=0', '__unix=0=0']],
    ['linux-64', { CONDA_OVERRIDE_LINUX: '' }, ['__archspec=1=x86_64', '__glibc=2.28=0', '__unix=0=0']],
    [
      'linux-64',
      { CONDA_OVERRIDE_CUDA: '12.2' },
      ['__archspec=1=x86_64', '__cuda=12.2=0', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0'],
    ],
    ['linux-64', { CONDA_OVERRIDE_CUDA: '' }, ['__archspec=1=x86_64', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-64', { CONDA_OVERRIDE_ARCHSPEC: 'x86_64_v3' }, ['__archspec=1=x86_64_v3', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    ['linux-64', { CONDA_OVERRIDE_ARCHSPEC: '' }, ['__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0']],
    [
      'linux-64',
      { CONDA_OVERRIDE_OSX: '11.0', CONDA_OVERRIDE_WIN: '10' },
      ['__archspec=1=x86_64', '__glibc=2.28=0', '__linux=4.18=0', '__unix=0=0'],
    ],
    ['osx-arm64', { CONDA_OVERRIDE_OSX: '11.0' }, ['__archspec=1=m1', '__osx=11.0=0', '__unix=0=0']],
    ['osx-arm64', { CONDA_OVERRIDE_OSX: '' }, ['__archspec=1=m1', '__unix=0=0']],
    ['osx-64', { CONDA_OVERRIDE_GLIBC: '2.17' }, ['__archspec=1=x86_64', '__osx=13.0=0', '__unix=0=0']],
    ['win-64', { CONDA_OVERRIDE_WIN: '10.0.19045' }, ['__archspec=1=x86_64', '__win=10.0.19045=0']],
    ['win-64', { CONDA_OVERRIDE_WIN: '' }, ['__archspec=1=x86_64']],
    ['win-64', { CONDA_OVERRIDE_CUDA: '11.8' }, ['__archspec=1=x86_64', '__cuda=11.8=0', '__win=0=0']],
    ['linux-64', { CONDA_OVERRIDE_GLIBC: ' 2.31 ' }, ['__archspec=1=x86_64', '__glibc=2.31=0', '__linux=4.18=0', '__unix=0=0']],
  ])('%s with %j', (platform, env, expected) => {
    expect(list(platform, env)).toEqual(expected);
  });

  it('ignores unrelated variables and undefined values', () => {
    expect(list('linux-64', { CONDA_OVERRIDE_GLIBC: undefined, PATH: '/bin' })).toEqual(list('linux-64'));
  });

  it.each([
    [
      { CONDA_OVERRIDE_GLIBC: '2..17' },
      'Cannot use virtual package "CONDA_OVERRIDE_GLIBC=2..17": the value "2..17" is not a version: empty version component',
    ],
    [
      { CONDA_OVERRIDE_CUDA: 'twelve point two' },
      'Cannot use virtual package "CONDA_OVERRIDE_CUDA=twelve point two": the value "twelve point two" is not a version: invalid character " "',
    ],
    [{ CONDA_OVERRIDE_ARCHSPEC: 'x86 64' }, 'Cannot use virtual package "CONDA_OVERRIDE_ARCHSPEC=x86 64": not a valid archspec name'],
  ])('rejects invalid override %j', (env, message) => {
    expect(() => virtualPackages('linux-64', env)).toThrow(InvalidVirtualPackageError);
    expect(() => virtualPackages('linux-64', env)).toThrow(message);
  });
});

describe('extra virtual packages (--virtual-package NAME=VERSION[=BUILD])', () => {
  it('adds new packages and replaces defaults of the same name', () => {
    expect(list('linux-64', {}, ['__cuda=12.4', '__glibc=2.17', '__archspec=1=zen4', '__foo'])).toEqual([
      '__archspec=1=zen4',
      '__cuda=12.4=0',
      '__foo=0=0',
      '__glibc=2.17=0',
      '__linux=4.18=0',
      '__unix=0=0',
    ]);
  });

  it('takes extras over overrides', () => {
    expect(list('linux-64', { CONDA_OVERRIDE_CUDA: '11.8' }, ['__cuda=12.4'])).toContain('__cuda=12.4=0');
  });

  it('parses entries', () => {
    expect(parseVirtualPackage(' __CUDA=12.4=0 ')).toEqual({ name: '__cuda', version: '12.4', build: '0' });
    expect(parseVirtualPackage('__osx=10.15')).toEqual({ name: '__osx', version: '10.15', build: '0' });
  });

  it.each([
    ['cuda=12.4', 'virtual package names start with "__" (for example __cuda=12.4)'],
    ['__cuda=', 'the version is empty'],
    ['__cuda=1..2', 'version "1..2" is not a version: empty version component'],
    ['__cuda=12=b=c', 'expected NAME=VERSION[=BUILD]'],
    ['__cuda=12= ', 'the build string is empty'],
    ['__cuda=12=a b', '"a b" is not a valid build string'],
    ['__cu da=12', '"__cu da" is not a valid package name'],
    ['', 'virtual package names start with "__" (for example __cuda=12.4)'],
  ])('rejects %j, naming the entry', (entry, reason) => {
    expect(() => virtualPackages('linux-64', {}, [entry])).toThrow(InvalidVirtualPackageError);
    expect(() => virtualPackages('linux-64', {}, [entry])).toThrow(`Cannot use virtual package ${JSON.stringify(entry)}: ${reason}`);
  });
});

describe('virtual package records', () => {
  it('are records from channel "@" in the target subdir with no dependencies', () => {
    const records = virtualPackages('osx-arm64', { CONDA_OVERRIDE_CUDA: '12.0' });
    expect(records.map((r) => r.name)).toEqual(['__archspec', '__cuda', '__osx', '__unix']);
    for (const r of records) {
      expect(r.channel).toBe('@');
      expect(r.subdir).toBe('osx-arm64');
      expect(r.depends).toEqual([]);
      expect(r.constrains).toEqual([]);
      expect(r.fn).toBe(`${r.name}-${r.version}-${r.build}.conda`);
      expect(new URL(r.url).pathname.endsWith(r.fn)).toBe(true);
    }
  });

  it('satisfy the dependencies real packages declare on them', () => {
    const linux = virtualPackages('linux-64');
    const has = (spec: string, records = linux) => records.some((r) => parseMatchSpec(spec).matches(r));
    expect(has('__glibc >=2.17,<3.0.a0')).toBe(true);
    expect(has('__glibc >=2.34')).toBe(false);
    expect(has('__unix')).toBe(true);
    expect(has('__linux >=4.4')).toBe(true);
    expect(has('__archspec 1 x86_64')).toBe(true);
    expect(has('__osx >=10.13', virtualPackages('osx-64'))).toBe(true);
    expect(has('__osx >=14', virtualPackages('osx-64'))).toBe(false);
    expect(has('__win', virtualPackages('win-64'))).toBe(true);
    expect(has('__cuda >=12', virtualPackages('linux-64', { CONDA_OVERRIDE_CUDA: '12.2' }))).toBe(true);
  });
});

describe('virtual package entry fuzz', () => {
  it('never throws anything but InvalidVirtualPackageError on arbitrary entries and overrides', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.string(), fc.string(), (entry, value) => {
        try {
          virtualPackages('linux-64', { CONDA_OVERRIDE_GLIBC: value, CONDA_OVERRIDE_ARCHSPEC: value }, [entry]);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidVirtualPackageError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
