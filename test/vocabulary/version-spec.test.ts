import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseVersion } from '../../vocabulary/version.js';
import { InvalidVersionSpecError, parseVersionSpec, tryParseVersionSpec } from '../../vocabulary/version-spec.js';
import { releaseVersion, versionSpecLeaf, versionSpecString, versionString } from './arbitraries.js';

const matches = (spec: string, version: string) => parseVersionSpec(spec).matches(version);

function specError(input: string): InvalidVersionSpecError {
  try {
    parseVersionSpec(input);
  } catch (e) {
    if (e instanceof InvalidVersionSpecError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('VersionSpec.matches: conda test_match table against 1.7.1', () => {
  // conda/tests/models/test_version.py::test_match; each spec also prints as itself.
  it.each([
    ['1.7.*', true],
    ['1.7.1', true],
    ['1.7.0', false],
    ['1.7', false],
    ['1.5.*', false],
    ['>=1.5', true],
    ['!=1.5', true],
    ['!=1.7.1', false],
    ['==1.7.1', true],
    ['==1.7', false],
    ['==1.7.2', false],
    ['==1.7.1.0', true],
    ['1.7.*|1.8.*', true],
    ['>1.7,<1.8', true],
    ['>1.7.1,<1.8', false],
    ['^1.7.1$', true],
    ['^1\\.7\\.1$', true],
    ['^1\\.7\\.[0-9]+$', true],
    ['^1\\.8.*$', false],
    ['^1\\.[5-8]\\.1$', true],
    ['^[^1].*$', false],
    ['^[0-9+]+\\.[0-9+]+\\.[0-9]+$', true],
    ['^$', false],
    ['^.*$', true],
    ['1.7.*|^0.*$', true],
    ['1.6.*|^0.*$', false],
    ['1.6.*|^0.*$|1.7.1', true],
    ['^0.*$|1.7.1', true],
    ['1.6.*|^.*\\.7\\.1$|0.7.1', true],
    ['*', true],
    ['1.*.1', true],
    ['1.5.*|>1.7,<1.8', true],
    ['1.5.*|>1.7,<1.7.1', false],
  ])('%s -> %s', (spec, expected) => {
    const s = parseVersionSpec(spec);
    expect(s.matches('1.7.1')).toBe(expected);
    expect(s.matches(parseVersion('1.7.1'))).toBe(expected);
    expect(String(s)).toBe(spec);
  });
});

describe('VersionSpec.matches: conda ver_eval and operator tables', () => {
  it.each([
    ['1.7.0', '==1.7', true],
    ['1.7.0', '<=1.7', true],
    ['1.7.0', '<1.7', false],
    ['1.7.0', '>=1.7', true],
    ['1.7.0', '>1.7', false],
    ['1.6.7', '>=1.7', false],
    ['2013a', '>2013b', false],
    ['2013k', '>2013b', true],
    ['3.0.0', '>2013b', false],
    ['1.0.0', '>1.0.0a', true],
    ['1.0.0', '>1.0.0*', true],
    ['1.0', '1.0*', true],
    ['1.0.0', '1.0*', true],
    ['1.0', '1.0.0*', true],
    ['1.0.1', '1.0.0*', false],
    ['2013a', '2013a*', true],
    ['2013a', '2013b*', false],
    ['2013ab', '2013a*', true],
    ['1.3.4', '1.2.4*', false],
    ['1.2.3+4.5.6', '1.2.3*', true],
    ['1.2.3+4.5.6', '1.2.3+4*', true],
    ['1.2.3+4.5.6', '1.2.3+5*', false],
    ['1.2.3+4.5.6', '1.2.4+5*', false],
  ])('ver_eval(%s, %s) = %s', (version, spec, expected) => {
    expect(matches(spec, version)).toBe(expected);
  });

  it('treats "=" as starts-with and "!=X.*" as does-not-start-with (test_not_eq_star)', () => {
    expect(matches('=3.3', '3.3.1')).toBe(true);
    expect(matches('=3.3', '3.3')).toBe(true);
    expect(matches('=3.3', '3.4')).toBe(false);
    expect(matches('3.3.*', '3.3.1')).toBe(true);
    expect(matches('3.3.*', '3.3')).toBe(true);
    expect(matches('3.3.*', '3.4')).toBe(false);
    expect(matches('=3.3.*', '3.3.1')).toBe(true);
    expect(matches('=3.3.*', '3.3')).toBe(true);
    expect(matches('=3.3.*', '3.4')).toBe(false);
    expect(matches('!=3.3.*', '3.3.1')).toBe(false);
    expect(matches('!=3.3.*', '3.4')).toBe(true);
    expect(matches('!=3.3.*', '3.4.1')).toBe(true);
    expect(matches('!=3.3', '3.3.1')).toBe(true);
    expect(matches('!=3.3', '3.3.0.0')).toBe(false);
    expect(matches('!=3.3.*', '3.3.0.0')).toBe(false);
  });

  it('does not treat "1.2.*" as a string prefix (1.20 is not 1.2.*)', () => {
    expect(matches('1.2.*', '1.20')).toBe(false);
    expect(matches('1.2.*', '1.2')).toBe(true);
    expect(matches('1.2*', '1.2.0')).toBe(true);
    expect(matches('3.1*', '3.10')).toBe(false);
  });

  it('evaluates compound specs (test_compound_versions)', () => {
    const vs = parseVersionSpec('>=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*');
    expect(vs.matches('2.6.8')).toBe(false);
    expect(vs.matches('2.7.2')).toBe(true);
    expect(vs.matches('3.3')).toBe(false);
    expect(vs.matches('3.3.4')).toBe(false);
    expect(vs.matches('3.4')).toBe(true);
    expect(vs.matches('3.4a')).toBe(true);
  });

  it('implements ~= as the compatible-release operator (test_compatible_release_versions)', () => {
    expect(matches('~=1.10', '1.11.0')).toBe(true);
    expect(matches('~=1.10.0', '1.11.0')).toBe(false);
    expect(matches('~=3.3.2', '3.4.0')).toBe(false);
    expect(matches('~=3.3.2', '3.3.1')).toBe(false);
    expect(matches('~=3.3.2', '3.3.2.0')).toBe(true);
    expect(matches('~=3.3.2', '3.3.3')).toBe(true);
    expect(matches('~=3.3.2|==2.2', '2.2.0')).toBe(true);
    expect(matches('~=3.3.2|==2.2', '3.3.3')).toBe(true);
    expect(matches('~=3.3.2|==2.2', '2.2.1')).toBe(false);
    expect(matches('~=1.10', '2.0')).toBe(false);
  });

  it('matches each version by itself (test_local_identifier)', () => {
    for (const v of ['1.7.0', '1.7.0.post123', '1.7.0.post123.gabcdef9', '1.7.0.post123+gabcdef9']) expect(matches(v, v)).toBe(true);
  });

  it('gives "," precedence over "|" and honours parentheses', () => {
    // 1.5 | (1.6 , >2): 1.6 fails the second conjunct, 1.5 matches the first alternative.
    expect(matches('1.5|1.6,>2', '1.5')).toBe(true);
    expect(matches('1.5|1.6,>2', '1.6')).toBe(false);
    expect(matches('(1.5|1.6),>1.5', '1.6')).toBe(true);
    expect(matches('(1.5|1.6),>1.5', '1.5')).toBe(false);
  });

  it('uses the ordering of pre-releases in ranges (python <3.10.0a0)', () => {
    const spec = parseVersionSpec('>=3.9,<3.10.0a0');
    expect(spec.matches('3.9.18')).toBe(true);
    expect(spec.matches('3.10.0rc1')).toBe(false);
    expect(spec.matches('3.10.0a0')).toBe(false);
    expect(spec.matches('3.8.19')).toBe(false);
  });

  it('ignores a redundant .* after ==, <, <=, > and >= as conda does', () => {
    expect(matches('>=1.2.*', '1.2.0')).toBe(true);
    expect(matches('<1.2.*', '1.1.9')).toBe(true);
    expect(matches('==1.2.*', '1.2.1')).toBe(false);
    expect(String(parseVersionSpec('>=1.2.*'))).toBe('>=1.2.*');
  });

  it('matches globs with * inside against the version string', () => {
    expect(matches('1.*.1', '1.7.1')).toBe(true);
    expect(matches('1.*.1', '1.7.2')).toBe(false);
    expect(matches('*.7.*', '1.7.1')).toBe(true);
  });

  it('does not match versions it cannot parse, except through regexes', () => {
    expect(matches('>=1.0', 'not a version')).toBe(false);
    expect(matches('^not.*$', 'not a version')).toBe(true);
  });
});

describe('VersionSpec canonical strings', () => {
  it.each([
    ['1.7.1*', '1.7.1.*'],
    ['1.7.1.*', '1.7.1.*'],
    ['1.7.1*,1.8.1*', '1.7.1.*,1.8.1.*'],
    [' >=1.0 , <2 ', '>=1.0,<2'],
    ['( (1.5|((1.6|1.7), 1.8), 1.9 |2.0))|2.1', '1.5|(1.6|1.7),1.8,1.9|2.0|2.1'],
    ['1.5|(1.6|1.7),1.8,1.9|2.0|2.1', '1.5|(1.6|1.7),1.8,1.9|2.0|2.1'],
    ['(1.2.3|4.5.6),<=7.8.9', '(1.2.3|4.5.6),<=7.8.9'],
    ['1.2.3,4.5.6|<=7.8.9', '1.2.3,4.5.6|<=7.8.9'],
    ['((1.2))', '1.2'],
  ])('%j prints as %j', (input, text) => {
    expect(parseVersionSpec(input).text).toBe(text);
  });

  it('marks exact specs (test_version_spec_1)', () => {
    expect(parseVersionSpec('1.7.1').isExact).toBe(true);
    expect(parseVersionSpec('==1.7.1').isExact).toBe(true);
    expect(parseVersionSpec('1.7.1*').isExact).toBe(false);
    expect(parseVersionSpec('1.7.1,1.8').isExact).toBe(false);
    expect(parseVersionSpec('*').matchesAll).toBe(true);
  });
});

describe('VersionSpec errors', () => {
  it.each([
    ['(1.5', 'unmatched "("', 0],
    ['1.5)', 'unmatched ")"', 3],
    ['1.5||1.6', 'expected a version before "|"', 4],
    ['|1.6', 'expected a version before "|"', 0],
    ['1.6,', 'expected a version after ","', 4],
    ['(1.6|)', 'expected a version after "|"', 5],
    ['1.6,()', 'empty parentheses', 5],
    ['^1.5', 'a regex spec must start with "^" and end with "$"', 0],
    ['~', 'expected a version after "~"', 0],
    ['^', 'a regex spec must start with "^" and end with "$"', 0],
    ['1.2+', 'invalid version "1.2+": empty version component', 4],
    ['+1.2', 'invalid version "+1.2": missing version before local version separator "+"', 0],
    ['++', 'invalid version "++": duplicated local version separator "+"', 1],
    ['==', 'expected a version after "=="', 0],
    ['=', 'expected a version after "="', 0],
    ['>=', 'expected a version after ">="', 0],
    ['<=', 'expected a version after "<="', 0],
    ['><2.4.5', 'invalid operator "><"', 0],
    ['!!2.4.5', 'invalid operator "!!"', 0],
    ['===3.3.2', 'invalid operator "==="', 0],
    ['~=3.3.2.*', '"~=" cannot be combined with ".*"', 2],
    ['~=3', '"~=" needs a version with at least two components', 2],
    ['>=1.0,,<2', 'expected a version before ","', 6],
    ['>=1..0', 'invalid version "1..0": empty version component', 4],
    ['', 'no version given', 0],
    ['1.2 (1.3)', 'expected "," or "|" before "("', 4],
    ['(1.2) 1.3', 'expected "," or "|" before "1.3"', 6],
    ['c +, 0/|0 *', 'invalid version "c +": invalid character " "', 1],
    [')|(', 'unmatched ")"', 0],
    ['^[$', 'invalid regular expression', 0],
  ])('rejects %j: %s at position %i', (input, reason, position) => {
    const e = specError(input);
    expect(e.code).toBe('CR_ERR_VERSION_SPEC_INVALID');
    expect(e.reason).toBe(reason);
    expect(e.position).toBe(position);
    expect(e.message).toBe(`Cannot parse version spec ${JSON.stringify(input)}: ${reason} at position ${position}`);
  });

  it('tryParseVersionSpec returns null instead of throwing', () => {
    expect(tryParseVersionSpec('>=')).toBeNull();
    expect(tryParseVersionSpec('>=1')?.text).toBe('>=1');
  });
});

describe('VersionSpec properties', () => {
  it('matches a version with its own exact, starts-with and range specs', () => {
    fc.assert(
      fc.property(versionString, (v) => {
        expect(matches(v, v)).toBe(true);
        expect(matches(`==${v}`, v)).toBe(true);
        expect(matches(`>=${v}`, v)).toBe(true);
        expect(matches(`<=${v}`, v)).toBe(true);
        expect(matches(`<${v}`, v)).toBe(false);
        expect(matches(`!=${v}`, v)).toBe(false);
        if (!v.includes('+')) expect(matches(`${v}.*`, v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with the version ordering for every relational operator', () => {
    fc.assert(
      fc.property(versionString, versionString, (a, b) => {
        const c = parseVersion(a).compare(parseVersion(b));
        expect(matches(`<${b}`, a)).toBe(c < 0);
        expect(matches(`<=${b}`, a)).toBe(c <= 0);
        expect(matches(`>${b}`, a)).toBe(c > 0);
        expect(matches(`>=${b}`, a)).toBe(c >= 0);
        expect(matches(`==${b}`, a)).toBe(c === 0);
        expect(matches(`!=${b}`, a)).toBe(c !== 0);
      }),
      { numRuns: 300 },
    );
  });

  it('combines with "," as and, "|" as or', () => {
    fc.assert(
      fc.property(versionSpecLeaf, versionSpecLeaf, versionString, (x, y, v) => {
        const a = matches(x, v);
        const b = matches(y, v);
        expect(matches(`${x},${y}`, v)).toBe(a && b);
        expect(matches(`${x}|${y}`, v)).toBe(a || b);
      }),
      { numRuns: 300 },
    );
  });

  it('parses its canonical string to an equivalent spec', () => {
    fc.assert(
      fc.property(versionSpecString, fc.array(versionString, { minLength: 1, maxLength: 5 }), (text, versions) => {
        const spec = parseVersionSpec(text);
        const again = parseVersionSpec(spec.text);
        expect(again.text).toBe(spec.text);
        for (const v of versions) expect(again.matches(v)).toBe(spec.matches(v));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with rattler on single-operator specs over release versions (differential)', () => {
    const require = createRequire(import.meta.url);
    const rattler = require('@conda-org/rattler') as {
      Version: new (s: string) => unknown;
      VersionSpec: new (s: string) => { matches(v: unknown): boolean };
    };
    fc.assert(
      fc.property(fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '', '~=', '.*'), releaseVersion, releaseVersion, (op, s, v) => {
        if (op === '~=' && !s.includes('.')) return;
        const text = op === '.*' ? `${s}.*` : `${op}${s}`;
        expect(matches(text, v), `${text} ~ ${v}`).toBe(new rattler.VersionSpec(text).matches(new rattler.Version(v)));
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws anything but InvalidVersionSpecError on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-z.+!*=<>~,|()^$ -]{0,14}$/)), (s) => {
        try {
          parseVersionSpec(s).matches('1.2.3');
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidVersionSpecError);
          const { position } = e as InvalidVersionSpecError;
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThanOrEqual(s.length);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
