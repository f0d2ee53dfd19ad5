/**
 * Bounds on one spec (issue 11, item 2): a spec is at most MAX_SPEC_LENGTH characters, a version
 * spec at most MAX_VERSION_CONSTRAINTS constraints and MAX_VERSION_SPEC_DEPTH nested parentheses,
 * and a refused spec says which limit it hit. Inside the bounds, parsing is linear (a run of
 * `a,b,c,...` is built in place), a `^...$` pattern that could backtrack exponentially is refused,
 * and globs match without a regex exactly as the regex they replace did.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidMatchSpecError, parseMatchSpec, splitVersionPlusBuild, StringPattern } from '../../vocabulary/match-spec.js';
import {
  Glob,
  InvalidVersionSpecError,
  MAX_REGEX_QUANTIFIERS,
  MAX_SPEC_LENGTH,
  MAX_VERSION_CONSTRAINTS,
  MAX_VERSION_SPEC_DEPTH,
  parseVersionSpec,
  regexHazard,
} from '../../vocabulary/version-spec.js';
import { thrown } from '../helpers/thrown.js';

/** `>=0,>=1,...,>=n-1`: the spec, every constraint distinct. */
const ascending = (n: number, op = '>=', join = ','): string => Array.from({ length: n }, (_, i) => `${op}${i}`).join(join);

describe('the bounds', () => {
  it('are the documented numbers', () => {
    expect([MAX_SPEC_LENGTH, MAX_VERSION_CONSTRAINTS, MAX_VERSION_SPEC_DEPTH, MAX_REGEX_QUANTIFIERS]).toEqual([4096, 64, 32, 3]);
  });

  it("refuses the issue's 25,000-constraint spec (189 KB) by its length, naming the limit, with a short message", () => {
    const spec = `python ${ascending(25_000)}`;
    expect(spec.length).toBeGreaterThan(180_000);
    const error = thrown(() => parseMatchSpec(spec));
    expect(error).toBeInstanceOf(InvalidMatchSpecError);
    const e = error as InvalidMatchSpecError;
    expect(e.code).toBe('CR_ERR_MATCH_SPEC_INVALID');
    expect(e.limit).toBe(MAX_SPEC_LENGTH);
    expect(e.reason).toBe('longer than 4096 characters (the limit)');
    expect(e.message).toContain('longer than 4096 characters (the limit)');
    expect(e.message).toMatch(/^Cannot parse match spec "python >=0,>=1,>=2,/);
    // The message quotes the start of the spec, not 189 KB of it; the error keeps at most the limit.
    expect(e.message.length).toBeLessThan(400);
    expect(e.input.length).toBeLessThanOrEqual(MAX_SPEC_LENGTH);

    const version = thrown(() => parseVersionSpec(ascending(25_000))) as InvalidVersionSpecError;
    expect(version).toBeInstanceOf(InvalidVersionSpecError);
    expect(version.limit).toBe(MAX_SPEC_LENGTH);
    expect(version.message).toContain('longer than 4096 characters (the limit)');
    expect(version.message.length).toBeLessThan(400);
  });

  it('accepts a spec of exactly 4096 characters and refuses 4097', () => {
    const exact = `python ${'1'.repeat(MAX_SPEC_LENGTH - 'python '.length)}`;
    expect(exact).toHaveLength(MAX_SPEC_LENGTH);
    expect(parseMatchSpec(exact).version!.matches('1'.repeat(MAX_SPEC_LENGTH - 7))).toBe(true);
    expect((thrown(() => parseMatchSpec(`${exact}1`)) as InvalidMatchSpecError).limit).toBe(MAX_SPEC_LENGTH);
  });

  it('refuses more than 64 constraints (under the length limit) naming that limit', () => {
    const spec = `python ${ascending(MAX_VERSION_CONSTRAINTS + 1)}`;
    expect(spec.length).toBeLessThan(MAX_SPEC_LENGTH);
    const e = thrown(() => parseMatchSpec(spec)) as InvalidMatchSpecError;
    expect(e).toBeInstanceOf(InvalidMatchSpecError);
    expect(e.limit).toBe(MAX_VERSION_CONSTRAINTS);
    expect(e.message).toContain('more than 64 version constraints (the limit)');
    // The position is that of the first constraint over the limit, in the whole spec.
    expect(spec.slice(e.position)).toMatch(/^>=64$/);
    expect((thrown(() => parseVersionSpec(ascending(300, '==', '|'))) as InvalidVersionSpecError).limit).toBe(MAX_VERSION_CONSTRAINTS);
  });

  it('refuses more than 32 nested parentheses naming that limit', () => {
    const nested = (depth: number) => `${'('.repeat(depth)}>=1${')'.repeat(depth)}`;
    expect(parseVersionSpec(nested(MAX_VERSION_SPEC_DEPTH)).matches('1.5')).toBe(true);
    const e = thrown(() => parseVersionSpec(nested(MAX_VERSION_SPEC_DEPTH + 1))) as InvalidVersionSpecError;
    expect(e).toBeInstanceOf(InvalidVersionSpecError);
    expect(e.limit).toBe(MAX_VERSION_SPEC_DEPTH);
    expect(e.message).toContain('more than 32 nested parentheses (the limit)');
    const m = thrown(() => parseMatchSpec(`python ${nested(40)}`)) as InvalidMatchSpecError;
    expect(m.limit).toBe(MAX_VERSION_SPEC_DEPTH);
    // A syntax error is not a bound.
    expect((thrown(() => parseVersionSpec('>=1,,2')) as InvalidVersionSpecError).limit).toBeNull();
    expect((thrown(() => parseMatchSpec('python >=<1')) as InvalidMatchSpecError).limit).toBeNull();
  });
});

describe('specs inside the bounds', () => {
  it('60 constraints parse and match as the constraints do', () => {
    const spec = parseMatchSpec(`python ${ascending(60)}`);
    expect(spec.name).toBe('python');
    const version = spec.version!;
    expect(version.matches('59')).toBe(true);
    expect(version.matches('1000.1')).toBe(true);
    expect(version.matches('58.9')).toBe(false);
    expect(version.matches('0')).toBe(false);
    expect(version.text).toBe(ascending(60));

    const any = parseVersionSpec(ascending(60, '==', '|'));
    expect(any.matches('57')).toBe(true);
    expect(any.matches('57.0')).toBe(true);
    expect(any.matches('57.1')).toBe(false);
    expect(any.matches('60')).toBe(false);

    // Ranges: (>=0,<1)|(>=10,<11)|... 30 groups of 2.
    const ranges = Array.from({ length: 30 }, (_, i) => `(>=${i * 10},<${i * 10 + 1})`).join('|');
    const r = parseVersionSpec(ranges);
    expect(r.matches('290.5')).toBe(true);
    expect(r.matches('291')).toBe(false);
    expect(r.matches('15')).toBe(false);
  });

  it('property: any ,/| combination of up to 64 constraints and up to 32 parentheses means what its parts mean', () => {
    const leaf = fc.oneof(
      fc.tuple(fc.constantFrom('>=', '<', '==', '!=', '<=', '>', '='), fc.integer({ min: 0, max: 9 })).map(([op, n]) => `${op}${n}`),
      fc.integer({ min: 0, max: 9 }).map((n) => `${n}.*`),
      fc.constant('*'),
    );
    /** A spec text and a reference evaluation that uses only single-constraint specs. */
    interface Expr {
      text: string;
      test(v: string): boolean;
    }
    const leafExpr = leaf.map((text): Expr => {
      const one = parseVersionSpec(text);
      return { text, test: (v) => one.matches(v) };
    });
    // `,` binds tighter than `|`: a disjunction of conjunctions, each item possibly a parenthesised Expr.
    const combine = (groups: Expr[][]): Expr => ({
      text: groups.map((g) => g.map((e) => e.text).join(',')).join('|'),
      test: (v) => groups.some((g) => g.every((e) => e.test(v))),
    });
    const paren = (e: Expr): Expr => ({ text: `(${e.text})`, test: e.test });
    const flatOf = (groups: number, perGroup: number) =>
      fc.array(fc.array(leafExpr, { minLength: 1, maxLength: perGroup }), { minLength: 1, maxLength: groups }).map(combine);
    // Up to 8 x 8 = 64 leaves; nested: up to 16 inside and one more per level, 47 in all.
    const flat = flatOf(8, 8);
    const nested = fc
      .tuple(
        flatOf(4, 4),
        fc.array(fc.tuple(fc.array(leafExpr, { maxLength: 1 }), fc.boolean()), { minLength: 0, maxLength: MAX_VERSION_SPEC_DEPTH - 1 }),
      )
      .map(([inner, wraps]) => {
        // Each level wraps the expression so far in parentheses and joins a few leaves with , or |.
        let e = paren(inner);
        for (const [others, and] of wraps) e = paren(and ? combine([[e, ...others]]) : combine([[e], ...others.map((o) => [o])]));
        return e;
      });
    const versions = ['0', '1', '1.5', '2', '3.0', '4.1.2', '5', '6a', '7', '8.0.0', '9', '10'];
    fc.assert(
      fc.property(fc.oneof(flat, nested), (expr) => {
        fc.pre(expr.text.length <= MAX_SPEC_LENGTH);
        const spec = parseVersionSpec(expr.text);
        for (const v of versions) expect(spec.matches(v), `${expr.text} on ${v}`).toBe(expr.test(v));
      }),
      { numRuns: 300 },
    );
  });

  it('a spec with exactly 64 constraints and 32 nested parentheses parses; one more of either does not', () => {
    const constraints = ascending(MAX_VERSION_CONSTRAINTS);
    expect(parseVersionSpec(constraints).matches('63')).toBe(true);
    expect(parseVersionSpec(constraints).matches('62')).toBe(false);
    // 32 levels, 64 leaves in all: `(((...(>=0,>=1,...)...),>=k),...)`
    let text = ascending(MAX_VERSION_CONSTRAINTS - MAX_VERSION_SPEC_DEPTH + 1);
    for (let depth = 1; depth < MAX_VERSION_SPEC_DEPTH; depth++) text = `(${text}),<1000`;
    text = `(${text})`;
    const spec = parseVersionSpec(text);
    expect(spec.matches('32')).toBe(true);
    expect(spec.matches('1000')).toBe(false);
    expect(spec.matches('31')).toBe(false);
    expect((thrown(() => parseVersionSpec(`${text},<1001`)) as InvalidVersionSpecError).limit).toBe(MAX_VERSION_CONSTRAINTS);
    expect((thrown(() => parseVersionSpec(`(${text})`)) as InvalidVersionSpecError).limit).toBe(MAX_VERSION_SPEC_DEPTH);
  });

  it('4 KB specs of every shape parse or fail with a reason (no quadratic regex on the way)', () => {
    const shapes = [
      `python ${'1 '.repeat(2040)}<`,
      `python ${'1='.repeat(2040)}<`,
      `python >=1${' a'.repeat(2040)},`,
      `python ${'^,'.repeat(2000)}`,
      `python ${'^'.repeat(4000)}`,
      `python ${'1*'.repeat(2000)}`,
      `python[version="${'>=1,'.repeat(200)}>=2"]`,
      `python ${'(a=b,'.repeat(800)}`,
    ];
    for (const text of shapes) {
      expect(text.length).toBeLessThanOrEqual(MAX_SPEC_LENGTH);
      try {
        parseMatchSpec(text);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidMatchSpecError);
        expect((error as Error).message.length).toBeLessThan(600);
      }
    }
  });
});

describe('splitVersionPlusBuild (conda _parse_version_plus_build without its regex)', () => {
  // conda's regex, which rescans the rest of the string for every length of its lazy group.
  const CONDA = /((?:.+?)[^><!,|]?)(?:(?<![=!|,<>~])(?:[ =])([^-=,|<>~]+?))?$/;

  it.each([
    ['1.2.3 py39_0', '1.2.3', 'py39_0'],
    ['1.2.3=py39_0', '1.2.3', 'py39_0'],
    ['>=1.2', '>=1.2', null],
    ['>=1.2 py*', '>=1.2', 'py*'],
    ['1.2,<2', '1.2,<2', null],
    ['==1.2=h123', '==1.2', 'h123'],
    ['1.2 =x', '1.2 ', 'x'],
    ['1', '1', null],
  ])('%s', (text, version, build) => {
    expect(splitVersionPlusBuild(text)).toEqual({ version, build });
  });

  it('property: splits every string as conda does', () => {
    const text = fc.string({
      unit: fc.constantFrom('1', '.', 'a', ' ', '=', '<', '>', '!', ',', '|', '~', '-', '*'),
      minLength: 1,
      maxLength: 16,
    });
    fc.assert(
      fc.property(text, (s) => {
        const m = CONDA.exec(s)!;
        expect(splitVersionPlusBuild(s)).toEqual({ version: m[1], build: m[2] ?? null });
      }),
      { numRuns: 3000 },
    );
  });
});

describe('regexHazard', () => {
  it.each([
    '^(a+)+$',
    '^(a|a)*$',
    '^(a?a?)*$',
    '^((a|a)c)*$',
    '^(a{1,2})+$',
    '^(?:a*)*$',
    '^(?=(a+)+$)',
    '^(a)\\1$',
    '^.*.*.*.*x$',
    '^a?a?a?a?aaaa$',
  ])('refuses %s', (source) => {
    expect(regexHazard(source)).toEqual(expect.any(String));
  });

  it.each([
    '^1\\.(2|3)\\..*$',
    '^py3[0-9]+_.*$',
    '^[0-9]+\\.[0-9]+\\.[0-9]+$',
    '^(cuda|cpu)_.*$',
    '^(ab)+$',
    '^[(+*]+$',
    '^a{2}b{1,3}$',
    '^\\d+$',
    '^(?:py|cp)3\\d*$',
  ])('accepts %s', (source) => {
    expect(regexHazard(source)).toBeNull();
  });

  it('a match spec with such a regex is refused, naming why; a conda-style one matches', () => {
    for (const spec of [
      "numpy[version='^(a+)+$']",
      "numpy[build='^(a|a)*$']",
      "numpy[build_number='^(1+)+$']",
      '^(a+)+$',
      "numpy[license='^(a|a)*$']",
    ]) {
      const e = thrown(() => parseMatchSpec(spec)) as InvalidMatchSpecError;
      expect(e, spec).toBeInstanceOf(InvalidMatchSpecError);
      expect(e.message).toMatch(/unsupported regular expression/);
    }
    const spec = parseMatchSpec("numpy[version='^1\\.(2|3)\\..*$', build='^py3[0-9]+_.*$']");
    const record = { name: 'numpy', version: '1.3.4', build: 'py312_0', build_number: 0 } as Parameters<typeof spec.matches>[0];
    expect(spec.matches(record)).toBe(true);
    expect(spec.matches({ ...record, version: '1.4.0' })).toBe(false);
    expect(spec.matches({ ...record, build: 'py39_1' })).toBe(true);
    expect(spec.matches({ ...record, build: 'py27_0' })).toBe(false);
    expect(spec.matches({ ...record, build: 'np2py312_0' })).toBe(false);
  });
});

describe('Glob', () => {
  /** The regex the glob replaced: everything but `*` escaped, `*` as `.*`. */
  const oldRegex = (glob: string) => new RegExp(`^(?:${glob.replace(/[.+?^${}()|[\]\\/-]/g, '\\$&').replaceAll('*', '.*')})$`);

  it('property: matches exactly what the old regex matched', () => {
    const glob = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '*', '-', '\n'), maxLength: 10 });
    const value = fc.string({ unit: fc.constantFrom('a', 'b', '.', '-', '\n', '\u2028'), maxLength: 12 });
    fc.assert(
      fc.property(glob, value, (g, v) => {
        expect(new Glob(g).test(v), `${JSON.stringify(g)} on ${JSON.stringify(v)}`).toBe(oldRegex(g).test(v));
      }),
      { numRuns: 5000 },
    );
  });

  it('property: a value built from the glob matches it', () => {
    const piece = fc.string({ unit: fc.constantFrom('a', 'b', '.'), maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, piece), { minLength: 1, maxLength: 6 }), piece, (parts, last) => {
        const g = parts.map(([literal]) => literal).join('*') + `*${last}`;
        const v = parts.map(([literal, filler]) => literal + filler).join('') + last;
        expect(new Glob(g).test(v)).toBe(true);
        expect(oldRegex(g).test(v)).toBe(true);
      }),
    );
  });

  it('backs names, builds and versions (StringPattern, version globs) with the same answers', () => {
    expect(new StringPattern('py3*_cpython').test('py312h1_0_cpython')).toBe(true);
    expect(new StringPattern('py3*_cpython').test('py27_0_pypy')).toBe(false);
    expect(new StringPattern('*').test('anything')).toBe(true);
    expect(parseVersionSpec('1.*.3').matches('1.22.3')).toBe(true);
    expect(parseVersionSpec('1.*.3').matches('1.22.4')).toBe(false);
    // Many stars against a long value that almost matches: greedy pieces, no backtracking.
    const glob = `${'a*'.repeat(1000)}b`;
    expect(new Glob(glob).test('a'.repeat(5000))).toBe(false);
    expect(new Glob(glob).test(`${'a'.repeat(5000)}b`)).toBe(true);
    expect(parseMatchSpec(`python ${'1*'.repeat(1000)}2`).version!.matches(`${'1'.repeat(3000)}`)).toBe(false);
  });
});
