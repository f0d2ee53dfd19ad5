import { describe, expect, it } from 'vitest';
import { InvalidTagTargetError, NoCompatibleWheelError } from '../../../vocabulary/pypi/distribution-errors.js';
import { parseWheelFileName } from '../../../vocabulary/pypi/distribution-file-name.js';
import { describeMissingWheel, noCompatibleWheelError } from '../../../vocabulary/pypi/missing-wheel.js';
import {
  bestWheel,
  compatibleTags,
  condaPlatformTags,
  cpythonTags,
  macBinaryFormats,
  macPlatforms,
  manylinuxPlatforms,
  tagTargetOf,
  targetTags,
  wheelRank,
  type MajorMinor,
  type PythonVersionTuple,
  type TagTarget,
} from '../../../vocabulary/pypi/tags.js';
import { pythonInterpreter } from '../../../vocabulary/pypi/marker-environment.js';
import { virtualPackageList } from '../../../vocabulary/virtual-packages.js';
import { thirdPartyJson } from '../../helpers/third-party.js';

// pypa/packaging's own vectors (tests/test_tags.py), carried over by vectors/extract-files.py.
// Absent (../shared/third-party, test/THIRD-PARTY-DATA.md), the tables are empty and their tests are not there.
const VECTORS = thirdPartyJson<{ commit: string; tests: Record<string, Record<string, unknown>[]> }>(
  'pypa-packaging/packaging-files.json',
) ?? { commit: 'absent', tests: {} };
interface CallVector {
  args: unknown[];
  kwargs: Record<string, unknown>;
  expected: string[];
  line: number;
}
const vectors = <T>(name: string): T[] => {
  const found = VECTORS.tests[`tests/test_tags.py::${name}`];
  if (found === undefined) {
    if (VECTORS.commit === 'absent') return [];
    throw new Error(`no vectors named ${name}`);
  }
  return found as T[];
};

/** The tags of a conda target as conda-resolve would give them: the platform's default virtual packages, overridden. */
function tagsFor(platform: string, pythonVersion: string, extra: readonly string[] = [], options: Partial<TagTarget> = {}) {
  return targetTags({ platform, pythonVersion, virtualPackages: virtualPackageList(platform, {}, extra), ...options });
}

describe(`packaging's tag vectors (pypa/packaging ${VECTORS.commit.slice(0, 7)})`, () => {
  it.each(vectors<{ version: number[]; arch: string; expected: string[] }>('test_binary_formats'))(
    'mac binary formats of $arch on $version',
    ({ version, arch, expected }) => {
      expect(macBinaryFormats(version as unknown as MajorMinor, arch)).toEqual(expected);
    },
  );

  const calls = [
    ...vectors<CallVector>('TestCPythonTags.test_all_args'),
    ...vectors<CallVector>('TestCPythonTags.test_major_only_python_version'),
    ...vectors<CallVector>('TestCPythonTags.test_abi3_python33'),
    ...vectors<CallVector>('TestCPythonTags.test_no_excess_abi3_python32'),
    ...vectors<CallVector>('TestCPythonTags.test_no_abi3_python31'),
    ...vectors<CallVector>('TestCPythonTags.test_no_abi3_python27'),
    ...vectors<CallVector>('TestCompatibleTags.test_all_args'),
    ...vectors<CallVector>('TestCompatibleTags.test_all_args_needs_underscore'),
    ...vectors<CallVector>('TestCompatibleTags.test_major_only_python_version'),
    ...vectors<CallVector>('TestMacOSPlatforms.test_mac_platforms'),
  ];
  it.each(calls)('$function (test_tags.py line $line)', ({ args, kwargs, expected, ...rest }) => {
    const fn = (rest as unknown as { function: string }).function;
    const [version, second, third] = args as [PythonVersionTuple, unknown, unknown];
    if (fn === 'cpython_tags') {
      expect(cpythonTags(version, (second ?? kwargs.abis) as string[], (third ?? kwargs.platforms) as string[])).toEqual(expected);
    } else if (fn === 'compatible_tags') {
      expect(compatibleTags(version, second as string, third as string[])).toEqual(expected);
    } else {
      expect(macPlatforms(version as unknown as MajorMinor, second as string)).toEqual(expected);
    }
  });

  it.each([[], ['abi3'], ['none']])('cpython_tags((3, 0), abis=%j) has only cp30-none (test_skip_redundant_abis)', (...abis) => {
    expect(cpythonTags([3, 0], abis, ['any'])).toEqual(['cp30-none-any']);
  });

  it('counts 14 macOS releases of 6 formats from 10.17 down, and none below 10.4 (test_mac_platforms)', () => {
    expect(macPlatforms([10, 17], 'x86_64')).toHaveLength(14 * 6);
    expect(macPlatforms([10, 0], 'x86_64')).toEqual([]);
  });

  it.each([
    [11, 0],
    [11, 3],
    [12, 0],
    [12, 3],
  ])('macOS %i.%i takes what packaging says (test_macos_11)', (major, minor) => {
    const intel = macPlatforms([major, minor], 'x86_64');
    expect(intel).not.toContain('macosx_11_0_arm64');
    expect(intel).toEqual(
      expect.arrayContaining([
        'macosx_11_0_x86_64',
        'macosx_11_0_universal',
        'macosx_11_0_universal2',
        'macosx_10_16_x86_64',
        'macosx_10_15_x86_64',
        'macosx_10_15_universal2',
        'macosx_10_4_x86_64',
      ]),
    );
    expect(intel).not.toContain('macosx_11_3_x86_64');
    expect(intel).not.toContain('macosx_10_3_x86_64');
    const arm = macPlatforms([major, minor], 'arm64');
    expect(arm).toEqual(expect.arrayContaining(['macosx_11_0_arm64', 'macosx_11_0_universal2', 'macosx_10_15_universal2']));
    for (const absent of ['macosx_11_3_arm64', 'macosx_11_0_universal', 'macosx_10_15_x86_64', 'macosx_10_4_x86_64'])
      expect(arm).not.toContain(absent);
    if (major >= 12) {
      expect(intel).toEqual(expect.arrayContaining(['macosx_12_0_x86_64', 'macosx_12_0_universal', 'macosx_12_0_universal2']));
      expect(arm).toEqual(expect.arrayContaining(['macosx_12_0_arm64', 'macosx_12_0_universal2']));
    }
  });

  // packaging 26.3 yields linux_<arch> first; conda-resolve keeps it last (tags.ts says why), so the
  // vectors are compared without it and linux_<arch> is checked to come last.
  it.each([
    ...vectors<{ glibc: string; arch: string; expected: string[] }>('TestManylinuxPlatform.test_linux_platforms_manylinux2010'),
    ...vectors<{ glibc: string; arch: string; expected: string[] }>('TestManylinuxPlatform.test_linux_platforms_manylinux2014'),
    ...vectors<{ glibc: string; arch: string; expected: string[] }>('TestManylinuxPlatform.test_linux_platforms_manylinux_glibc3'),
  ])('manylinux tags of glibc $glibc on $arch', ({ glibc, arch, expected }) => {
    const [major, minor] = glibc.split('.').map(Number) as [number, number];
    expect(manylinuxPlatforms([major, minor], arch)).toEqual(expected.filter((tag) => !tag.startsWith('linux_')));
    const platform = arch === 'x86_64' ? 'linux-64' : 'linux-aarch64';
    expect(condaPlatformTags({ platform, pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: glibc }] }).at(-1)).toBe(
      `linux_${arch}`,
    );
  });
});

describe('the tags of a conda target', () => {
  it('linux-64 with the default glibc 2.28: manylinux from 2.28 down to 2.5 with the legacy aliases, then linux_x86_64', () => {
    const tags = tagsFor('linux-64', '3.12');
    expect(tags.platforms.slice(0, 2)).toEqual(['manylinux_2_28_x86_64', 'manylinux_2_27_x86_64']);
    expect(tags.platforms).toEqual(expect.arrayContaining(['manylinux2014_x86_64', 'manylinux2010_x86_64', 'manylinux1_x86_64']));
    expect(tags.platforms).not.toContain('manylinux_2_29_x86_64');
    expect(tags.platforms.at(-1)).toBe('linux_x86_64');
    expect(tags.tags[0]).toBe('cp312-cp312-manylinux_2_28_x86_64');
    expect(tags.tags.at(-1)).toBe('py30-none-any');
    expect(tags.description).toBe('linux-64, CPython 3.12, glibc 2.28');
  });

  it('ranks the interpreter ABI over abi3, abi3 over older abi3, and those over pure Python', () => {
    const tags = tagsFor('linux-64', '3.12');
    const rank = (tag: string) => tags.rank.get(tag)!;
    expect(rank('cp312-cp312-manylinux_2_17_x86_64')).toBeLessThan(rank('cp312-abi3-manylinux_2_28_x86_64'));
    expect(rank('cp312-abi3-manylinux_2_17_x86_64')).toBeLessThan(rank('cp312-none-manylinux_2_28_x86_64'));
    expect(rank('cp312-none-linux_x86_64')).toBeLessThan(rank('cp311-abi3-manylinux_2_28_x86_64'));
    expect(rank('cp38-abi3-manylinux1_x86_64')).toBeLessThan(rank('py312-none-manylinux_2_28_x86_64'));
    expect(rank('cp312-none-any')).toBeLessThan(rank('py3-none-any'));
    expect(tags.rank.has('cp313-cp313-manylinux_2_17_x86_64')).toBe(false);
    expect(tags.rank.has('cp312-cp312-musllinux_1_2_x86_64')).toBe(false);
  });

  it('aarch64, ppc64le and s390x start manylinux at 2.17; armv6l has none', () => {
    expect(tagsFor('linux-aarch64', '3.12').platforms.slice(-3)).toEqual([
      'manylinux_2_17_aarch64',
      'manylinux2014_aarch64',
      'linux_aarch64',
    ]);
    expect(tagsFor('linux-ppc64le', '3.12').platforms.at(-2)).toBe('manylinux2014_ppc64le');
    expect(tagsFor('linux-s390x', '3.12', ['__glibc=2.34']).platforms[0]).toBe('manylinux_2_34_s390x');
    expect(tagsFor('linux-armv6l', '3.12').platforms).toEqual(['linux_armv6l']);
  });

  it('has no manylinux tags without __glibc, and musllinux only with __musl', () => {
    expect(targetTags({ platform: 'linux-64', pythonVersion: '3.12' }).platforms).toEqual(['linux_x86_64']);
    const musl = targetTags({ platform: 'linux-64', pythonVersion: '3.12', virtualPackages: [{ name: '__musl', version: '1.2' }] });
    expect(musl.platforms).toEqual(['musllinux_1_2_x86_64', 'musllinux_1_1_x86_64', 'musllinux_1_0_x86_64', 'linux_x86_64']);
  });

  it('osx-arm64 with the default __osx: arm64 and universal2 from macOS 13 down, universal2 back to 10.4', () => {
    const tags = tagsFor('osx-arm64', '3.12');
    expect(tags.platforms.slice(0, 4)).toEqual([
      'macosx_13_0_arm64',
      'macosx_13_0_universal2',
      'macosx_12_0_arm64',
      'macosx_12_0_universal2',
    ]);
    expect(tags.platforms).toContain('macosx_10_9_universal2');
    expect(tags.platforms).not.toContain('macosx_10_9_x86_64');
    expect(tags.platforms).not.toContain('macosx_14_0_arm64');
  });

  it('osx-64 takes x86_64, intel, fat and universal wheels back to 10.4', () => {
    const tags = tagsFor('osx-64', '3.11', ['__osx=10.15']);
    expect(tags.platforms.slice(0, 6)).toEqual([
      'macosx_10_15_x86_64',
      'macosx_10_15_intel',
      'macosx_10_15_fat64',
      'macosx_10_15_fat3',
      'macosx_10_15_universal2',
      'macosx_10_15_universal',
    ]);
    expect(tags.platforms.at(-1)).toBe('macosx_10_4_universal');
  });

  it('Windows has one platform tag per platform', () => {
    expect(tagsFor('win-64', '3.12').platforms).toEqual(['win_amd64']);
    expect(tagsFor('win-32', '3.12').platforms).toEqual(['win32']);
    expect(tagsFor('win-arm64', '3.12').platforms).toEqual(['win_arm64']);
    expect(tagsFor('win-64', '3.12').tags.slice(0, 4)).toEqual([
      'cp312-cp312-win_amd64',
      'cp312-abi3-win_amd64',
      'cp312-none-win_amd64',
      'cp311-abi3-win_amd64',
    ]);
  });

  it('a free-threaded Python takes cp313t and abi3t, not abi3', () => {
    const tags = tagsFor('linux-64', '3.13', [], { freeThreading: true });
    expect(tags.tags[0]).toBe('cp313-cp313t-manylinux_2_28_x86_64');
    expect(tags.rank.has('cp313-abi3t-manylinux_2_17_x86_64')).toBe(true);
    expect(tags.rank.has('cp313-cp313-manylinux_2_17_x86_64')).toBe(false);
    expect(tags.rank.has('cp312-abi3-manylinux_2_17_x86_64')).toBe(false);
    expect(tags.description).toBe('linux-64, CPython 3.13 (free-threaded), glibc 2.28');
  });

  it('older CPythons carry the pymalloc and UCS-4 flags in their ABI', () => {
    expect(tagsFor('linux-64', '3.7').tags[0]).toBe('cp37-cp37m-manylinux_2_28_x86_64');
    expect(tagsFor('linux-64', '2.7').tags[0]).toBe('cp27-cp27mu-manylinux_2_28_x86_64');
    expect(tagsFor('win-64', '2.7').tags[0]).toBe('cp27-cp27m-win_amd64');
  });

  it('PyPy takes its own ABI, then pp3-none-any', () => {
    const tags = tagsFor('linux-64', '3.10', [], { implementation: 'pypy', implementationVersion: '7.3.17' });
    expect(tags.tags[0]).toBe('pp310-pypy310_pp73-manylinux_2_28_x86_64');
    expect(tags.rank.has('pp3-none-any')).toBe(true);
    expect(tags.rank.has('cp310-abi3-manylinux_2_28_x86_64')).toBe(false);
  });

  it('GraalPy takes its own ABI and no interpreter-specific pure tag', () => {
    const tags = tagsFor('linux-64', '3.11', [], { implementation: 'graalpy', implementationVersion: '24.2.1' });
    expect(tags.tags[0]).toBe('graalpy311-graalpy242_311_native-manylinux_2_28_x86_64');
    expect(tags.tags.filter((tag) => tag.endsWith('-any'))[0]).toBe('py311-none-any');
    expect(tags.description).toBe('linux-64, GraalPy 3.11, glibc 2.28');
  });

  it('builds the target from a solved python record', () => {
    const record = (name: string, version: string, build: string, depends: string[] = []) => ({ name, version, build, depends });
    const virtualPackages = virtualPackageList('linux-64');
    const freeThreaded = tagTargetOf(
      'linux-64',
      pythonInterpreter(record('python', '3.13.1', 'h9a34b6e_102_cp313t', ['python_abi 3.13.* *_cp313t'])),
      virtualPackages,
    );
    expect(targetTags(freeThreaded).tags[0]).toBe('cp313-cp313t-manylinux_2_28_x86_64');
    const pypy = pythonInterpreter(record('python', '3.10.14', '0_pypy'), [record('pypy3.10', '7.3.17', 'h0_0')]);
    expect(targetTags(tagTargetOf('linux-64', pypy, virtualPackages)).tags[0]).toBe('pp310-pypy310_pp73-manylinux_2_28_x86_64');
    expect(tagTargetOf('win-64', pythonInterpreter(record('python', '3.12.7', 'h0_0_cpython')), [])).toEqual({
      platform: 'win-64',
      pythonVersion: '3.12',
      implementation: 'cpython',
      freeThreading: false,
      virtualPackages: [],
    });
  });

  it('platforms with no wheel platform take pure-Python wheels only', () => {
    const tags = tagsFor('freebsd-64', '3.12');
    expect(tags.platforms).toEqual([]);
    expect(tags.tags).toEqual([
      'cp312-none-any',
      'py312-none-any',
      'py3-none-any',
      ...Array.from({ length: 12 }, (_, i) => `py3${11 - i}-none-any`),
    ]);
  });

  it('refuses a Python version or virtual package version that is not one', () => {
    expect(() => targetTags({ platform: 'linux-64', pythonVersion: 'three' })).toThrow(InvalidTagTargetError);
    expect(() => targetTags({ platform: 'linux-64', pythonVersion: 'three' })).toThrow(
      'Cannot compute the wheel tags of the target: the Python version "three" is not a version',
    );
    expect(() => targetTags({ platform: 'linux-64', pythonVersion: '3.12', virtualPackages: [{ name: '__glibc', version: 'x' }] })).toThrow(
      'the version of __glibc "x"',
    );
  });
});

describe('choosing a wheel', () => {
  const wheels = [
    'numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
    'numpy-2.1.3-cp312-cp312-musllinux_1_2_x86_64.whl',
    'numpy-2.1.3-cp312-cp312-macosx_14_0_arm64.whl',
    'numpy-2.1.3-cp312-cp312-macosx_10_13_x86_64.whl',
    'numpy-2.1.3-cp312-cp312-win_amd64.whl',
    'numpy-2.1.3-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
    'numpy-2.1.3-cp313-cp313t-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
  ].map(parseWheelFileName);

  it('takes the best-ranked wheel for each target', () => {
    expect(bestWheel(tagsFor('linux-64', '3.12'), wheels)?.fileName).toBe(wheels[0]!.fileName);
    expect(bestWheel(tagsFor('linux-64', '3.13'), wheels)?.fileName).toBe(wheels[5]!.fileName);
    expect(bestWheel(tagsFor('linux-64', '3.13', [], { freeThreading: true }), wheels)?.fileName).toBe(wheels[6]!.fileName);
    expect(bestWheel(tagsFor('osx-arm64', '3.12', ['__osx=14.5']), wheels)?.fileName).toBe(wheels[2]!.fileName);
    expect(bestWheel(tagsFor('osx-arm64', '3.12', ['__osx=13.0']), wheels)).toBeUndefined();
    expect(bestWheel(tagsFor('linux-aarch64', '3.12'), wheels)).toBeUndefined();
    expect(wheelRank(tagsFor('win-64', '3.12'), wheels[4]!.tags)).toBe(0);
  });

  it('prefers a specific wheel over a pure one, and the higher build tag between equals', () => {
    const pure = parseWheelFileName('foo-1.0-py3-none-any.whl');
    const native = parseWheelFileName('foo-1.0-cp312-abi3-manylinux_2_17_x86_64.whl');
    const rebuilt = parseWheelFileName('foo-1.0-2-py3-none-any.whl');
    expect(bestWheel(tagsFor('linux-64', '3.12'), [pure, native])).toBe(native);
    expect(bestWheel(tagsFor('linux-64', '3.12'), [pure, rebuilt])).toBe(rebuilt);
    expect(bestWheel(tagsFor('linux-64', '3.12'), [rebuilt, pure])).toBe(rebuilt);
  });
});

describe('the error when no wheel fits', () => {
  const numpy = [
    'numpy-2.1.3-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
    'numpy-2.1.3-cp313-cp313-macosx_14_0_arm64.whl',
    'numpy-2.1.3-cp313-cp313-win_amd64.whl',
  ].map(parseWheelFileName);

  it('names the platforms the release has wheels for and the target', () => {
    expect(describeMissingWheel('numpy', '2.1.3', tagsFor('linux-aarch64', '3.13'), numpy)).toBe(
      'numpy 2.1.3 has wheels for manylinux_2_17_x86_64, macosx_14_0_arm64 and win_amd64, none for linux-aarch64 (CPython 3.13, glibc 2.28)',
    );
  });

  it('says when the wheels for the platform are for other Pythons', () => {
    expect(describeMissingWheel('numpy', '2.1.3', tagsFor('win-64', '3.11'), numpy)).toBe(
      'numpy 2.1.3 has wheels for manylinux_2_17_x86_64, macosx_14_0_arm64 and win_amd64, none for win-64 (CPython 3.11); its wheels for this platform are for cp313',
    );
  });

  it('says when a newer glibc or macOS would let a wheel in', () => {
    const wheels = ['torch-2.5.0-cp312-cp312-manylinux_2_34_aarch64.whl', 'torch-2.5.0-cp312-none-macosx_14_0_arm64.whl'].map(
      parseWheelFileName,
    );
    expect(describeMissingWheel('torch', '2.5.0', tagsFor('linux-aarch64', '3.12'), wheels)).toContain(
      'its oldest manylinux wheel for aarch64 needs glibc 2.34 (give the target a newer one with __glibc=2.34 if it has it)',
    );
    expect(describeMissingWheel('torch', '2.5.0', tagsFor('osx-arm64', '3.12'), wheels)).toContain(
      'its oldest macOS wheel for osx-arm64 needs macOS 14.0',
    );
  });

  it('mentions an sdist it will not build, and a release with no wheels', () => {
    expect(describeMissingWheel('foo', '1.0', tagsFor('linux-64', '3.12'), [], { hasSdist: true })).toBe(
      'foo 1.0 has no wheels, only an sdist, none for linux-64 (CPython 3.12, glibc 2.28)',
    );
    expect(describeMissingWheel('numpy', '2.1.3', tagsFor('linux-aarch64', '3.13'), numpy, { hasSdist: true })).toMatch(
      /; it has an sdist, which would need a build \(conda-resolve never builds\)$/,
    );
  });

  it('lists at most ten platforms', () => {
    const many = Array.from({ length: 14 }, (_, i) => parseWheelFileName(`foo-1.0-cp39-cp39-manylinux_2_${17 + i}_ppc64le.whl`));
    expect(describeMissingWheel('foo', '1.0', tagsFor('win-64', '3.12'), many)).toContain(
      'manylinux_2_26_ppc64le and 4 more, none for win-64',
    );
  });

  it('is a typed error with a registered code', () => {
    const error = noCompatibleWheelError('numpy', '2.1.3', tagsFor('linux-aarch64', '3.13'), numpy);
    expect(error).toBeInstanceOf(NoCompatibleWheelError);
    expect(error).toMatchObject({ code: 'CR_ERR_PYPI_NO_COMPATIBLE_WHEEL', project: 'numpy', version: '2.1.3', platform: 'linux-aarch64' });
  });
});
