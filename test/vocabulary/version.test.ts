import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { compareVersions, InvalidVersionError, parseVersion, tryParseVersion } from '../../vocabulary/version.js';
import { versionString } from './arbitraries.js';

const P = Infinity; // conda's `post`

/** Sort a copy with our ordering. */
const sorted = (xs: readonly string[]) => [...xs].sort(compareVersions);

/** Deterministic shuffle (fast-check seeds vary; this only has to differ from the input). */
function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = (i * 7919 + 13) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('parseVersion: conda test_version_order vectors', () => {
  // conda/tests/models/test_version.py::test_version_order: each string, its parse, in sorted order.
  const vectors: [string, unknown[][]][] = [
    ['0.4', [[0], [0], [4]]],
    ['0.4.0', [[0], [0], [4], [0]]],
    ['0.4.1a.vc11', [[0], [0], [4], [1, 'a'], [0, 'vc', 11]]],
    ['0.4.1.rc', [[0], [0], [4], [1], [0, 'rc']]],
    ['0.4.1.vc11', [[0], [0], [4], [1], [0, 'vc', 11]]],
    ['0.4.1', [[0], [0], [4], [1]]],
    ['0.5*', [[0], [0], [5, '*']]],
    ['0.5a1', [[0], [0], [5, 'a', 1]]],
    ['0.5b3', [[0], [0], [5, 'b', 3]]],
    ['0.5C1', [[0], [0], [5, 'c', 1]]],
    ['0.5z', [[0], [0], [5, 'z']]],
    ['0.5za', [[0], [0], [5, 'za']]],
    ['0.5', [[0], [0], [5]]],
    ['0.5_5', [[0], [0], [5], [5]]],
    ['0.5-5', [[0], [0], [5], [5]]],
    ['0.9.6', [[0], [0], [9], [6]]],
    ['0.960923', [[0], [0], [960923]]],
    ['1.0', [[0], [1], [0]]],
    ['1.0.4a3', [[0], [1], [0], [4, 'a', 3]]],
    ['1.0.4b1', [[0], [1], [0], [4, 'b', 1]]],
    ['1.0.4', [[0], [1], [0], [4]]],
    ['1.1dev1', [[0], [1], [1, 'DEV', 1]]],
    ['1.1_', [[0], [1], [1, '_']]],
    ['1.1a1', [[0], [1], [1, 'a', 1]]],
    ['1.1.dev1', [[0], [1], [1], [0, 'DEV', 1]]],
    ['1.1.a1', [[0], [1], [1], [0, 'a', 1]]],
    ['1.1', [[0], [1], [1]]],
    ['1.1.post1', [[0], [1], [1], [0, P, 1]]],
    ['1.1.1dev1', [[0], [1], [1], [1, 'DEV', 1]]],
    ['1.1.1rc1', [[0], [1], [1], [1, 'rc', 1]]],
    ['1.1.1', [[0], [1], [1], [1]]],
    ['1.1.1post1', [[0], [1], [1], [1, P, 1]]],
    ['1.1post1', [[0], [1], [1, P, 1]]],
    ['2g6', [[0], [2, 'g', 6]]],
    ['2.0b1pr0', [[0], [2], [0, 'b', 1, 'pr', 0]]],
    ['2.2be.ta29', [[0], [2], [2, 'be'], [0, 'ta', 29]]],
    ['2.2be5ta29', [[0], [2], [2, 'be', 5, 'ta', 29]]],
    ['2.2beta29', [[0], [2], [2, 'beta', 29]]],
    ['2.2.0.1', [[0], [2], [2], [0], [1]]],
    ['3.1.1.6', [[0], [3], [1], [1], [6]]],
    ['3.2.p.r0', [[0], [3], [2], [0, 'p'], [0, 'r', 0]]],
    ['3.2.pr0', [[0], [3], [2], [0, 'pr', 0]]],
    ['3.2.pr.1', [[0], [3], [2], [0, 'pr'], [1]]],
    ['5.5.kw', [[0], [5], [5], [0, 'kw']]],
    ['11g', [[0], [11, 'g']]],
    ['14.3.1', [[0], [14], [3], [1]]],
    ['14.3.1.post26.g9d75ca2', [[0], [14], [3], [1], [0, P, 26], [0, 'g', 9, 'd', 75, 'ca', 2]]],
    ['1996.07.12', [[0], [1996], [7], [12]]],
    ['1!0.4.1', [[1], [0], [4], [1]]],
    ['1!3.1.1.6', [[1], [3], [1], [1], [6]]],
    ['2!0.4.1', [[2], [0], [4], [1]]],
  ];

  it.each(vectors)('parses %s like conda', (text, expected) => {
    const v = parseVersion(text);
    expect(v.main).toEqual(expected);
    expect(v.normalized).toBe(text.toLowerCase().replaceAll('-', '_'));
    expect(v.source).toBe(text);
  });

  it('sorts the list exactly as conda does, from any starting order', () => {
    const texts = vectors.map(([t]) => t);
    // conda's check: a stable sort leaves the list as it is.
    expect(sorted(texts)).toEqual(texts);
    // From other orders, equal versions (0.4 and 0.4.0) may trade places; nothing else may.
    for (const start of [shuffled(texts), [...texts].reverse()]) {
      const result = sorted(start);
      result.forEach((t, i) => expect(compareVersions(t, texts[i]!), `${t} at ${i}`).toBe(0));
    }
  });

  it('returns the cached instance for a repeated string', () => {
    expect(parseVersion('0.4.1')).toBe(parseVersion('0.4.1'));
  });
});

describe('Version ordering: conda documentation and tests', () => {
  it('follows the ordering in the VersionOrder docstring', () => {
    // `==` rows of the docstring are equal pairs; the rest strictly increase.
    const chain: (string | [string, string])[] = [
      ['0.4', '0.4.0'],
      ['0.4.1.rc', '0.4.1.RC'],
      '0.4.1',
      '0.5a1',
      '0.5b3',
      '0.5C1',
      '0.5',
      '0.9.6',
      '0.960923',
      '1.0',
      '1.1dev1',
      '1.1_',
      '1.1a1',
      ['1.1.0dev1', '1.1.dev1'],
      '1.1.a1',
      '1.1.0rc1',
      ['1.1.0', '1.1'],
      ['1.1.0post1', '1.1.post1'],
      '1.1post1',
      '1996.07.12',
      '1!0.4.1',
      '1!3.1.1.6',
      '2!0.4.1',
    ];
    const groups = chain.map((g) => (typeof g === 'string' ? [g] : g));
    for (const group of groups) expect(compareVersions(group[0]!, group[1] ?? group[0]!)).toBe(0);
    for (let i = 1; i < groups.length; i++) {
      expect(compareVersions(groups[i - 1]![0]!, groups[i]![0]!), `${groups[i - 1]![0]} < ${groups[i]![0]}`).toBe(-1);
      expect(compareVersions(groups[i]![0]!, groups[i - 1]![0]!)).toBe(1);
    }
  });

  it('orders openssl-style letters after the trailing-underscore release (test_openssl_convention)', () => {
    const openssl = [
      '1.0.1dev',
      '1.0.1_',
      '1.0.1a',
      '1.0.1b',
      '1.0.1c',
      '1.0.1d',
      '1.0.1r',
      '1.0.1rc',
      '1.0.1rc1',
      '1.0.1rc2',
      '1.0.1s',
      '1.0.1',
      '1.0.1post.a',
      '1.0.1post.b',
      '1.0.1post.z',
      '1.0.1post.za',
      '1.0.2',
    ];
    expect(sorted(shuffled(openssl))).toEqual(openssl);
    expect(compareVersions('1.1.1l', '1.1.1k')).toBe(1);
    expect(compareVersions('1.1.1w', '3.0.0')).toBe(-1);
  });

  it('orders the PEP 440 list conda tests with (test_pep440)', () => {
    const versions = [
      '1.0a1',
      '1.0a2.dev456',
      '1.0a12.dev456',
      '1.0a12',
      '1.0b1.dev456',
      '1.0b2',
      '1.0b2.post345.dev456',
      '1.0b2.post345',
      '1.0c1.dev456',
      '1.0c1',
      '1.0c3',
      '1.0rc2',
      '1.0.dev456',
      '1.0',
      '1.0.post456.dev34',
      '1.0.post456',
      '1.1.dev1',
      '1.2.r32+123456',
      '1.2.rev33+123456',
      '1.2+abc',
      '1.2+abc123def',
      '1.2+abc123',
      '1.2+123abc',
      '1.2+123abc456',
      '1.2+1234.abc',
      '1.2+123456',
    ];
    const all = [...versions, ...versions.map((v) => `1!${v}`)];
    expect(sorted(shuffled(all))).toEqual(all);
  });

  it('orders 0.3.0.dev before 0.3.3 (test_hexrd)', () => {
    expect(compareVersions('0.3.0.dev', '0.3.3')).toBe(-1);
  });

  it('compares case-insensitively and ignores surrounding whitespace', () => {
    expect(parseVersion('  0.4.rc  ').equals(parseVersion('0.4.RC'))).toBe(true);
    expect(parseVersion('  0.4.1.RC  ').normalized).toBe('0.4.1.rc');
  });

  it('treats trailing zeros as equal and other differences as unequal', () => {
    expect(parseVersion('0.4').equals(parseVersion('0.4.0'))).toBe(true);
    expect(parseVersion('0.4').equals(parseVersion('0.4.1'))).toBe(false);
    expect(parseVersion('0.4.a1').equals(parseVersion('0.4.0a1'))).toBe(true);
    expect(parseVersion('0.4.a1').equals(parseVersion('0.4.1a1'))).toBe(false);
    expect(parseVersion('1.0').equals(parseVersion('1.0.0.0'))).toBe(true);
    expect(parseVersion('1.01').equals(parseVersion('1.1'))).toBe(true);
    expect(parseVersion('1.0').key).toBe(parseVersion('1.0.0').key);
    expect(parseVersion('1.0').key).not.toBe(parseVersion('1.0.1').key);
  });

  it('orders dev before every tag, post after every number, and strings before numbers', () => {
    expect(compareVersions('1.0dev', '1.0a')).toBe(-1);
    expect(compareVersions('1.0a', '1.0')).toBe(-1);
    expect(compareVersions('1.0', '1.0post')).toBe(-1);
    expect(compareVersions('1.0.9999', '1.0post')).toBe(-1);
    expect(compareVersions('1.0*', '1.0dev')).toBe(-1);
  });

  it('uses the local version only when the main versions are equal', () => {
    expect(compareVersions('1.2+abc', '1.2+abc1')).toBe(-1);
    expect(compareVersions('1.2+999', '1.3')).toBe(-1);
    expect(compareVersions('1.2', '1.2+0')).toBe(0);
    expect(compareVersions('1.2', '1.2+a')).toBe(1);
  });

  it('compares numbers beyond 2^53 exactly', () => {
    expect(compareVersions('20240101123456789012', '20240101123456789013')).toBe(-1);
    expect(compareVersions('1.20240101123456789012', '1.20240101123456789012.0')).toBe(0);
    expect(compareVersions('9007199254740993', '9007199254740992')).toBe(1);
  });

  it('reads the epoch', () => {
    expect(parseVersion('2!1.0').epoch).toBe(2);
    expect(parseVersion('1.0').epoch).toBe(0);
  });
});

describe('Version.startsWith (conda VersionOrder.startswith)', () => {
  it.each([
    ['0.4.1', '0', true],
    ['0.4.1', '0.4', true],
    ['0.4.1p1', '0.4', true],
    ['0.4.1p1', '0.4.1p', true],
    ['0.4.1p1', '0.4.1q1', false],
    ['0.4', '0.4.1', false],
    ['0.4.1+1.3', '0.4.1', true],
    ['0.4.1+1.3', '0.4.1+1', true],
    ['0.4.1', '0.4.1+1.3', false],
    ['0.4.1+1', '0.4.1+1.3', false],
    ['1.10', '1.1', false],
    ['1.1.0', '1.1', true],
    ['2013ab', '2013a', true],
    ['2013a', '2013b', false],
  ])('%s starts with %s: %s', (a, b, expected) => {
    expect(parseVersion(a).startsWith(parseVersion(b))).toBe(expected);
  });
});

describe('parseVersion errors', () => {
  it.each([
    ['', 'empty version string', 0],
    ['  ', 'empty version string', 0],
    ['3.5&1', 'invalid character "&"', 3],
    ['5.5++', 'duplicated local version separator "+"', 4],
    ['5.5..mw', 'empty version component', 4],
    ['!', 'epoch must be an integer', 0],
    ['a!1.0', 'epoch must be an integer', 0],
    ['a!b!1.0', 'duplicated epoch separator "!"', 3],
    ['1.2+', 'empty version component', 4],
    ['+1.2', 'missing version before local version separator "+"', 0],
    ['+1.2+', 'duplicated local version separator "+"', 4],
    ['++', 'duplicated local version separator "+"', 1],
    ['1!', 'missing version after epoch separator "!"', 2],
    ['  1..2', 'empty version component', 4],
    ['1.2 3', 'invalid character " "', 3],
    ['1.0-1_2', 'invalid character "-"', 3],
  ])('rejects %j: %s at position %i', (input, reason, position) => {
    const error = (() => {
      try {
        parseVersion(input);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(InvalidVersionError);
    const e = error as InvalidVersionError;
    expect(e).toBeInstanceOf(CondaResolveError);
    expect(e.code).toBe('CR_ERR_VERSION_INVALID');
    expect(e.reason).toBe(reason);
    expect(e.position).toBe(position);
    expect(e.message).toBe(`Cannot parse version ${JSON.stringify(input)}: ${reason} at position ${position}`);
  });

  it('accepts dashes as separators only when there is no underscore', () => {
    expect(parseVersion('1.0-1').normalized).toBe('1.0_1');
    expect(tryParseVersion('1.0-1_2')).toBeNull();
  });

  it('tryParseVersion returns null instead of throwing', () => {
    expect(tryParseVersion('1..2')).toBeNull();
    expect(tryParseVersion('1.2')?.normalized).toBe('1.2');
  });
});

describe('Version ordering properties', () => {
  const v = versionString.map((s) => parseVersion(s));

  it('is antisymmetric and reflexive', () => {
    fc.assert(
      fc.property(v, v, (a, b) => {
        expect(a.compare(a)).toBe(0);
        // 0 - x, not -x: for equal versions -0 is not 0 to toBe (Object.is).
        expect(a.compare(b)).toBe(0 - b.compare(a));
      }),
      { numRuns: 500 },
    );
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(v, v, v, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort((p, q) => p.compare(q));
        expect(x!.compare(y!)).toBeLessThanOrEqual(0);
        expect(y!.compare(z!)).toBeLessThanOrEqual(0);
        expect(x!.compare(z!)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });

  it('has equality consistent with compare, key and startsWith', () => {
    fc.assert(
      fc.property(v, v, (a, b) => {
        const equal = a.compare(b) === 0;
        expect(a.equals(b)).toBe(equal);
        expect(a.key === b.key).toBe(equal);
        // Every version starts with itself, and equal versions start with each other.
        expect(a.startsWith(a)).toBe(true);
        if (equal && !b.hasLocal) expect(a.startsWith(b)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('treats appended zeros and letter case as equal', () => {
    fc.assert(
      fc.property(versionString, fc.integer({ min: 1, max: 3 }), (s, zeros) => {
        if (s.includes('+')) return;
        expect(compareVersions(s, s + '.0'.repeat(zeros))).toBe(0);
        expect(compareVersions(s.toUpperCase(), s.toLowerCase())).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('parses its own normalised form to an equal version', () => {
    fc.assert(
      fc.property(v, (a) => {
        expect(parseVersion(a.normalized).compare(a)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with rattler on realistic versions (differential)', () => {
    const require = createRequire(import.meta.url);
    const rattler = require('@conda-org/rattler') as { Version: new (s: string) => { compare(o: unknown): number } };
    fc.assert(
      fc.property(versionString, versionString, (a, b) => {
        const theirs = Math.sign(new rattler.Version(a).compare(new rattler.Version(b)));
        expect(compareVersions(a, b), `${a} vs ${b}`).toBe(theirs);
      }),
      { numRuns: 1000 },
    );
  });

  it('parses digits-and-dots versions (the one-pass path) exactly as the general path does', () => {
    // A leading space keeps a string off the one-pass path; the parse is otherwise the same.
    const dotted = fc.array(fc.stringMatching(/^[0-9]{1,18}$/), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(dotted, (s) => {
        const fast = parseVersion(s);
        const general = parseVersion(` ${s}`);
        expect(fast.main).toEqual(general.main);
        expect(fast.local).toEqual(general.local);
        expect(fast.normalized).toBe(general.normalized);
        expect(fast.key).toBe(general.key);
        expect(fast.compare(general)).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('still rejects malformed digits-and-dots versions, naming the position', () => {
    for (const [input, position] of [
      ['1..2', 2],
      ['.1', 0],
      ['1.', 2],
    ] as const) {
      expect(() => parseVersion(input), input).toThrow(InvalidVersionError);
      try {
        parseVersion(input);
      } catch (e) {
        expect((e as InvalidVersionError).position, input).toBe(position);
      }
    }
  });

  it('never throws anything but InvalidVersionError on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-z.+!_*-]{0,12}$/)), (s) => {
        try {
          parseVersion(s);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidVersionError);
          expect((e as InvalidVersionError).position).toBeGreaterThanOrEqual(0);
          expect((e as InvalidVersionError).position).toBeLessThanOrEqual(s.length);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
