import { describe, expect, it } from 'vitest';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { InvalidDistributionFileNameError } from '../../../vocabulary/pypi/distribution-errors.js';
import {
  formatWheelTag,
  parseDistributionFileName,
  parseSdistFileName,
  parseWheelFileName,
  parseWheelTagSet,
} from '../../../vocabulary/pypi/distribution-file-name.js';
import { thrown } from '../../helpers/thrown.js';
import { thirdPartyJson } from '../../helpers/third-party.js';

// pypa/packaging's own vectors (tests/test_utils.py, tests/test_tags.py), carried over by vectors/extract-files.py.
// Absent (../shared/third-party, test/THIRD-PARTY-DATA.md), the tables are empty and their tests are not there.
const VECTORS = thirdPartyJson<{ commit: string; tests: Record<string, Record<string, unknown>[]> }>(
  'pypa-packaging/packaging-files.json',
) ?? { commit: 'absent', tests: {} };
const vectors = <T>(name: string): T[] => {
  const found = VECTORS.tests[name];
  if (found === undefined) {
    if (VECTORS.commit === 'absent') return [];
    throw new Error(`no vectors named ${name}`);
  }
  return found as T[];
};

describe.skipIf(VECTORS.commit === 'absent')(`packaging's wheel file name vectors (pypa/packaging ${VECTORS.commit.slice(0, 7)})`, () => {
  it.each(
    vectors<{ filename: string; name: string; version: string; build: [number, string] | []; tags: string[] }>(
      'tests/test_utils.py::test_parse_wheel_filename',
    ),
  )('parses $filename', ({ filename, name, version, build, tags }) => {
    const wheel = parseWheelFileName(filename);
    expect(wheel.name).toBe(name);
    expect(String(wheel.version)).toBe(version);
    expect(wheel.build === undefined ? [] : [wheel.build.number, wheel.build.suffix]).toEqual(build);
    expect(wheel.tags.map(formatWheelTag).sort()).toEqual(tags);
  });

  it.each(vectors<{ filename: string }>('tests/test_utils.py::test_parse_wheel_invalid_filename'))('refuses $filename', ({ filename }) => {
    const error = thrown(() => parseWheelFileName(filename));
    expect(error).toBeInstanceOf(InvalidDistributionFileNameError);
    expect((error as CondaResolveError).code).toBe('CR_ERR_PYPI_FILENAME_INVALID');
  });

  it.each(vectors<{ filename: string; name: string; version: string }>('tests/test_utils.py::test_parse_sdist_filename'))(
    'parses $filename',
    ({ filename, name, version }) => {
      const sdist = parseSdistFileName(filename);
      expect(sdist.name).toBe(name);
      expect(String(sdist.version)).toBe(version);
    },
  );

  it.each(vectors<{ filename: string }>('tests/test_utils.py::test_parse_sdist_invalid_filename'))('refuses $filename', ({ filename }) => {
    expect(() => parseSdistFileName(filename)).toThrow(InvalidDistributionFileNameError);
  });

  it.each([
    ...vectors<{ tag: string }>('tests/test_tags.py::test_empty_component_raises'),
    ...vectors<{ tag: string }>('tests/test_tags.py::test_invalid_interpreter_raises'),
    ...vectors<{ tag: string }>('tests/test_tags.py::test_invalid_component_count_raises'),
  ])('refuses the tag set $tag', ({ tag }) => {
    expect(typeof parseWheelTagSet(tag)).toBe('string');
  });

  it.each(vectors<{ interpreter: string }>('tests/test_tags.py::test_identifier_interpreter_is_valid'))(
    'takes any identifier as interpreter: $interpreter',
    ({ interpreter }) => {
      expect(parseWheelTagSet(`${interpreter}-none-any`)).toEqual([{ interpreter, abi: 'none', platform: 'any' }]);
    },
  );
});

describe('wheel file names', () => {
  it('expands a compressed tag set, interpreter first, and lower-cases it', () => {
    const wheel = parseWheelFileName('numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl');
    expect(wheel.tagText).toBe('cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64');
    expect(wheel.tags.map(formatWheelTag)).toEqual(['cp312-cp312-manylinux_2_17_x86_64', 'cp312-cp312-manylinux2014_x86_64']);
    expect(parseWheelFileName('six-1.16.0-PY2.py3-none-any.whl').tags.map(formatWheelTag)).toEqual(['py2-none-any', 'py3-none-any']);
  });

  it('reads the build tag as a number and a suffix', () => {
    expect(parseWheelFileName('foo-1.0-12beta-py3-none-any.whl').build).toEqual({ number: 12, suffix: 'beta' });
    expect(parseWheelFileName('foo-1.0-py3-none-any.whl').build).toBeUndefined();
  });

  it('normalises the name and keeps the version as written beside the parsed one', () => {
    const wheel = parseWheelFileName('Typing_Extensions-4.12.0-py3-none-any.whl');
    expect(wheel.name).toBe('typing-extensions');
    expect(wheel.versionText).toBe('4.12.0');
  });

  it('says which part is wrong', () => {
    expect(() => parseWheelFileName('foo-1.x-py3-none-any.whl')).toThrow(
      'Cannot parse wheel file name "foo-1.x-py3-none-any.whl": "1.x" is not a valid version',
    );
    expect(() => parseWheelFileName('foo-1.0-abc-py3-none-any.whl')).toThrow('the build tag "abc" does not start with a digit');
    expect(() => parseWheelFileName('foo-1.0.whl')).toThrow('expected 5 or 6 parts');
    expect(() => parseWheelFileName('foo-1.0-py3.-none-any.whl')).toThrow('has an empty component');
  });
});

describe('sdist file names', () => {
  it('tells PEP 625 names from legacy ones', () => {
    expect(parseSdistFileName('typing_extensions-4.12.0.tar.gz').pep625).toBe(true);
    expect(parseSdistFileName('typing-extensions-4.12.0.tar.gz').pep625).toBe(false);
    expect(parseSdistFileName('typing_extensions-4.12.0-1.tar.gz', { project: 'typing-extensions' }).pep625).toBe(false);
    expect(parseSdistFileName('foo-1.0.zip')).toMatchObject({ name: 'foo', extension: '.zip', pep625: false });
  });

  it('reads legacy archive kinds older releases carry', () => {
    expect(parseSdistFileName('pytz-2006.1.tar.bz2')).toMatchObject({ name: 'pytz', versionText: '2006.1', extension: '.tar.bz2' });
    expect(() => parseSdistFileName('pytz-2006p.tar.bz2')).toThrow('"2006p" is not a valid version');
    expect(parseSdistFileName('Foo-1.0.tgz')).toMatchObject({ name: 'foo', extension: '.tgz' });
  });

  it('splits at the last "-" without a project, and where the project name ends with one', () => {
    // "foo-1.0-1" is "foo-1-0" version 1 by the last dash (packaging's reading), "foo" version 1.0-1 (= 1.0.post1) for project foo.
    expect(parseSdistFileName('foo-1.0-1.tar.gz')).toMatchObject({ name: 'foo-1-0', versionText: '1' });
    const sdist = parseSdistFileName('foo-1.0-1.tar.gz', { project: 'Foo' });
    expect(sdist).toMatchObject({ name: 'foo', versionText: '1.0-1' });
    expect(String(sdist.version)).toBe('1.0.post1');
    expect(parseSdistFileName('python-dateutil-2.9.0.tar.gz', { project: 'python_dateutil' })).toMatchObject({
      name: 'python-dateutil',
      versionText: '2.9.0',
    });
    expect(() => parseSdistFileName('other-1.0.tar.gz', { project: 'foo' })).toThrow('does not start with the project name "foo"');
  });

  it('says what is wrong', () => {
    expect(() => parseSdistFileName('foo-1.0.xz')).toThrow(
      /Cannot parse sdist file name "foo-1.0.xz": the extension is not one of \.tar\.gz, \.zip/,
    );
    expect(() => parseSdistFileName('foo1.0.tar.gz')).toThrow('no "-" separates the name from the version');
    expect(() => parseSdistFileName('-1.0.tar.gz')).toThrow('the project name is empty');
  });
});

describe('parseDistributionFileName', () => {
  it('tells wheels, sdists and the rest apart', () => {
    expect(parseDistributionFileName('foo-1.0-py3-none-any.whl')?.kind).toBe('wheel');
    expect(parseDistributionFileName('foo-1.0.tar.gz')?.kind).toBe('sdist');
    expect(parseDistributionFileName('foo-1.0-py2.7.egg')).toBeUndefined();
    expect(parseDistributionFileName('foo-1.0.win32.exe')).toBeUndefined();
  });
});
