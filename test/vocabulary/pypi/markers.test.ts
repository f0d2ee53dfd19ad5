import { describe, expect, it } from 'vitest';
import {
  decodePythonString,
  evaluateMarker,
  parseMarker,
  tryParseMarker,
  type MarkerEnvironment,
} from '../../../vocabulary/pypi/markers.js';
import { HAVE_PACKAGING_VECTORS, LINUX_CPYTHON_312, packagingVectors } from './vectors.js';

const vectors = <T extends Record<string, unknown>>(test: string) => packagingVectors<T>('test_markers', `TestMarker.${test}`);

const LINUX = LINUX_CPYTHON_312;

describe('PEP 508 markers: parsing (pypa/packaging vectors)', () => {
  const valid = [
    ...vectors<{ marker_string: string }>('test_parses_valid'),
    ...vectors<{ marker_string: string }>('test_parses_pep345_valid'),
  ];
  it(`parses all ${valid.length} valid markers (every variable, operator and value, either side)`, () => {
    expect(valid.filter(({ marker_string }) => tryParseMarker(marker_string) === undefined)).toEqual([]);
  });

  it.each(vectors<{ marker_string: string }>('test_parses_invalid'))('refuses $marker_string', ({ marker_string }) => {
    expect(() => parseMarker(marker_string)).toThrow(expect.objectContaining({ code: 'CR_ERR_PYPI_MARKER_INVALID' }));
  });

  it.each(vectors<{ marker_string: string; expected: string }>('test_str_repr_eq_hash'))(
    'writes $marker_string as $expected',
    ({ marker_string, expected }) => {
      expect(String(parseMarker(marker_string))).toBe(expected);
      expect(String(parseMarker(expected))).toBe(expected);
    },
  );

  it('keeps the parentheses a group needs, normalises extra names, reads PEP 345 spellings', () => {
    expect(String(parseMarker('os_name == "a" and ((sys_platform == "b" or sys_platform == "c"))'))).toBe(
      'os_name == "a" and (sys_platform == "b" or sys_platform == "c")',
    );
    expect(String(parseMarker("extra == 'Foo_Bar'"))).toBe('extra == "foo-bar"');
    expect(String(parseMarker('os.name == "nt" or platform.python_implementation == "PyPy" or python_implementation == "x"'))).toBe(
      'os_name == "nt" or platform_python_implementation == "PyPy" or platform_python_implementation == "x"',
    );
    expect(String(parseMarker(`'a"' == os_name`))).toBe(`'a"' == os_name`);
    expect(parseMarker('python_version >= "3.8" and (os_name == "nt" or extra == "x")').node).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', left: { variable: 'python_version' }, op: '>=', right: { value: '3.8' } },
        {
          kind: 'or',
          parenthesized: true,
          items: [
            { kind: 'compare', left: { variable: 'os_name' }, op: '==', right: { value: 'nt' } },
            { kind: 'compare', left: { variable: 'extra' }, op: '==', right: { value: 'x' } },
          ],
        },
      ],
    });
  });

  it('reads quoted strings as Python does, refuses what Python refuses, a trailing line break too', () => {
    expect(decodePythonString(String.raw`'a\x41\u00e9\101\n\q'`)).toBe('aAéA\n\\q');
    expect(decodePythonString(String.raw`"C:\"`)).toBeUndefined();
    expect(decodePythonString(String.raw`"\x"`)).toBeUndefined();
    expect(decodePythonString("'a\\\nb'")).toBe('ab');
    expect(decodePythonString("'a\\\r\nb'")).toBe('ab');
    expect(decodePythonString("'a\\\\\nb'")).toBeUndefined(); // an escaped backslash, then a bare line break
    expect(decodePythonString("'a\rb'")).toBeUndefined();
    expect(() => parseMarker(String.raw`os_name == "\x"`)).toThrow('Invalid quoted string');
    for (const lineBreak of ['\n', '\r', '\r\n']) expect(tryParseMarker(`python_version >= "3"${lineBreak}`)).toBeUndefined();
    expect(String(parseMarker('python_version >= "3" \t'))).toBe('python_version >= "3"');
  });

  it('names the marker, the problem and the position', () => {
    expect(() => parseMarker('python_version >= "3" with text')).toThrow(
      'Cannot parse environment marker "python_version >= \\"3\\" with text": Expected end of marker expression at position 22',
    );
  });
});

describe.skipIf(!HAVE_PACKAGING_VECTORS)('PEP 508 markers: evaluation (pypa/packaging vectors)', () => {
  // Vectors whose environment is the test machine's own (null) say nothing about a target: skipped.
  type Evaluates = { marker_string: string; environment: Record<string, string> | null; expected: boolean };
  const withEnvironment = [
    ...vectors<Evaluates>('test_evaluates'),
    ...vectors<Evaluates>('test_evaluate_pep345_markers'),
    ...vectors<Evaluates>('test_version_like_equality'),
  ].filter((v) => v.environment !== null);
  it.each(withEnvironment)('$marker_string in $environment: $expected', ({ marker_string, environment, expected }) => {
    const { extra, ...rest } = environment!;
    expect(evaluateMarker(marker_string, { ...LINUX, ...rest }, { extras: extra ? [extra] : [] })).toBe(expected);
  });

  it.each(vectors<{ expression: string; variable: string; result: boolean }>('test_extras_and_dependency_groups'))(
    '$expression with $variable {foo, bar}: $result',
    ({ expression, variable, result }) => {
      const marker = expression.replaceAll('{0}', variable);
      const options = variable === 'extras' ? { extras: ['foo', 'bar'] } : { dependencyGroups: ['foo', 'bar'] };
      expect(evaluateMarker(marker, LINUX, options)).toBe(result);
    },
  );
});

describe('PEP 508 markers: evaluation', () => {
  const holds = (marker: string, env: Partial<MarkerEnvironment> = {}, extras: string[] = []) =>
    evaluateMarker(marker, { ...LINUX, ...env }, { extras });

  it('compares the version variables as versions, pre-releases included', () => {
    expect(holds('python_version >= "3.8"')).toBe(true);
    expect(holds('python_version < "3.10"')).toBe(false); // not a string comparison ("3.12" < "3.10" as text)
    expect(holds('"3.9" < python_version')).toBe(true);
    expect(holds('python_full_version >= "3.13.0rc1"', { python_full_version: '3.13.0rc2' })).toBe(true);
    expect(holds('python_version == "3.*"')).toBe(true);
    expect(holds('python_version ~= "3.10"')).toBe(true);
    expect(holds('python_version === "3.12"')).toBe(true);
    expect(holds('platform_release >= "5.4"', { platform_release: '6.1.0-18-amd64' })).toBe(false); // no version: string rules, < and > false
  });

  it('compares other variables as strings: in is a substring test, < and > are false', () => {
    expect(holds('"linux" in sys_platform')).toBe(true);
    expect(holds('"x86" not in platform_machine')).toBe(false);
    expect(holds('os_name < "z"')).toBe(false);
    expect(holds('os_name >= "posix"')).toBe(true);
    expect(holds('implementation_name != "pypy"')).toBe(true);
  });

  it('refuses comparisons PEP 508 leaves undefined', () => {
    expect(() => holds('os_name ~= "posix"')).toThrow(expect.objectContaining({ code: 'CR_ERR_PYPI_MARKER_EVALUATION' }));
    expect(() => evaluateMarker('extras == "foo"', LINUX)).toThrow('extras is a set');
    expect(() => evaluateMarker('os_name == "posix"', {} as MarkerEnvironment)).toThrow('the environment has no os_name');
  });

  it('evaluates every comparison, as packaging does: an undefined one fails even where the answer is known', () => {
    // Found by the packaging oracle: we stopped at the first false of an `and`, packaging does not.
    expect(() => holds('os_name == "nt" and os_name ~= "posix"')).toThrow(
      expect.objectContaining({ code: 'CR_ERR_PYPI_MARKER_EVALUATION' }),
    );
    expect(() => holds('os_name == "posix" or os_name === "posix"')).toThrow(
      expect.objectContaining({ code: 'CR_ERR_PYPI_MARKER_EVALUATION' }),
    );
  });

  it('evaluates extra once per extra asked for, "" without one', () => {
    expect(holds('extra == "socks"')).toBe(false);
    expect(holds('extra == "socks"', {}, ['security', 'SOCKS'])).toBe(true);
    expect(holds('extra != "socks"', {}, ['socks'])).toBe(false);
    expect(holds('extra == ""')).toBe(true);
    expect(holds('python_version >= "3" and extra == "test_utils"', {}, ['test-utils'])).toBe(true);
  });

  it('binds and before or', () => {
    expect(holds('os_name == "nt" and python_version >= "3" or sys_platform == "linux"')).toBe(true);
    expect(holds('os_name == "nt" and (python_version >= "3" or sys_platform == "linux")')).toBe(false);
  });
});
