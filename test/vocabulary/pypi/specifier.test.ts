import { describe, expect, it } from 'vitest';
import { parsePypiSpecifier, parsePypiSpecifierSet, tryParsePypiSpecifierSet } from '../../../vocabulary/pypi/specifier.js';
import { parsePypiVersion } from '../../../vocabulary/pypi/version.js';
import { HAVE_PACKAGING_VECTORS, packagingVectors } from './vectors.js';

type Pre = boolean | null;
const vectors = <T extends Record<string, unknown>>(test: string) => packagingVectors<T>('test_specifiers', test);
const opt = (prereleases: Pre | undefined) => (prereleases === null || prereleases === undefined ? {} : { prereleases });

describe('PEP 440 specifiers: syntax (pypa/packaging vectors)', () => {
  it.each(vectors<{ specifier: string }>('TestSpecifier.test_specifiers_valid'))('parses $specifier', ({ specifier }) => {
    expect(String(parsePypiSpecifier(specifier))).toBe(specifier);
  });

  it.each(vectors<{ specifier: string }>('TestSpecifier.test_specifiers_invalid'))(
    'refuses $specifier with a typed error',
    ({ specifier }) => {
      expect(() => parsePypiSpecifier(specifier)).toThrow(expect.objectContaining({ code: 'CR_ERR_PYPI_SPECIFIER_INVALID' }));
    },
  );

  it.each(vectors<{ version: string }>('TestSpecifier.test_specifiers_normalized'))(
    'accepts every spelling of $version after each operator',
    ({ version }) => {
      const ops = version.includes('+') ? ['==', '!='] : ['~=', '==', '!=', '<=', '>=', '<', '>'];
      for (const op of ops) expect(parsePypiSpecifier(op + version).operator).toBe(op);
    },
  );

  it.each(vectors<{ specifier: string; expected: string }>('TestSpecifier.test_specifiers_str_and_repr'))(
    'writes $specifier as $expected',
    ({ specifier, expected }) => {
      expect(String(parsePypiSpecifier(specifier))).toBe(expected);
    },
  );

  it.each(vectors<{ specifier: string; expected: string }>('TestSpecifierSet.test_specifiers_str_and_repr'))(
    'writes the set $specifier as $expected',
    ({ specifier, expected }) => {
      expect(String(parsePypiSpecifierSet(specifier))).toBe(expected);
    },
  );

  it.each(vectors<{ specifier: string; expected: boolean }>('TestSpecifier.test_specifier_prereleases_detection'))(
    '$specifier names a pre-release: $expected',
    ({ specifier, expected }) => {
      expect(parsePypiSpecifier(specifier).namesPrerelease).toBe(expected);
    },
  );

  it('says what is wrong with a specifier, and which one of a set', () => {
    const reason = (text: string) => {
      try {
        parsePypiSpecifierSet(text);
      } catch (error) {
        return (error as Error).message;
      }
      return 'parsed';
    };
    expect(reason('>=1.0.*')).toContain('a .* wildcard goes only with == and !=');
    expect(reason('~=1')).toContain('~= needs at least two release numbers');
    expect(reason('<1.0+local')).toContain('a local version label (+...) goes only with == and !=');
    expect(reason('1.0')).toContain('a specifier starts with one of');
    expect(reason('>=1.0, <2.0 beta')).toBe(
      'Cannot parse Python version specifier ">=1.0, <2.0 beta": "<2.0 beta": "2.0 beta" is not a PEP 440 version',
    );
    expect(tryParsePypiSpecifierSet('>=1,<2')?.specifiers).toHaveLength(2);
    expect(tryParsePypiSpecifierSet('=>1')).toBeUndefined();
  });
});

describe.skipIf(!HAVE_PACKAGING_VECTORS)('PEP 440 specifiers: matching (pypa/packaging vectors)', () => {
  it.each(vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifier.test_specifiers'))(
    '$spec_str against $version: $expected',
    ({ spec_str, version, expected }) => {
      const set = parsePypiSpecifierSet(spec_str, { prereleases: true });
      expect(set.contains(version)).toBe(expected);
      expect(set.contains(parsePypiVersion(version))).toBe(expected);
    },
  );

  it.each(
    vectors<{ specifier: string; version: string; spec_pre: Pre; contains_pre: Pre; expected: boolean }>(
      'TestSpecifier.test_specifiers_prereleases',
    ),
  )(
    '$specifier (prereleases $spec_pre/$contains_pre) against $version: $expected',
    ({ specifier, version, spec_pre, contains_pre, expected }) => {
      expect(parsePypiSpecifierSet(specifier, opt(spec_pre)).contains(version, opt(contains_pre))).toBe(expected);
    },
  );

  it.each(vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifier.test_arbitrary_equality'))(
    '$spec_str against $version: $expected',
    ({ spec_str, version, expected }) => {
      expect(parsePypiSpecifierSet(spec_str).contains(version)).toBe(expected);
    },
  );

  it.each(vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifier.test_arbitrary_equality_normalization'))(
    '$spec_str against $version: $expected',
    ({ spec_str, version, expected }) => {
      expect(parsePypiSpecifierSet(spec_str, { prereleases: true }).contains(version)).toBe(expected);
    },
  );

  it.each(vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifier.test_invalid_version'))(
    '$spec_str against the non-version $version: $expected',
    ({ spec_str, version, expected }) => {
      expect(parsePypiSpecifierSet(spec_str, { prereleases: true }).contains(version)).toBe(expected);
    },
  );

  type Filter = { specifier: string; specifier_prereleases?: Pre; prereleases: Pre; input: string[]; expected: string[] };
  it.each([
    ...vectors<Filter>('TestSpecifier.test_specifier_filter'),
    ...vectors<Filter>('TestSpecifierSet.test_specifier_filter'),
    ...vectors<Filter>('TestSpecifierSet.test_filter_exclusionary_bridges'),
  ])(
    'filters $input by $specifier (prereleases $specifier_prereleases/$prereleases)',
    ({ specifier, specifier_prereleases, prereleases, input, expected }) => {
      expect(parsePypiSpecifierSet(specifier, opt(specifier_prereleases)).filter(input, opt(prereleases))).toEqual(expected);
    },
  );

  it.each(
    vectors<{ specifier: string; input: string[]; expected: string[] }>(
      'TestSpecifier.test_specifier_filter_arbitrary_equality_normalization',
    ),
  )('filters $input by $specifier, comparing strings as written', ({ specifier, input, expected }) => {
    expect(parsePypiSpecifierSet(specifier, { prereleases: true }).filter(input)).toEqual(expected);
  });

  it.each(vectors<{ version: string }>('TestSpecifierSet.test_empty_specifier'))(
    'the empty set allowing pre-releases contains $version',
    ({ version }) => {
      const set = parsePypiSpecifierSet('', { prereleases: true });
      expect(set.contains(version)).toBe(true);
      expect(set.contains(parsePypiVersion(version))).toBe(true);
    },
  );

  it.each(vectors<{ prereleases: Pre; versions: string[]; expected: string[] }>('TestSpecifierSet.test_empty_specifier_arbitrary_string'))(
    'the empty set (prereleases $prereleases) filters $versions',
    ({ prereleases, versions, expected }) => {
      const set = parsePypiSpecifierSet('', opt(prereleases));
      expect(set.contains('foobar')).toBe(true);
      expect(set.filter(versions)).toEqual(expected);
    },
  );

  it.each(
    vectors<{
      specifier: string;
      version: string;
      spec_prereleases: Pre;
      contains_prereleases: Pre;
      installed: boolean | null;
      expected: boolean;
    }>('TestSpecifierSet.test_specifier_contains_installed_prereleases'),
  )(
    '$specifier contains the installed $version: $expected',
    ({ specifier, version, spec_prereleases, contains_prereleases, installed, expected }) => {
      const set = parsePypiSpecifierSet(specifier, opt(spec_prereleases));
      expect(set.contains(version, { ...opt(contains_prereleases), ...(installed === null ? {} : { installed }) })).toBe(expected);
    },
  );

  it.each(
    vectors<{
      spec_str: string;
      version: string;
      initial_prereleases: Pre;
      set_prereleases: Pre;
      initial_contains: boolean;
      final_contains: boolean;
    }>('TestSpecifierSet.test_specifier_prereleases_explicit'),
  )('$spec_str with prereleases $initial_prereleases then $set_prereleases against $version', (v) => {
    expect(parsePypiSpecifierSet(v.spec_str, opt(v.initial_prereleases)).contains(v.version)).toBe(v.initial_contains);
    expect(parsePypiSpecifierSet(v.spec_str, opt(v.set_prereleases)).contains(v.version)).toBe(v.final_contains);
  });

  it.each(
    vectors<{ specifier: string; prereleases: Pre; version: string; expected: boolean }>(
      'TestSpecifierSet.test_contains_exclusionary_bridges',
    ),
  )('$specifier (prereleases $prereleases) against $version: $expected', ({ specifier, prereleases, version, expected }) => {
    expect(parsePypiSpecifierSet(specifier).contains(version, opt(prereleases))).toBe(expected);
  });

  it.each(vectors<{ specifier: string; version: string; expected: boolean }>('TestSpecifierSet.test_contains_arbitrary_equality_contains'))(
    '$specifier against $version: $expected',
    ({ specifier, version, expected }) => {
      expect(parsePypiSpecifierSet(specifier).contains(version)).toBe(expected);
    },
  );

  it.each(
    vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifierSet.test_contains_arbitrary_equality_normalization'),
  )('$spec_str against $version: $expected', ({ spec_str, version, expected }) => {
    expect(parsePypiSpecifierSet(spec_str).contains(version)).toBe(expected);
  });

  it.each(
    vectors<{ spec_str: string; version: string; expected: boolean }>('TestSpecifierSet.test_contains_post_release_boundary_intersection'),
  )('$spec_str against $version: $expected', ({ spec_str, version, expected }) => {
    expect(parsePypiSpecifierSet(spec_str).contains(version, { prereleases: true })).toBe(expected);
  });

  it.each(vectors<{ specifier: string; version: string; expected: boolean }>('TestSpecifierSet.test_comparison_ignores_local'))(
    '$specifier against $version: $expected',
    ({ specifier, version, expected }) => {
      expect(parsePypiSpecifierSet(specifier).contains(parsePypiVersion(version))).toBe(expected);
    },
  );
});

describe('PEP 440 specifiers: the pre-release rule', () => {
  const versions = ['1.0', '2.0rc1', '1.5'];
  it('drops pre-releases while a final release satisfies, keeps them when none does', () => {
    expect(parsePypiSpecifierSet('>=1.0').filter(versions)).toEqual(['1.0', '1.5']);
    expect(parsePypiSpecifierSet('>=1.6').filter(versions)).toEqual(['2.0rc1']);
  });
  it('keeps them when a specifier names one, or with --pre; refuses them with prereleases: false', () => {
    expect(parsePypiSpecifierSet('>=1.0,!=2.0b1').filter(versions)).toEqual(['1.0', '1.5']);
    expect(parsePypiSpecifierSet('>=2.0b1').filter(versions)).toEqual(['2.0rc1']);
    expect(parsePypiSpecifierSet('>=1.0').filter(versions, { prereleases: true })).toEqual(versions);
    expect(parsePypiSpecifierSet('>=1.6').filter(versions, { prereleases: false })).toEqual([]);
  });
  it('combines two sets, keeping one pre-release choice', () => {
    const both = parsePypiSpecifierSet('>=1.0').and(parsePypiSpecifierSet('<2,!=1.5', { prereleases: true }));
    expect(String(both)).toBe('!=1.5,<2,>=1.0');
    expect(both.prereleaseOverride).toBe(true);
    expect(both.filter(['0.9', '1.5', '1.6a1', '2.0'])).toEqual(['1.6a1']);
    expect(() => parsePypiSpecifierSet('>1', { prereleases: false }).and(parsePypiSpecifierSet('<3', { prereleases: true }))).toThrow(
      'one set allows pre-releases and the other refuses them',
    );
  });

  it('filters any items through a key', () => {
    const records = [{ v: '1.0' }, { v: '3.0' }];
    expect(parsePypiSpecifierSet('>1').filter(records, { key: (r) => r.v })).toEqual([{ v: '3.0' }]);
  });
  it('follows PEP 440 where packaging reads ~= by string (non-normalised pre-release spellings)', () => {
    // packaging 26 keeps "1.0" as the prefix of ~=1.0c1 and ~=1.0.pre1 (it does not see c/pre as a
    // pre-release there); PEP 440 says ~=1.0c1 is >=1.0c1, ==1.*.
    expect(parsePypiSpecifierSet('~=1.0c1').contains('1.5')).toBe(true);
    expect(parsePypiSpecifierSet('~=1.0.pre1').contains('1.5')).toBe(true);
    expect(parsePypiSpecifierSet('~=v1.0').contains('1.5')).toBe(true);
    expect(parsePypiSpecifierSet('~=1.0c1').contains('2.0')).toBe(false);
  });
});
