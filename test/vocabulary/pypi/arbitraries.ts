/**
 * fast-check generators for PEP 440/508 text in every spelling packaging accepts (and some it
 * refuses): versions with epochs, pre/post/dev parts spelt every way, local labels; specifiers and
 * sets over them; markers over every PEP 508 variable and operator.
 */
import fc from 'fast-check';
import { MARKER_VARIABLES, type MarkerVariable } from '../../../vocabulary/pypi/markers.js';

const sep = fc.constantFrom('', '', '.', '-', '_');
export const pypiNumber = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 0, max: 12 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('00', '007', '2024', '18446744073709551616') },
);
const preWord = fc.constantFrom('a', 'b', 'rc', 'c', 'alpha', 'beta', 'pre', 'preview', 'A', 'RC', 'Beta');
const postWord = fc.constantFrom('post', 'rev', 'r', 'POST');
const localSegment = fc.constantFrom('abc', 'ubuntu', '1', '007', 'x2', 'Local', '0');

const optionalNumber = (word: fc.Arbitrary<string>) =>
  fc.tuple(sep, word, fc.option(fc.tuple(sep, pypiNumber), { freq: 4 })).map(([s1, w, n]) => (n === null ? s1 + w : s1 + w + n[0] + n[1]));

export const releaseString = fc.array(pypiNumber, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));

/** A PEP 440 version in one of its many spellings (`V1!2.0-Beta_3.POST-4.dev+Ubuntu-1`). */
export const pypiVersionString = fc
  .tuple(
    fc.constantFrom('', '', '', '', 'v', 'V'),
    fc.option(
      pypiNumber.map((n) => `${n}!`),
      { freq: 6 },
    ),
    releaseString,
    fc.option(optionalNumber(preWord), { freq: 3 }),
    fc.option(
      fc.oneof(
        pypiNumber.map((n) => `-${n}`),
        optionalNumber(postWord),
      ),
      { freq: 3 },
    ),
    fc.option(optionalNumber(fc.constant('dev')), { freq: 3 }),
    fc.option(
      fc.array(localSegment, { minLength: 1, maxLength: 3 }).chain((segs) => fc.constantFrom('.', '-', '_').map((s) => `+${segs.join(s)}`)),
      { freq: 4 },
    ),
    fc.constantFrom('', '', '', '', '', '', ' ', '\t', '\n'),
  )
  .map(
    ([v, epoch, release, pre, post, dev, local, space]) =>
      `${space}${v}${epoch ?? ''}${release}${pre ?? ''}${post ?? ''}${dev ?? ''}${local ?? ''}${space}`,
  );

/** Text near the version grammar: versions, versions with a character broken, junk. */
export const versionLikeString = fc.oneof(
  { weight: 8, arbitrary: pypiVersionString },
  {
    weight: 2,
    arbitrary: fc
      .tuple(pypiVersionString, fc.nat(), fc.constantFrom('', '.', '..', '+', '!', ' ', '*', 'x', '-', 'ı', '٣'))
      .map(([text, at, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1))),
  },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'0123456789.-_+!abcdeloprstv *'), maxLength: 12 }) },
);

const RANGE_OPERATORS = ['<', '<=', '>', '>='] as const;

/**
 * One specifier over `version` (a valid version string): any operator, `.*` prefixes for ==/!=,
 * `~=` only on normalised versions (packaging reads ~='s prefix from the text: see specifier.test.ts).
 */
export function specifierFor(version: {
  text: string;
  normalized: string;
  release: string;
  hasLocal: boolean;
  releaseLength: number;
}): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [
    fc.constantFrom('==', '!=').map((op) => `${op}${version.text.trim()}`),
    fc.constantFrom('==', '!=').map((op) => `${op}${version.release}.*`),
    fc.constant(`===${version.normalized}`),
  ];
  if (!version.hasLocal) options.push(fc.constantFrom(...RANGE_OPERATORS).map((op) => `${op}${version.text.trim()}`));
  if (!version.hasLocal && version.releaseLength >= 2) options.push(fc.constant(`~=${version.normalized}`));
  return fc.tuple(fc.oneof(...options), fc.constantFrom('', ' ')).map(([spec, space]) => spec.replace(/^([=!<>~]+)/, `$1${space}`));
}

export const MARKER_VALUE_POOL = [
  '3.8',
  '3.12',
  '3.12.4',
  '3',
  '3.*',
  '3.13.0rc1',
  '2.7',
  'dog',
  'linux',
  'win32',
  'posix',
  'nt',
  'x86_64',
  'AMD64',
  'cpython',
  'CPython',
  'lin',
  '',
  '5.10',
  'test',
  'docs-extra',
  '1!2',
  '==3',
];
/** The variables of an environment (the set-valued `extras`/`dependency_groups` and `extra` aside). */
export const MARKER_ENV_VARIABLES = MARKER_VARIABLES.filter(
  (v): v is Exclude<MarkerVariable, 'extra' | 'extras' | 'dependency_groups'> =>
    v !== 'extra' && v !== 'extras' && v !== 'dependency_groups',
);
const MARKER_VARIABLE_SPELLINGS = [
  ...MARKER_ENV_VARIABLES,
  'os.name',
  'sys.platform',
  'platform.machine',
  'python_implementation',
  'extra',
];
const MARKER_OPERATORS = ['==', '!=', '<', '<=', '>', '>=', '~=', '===', 'in', 'not in'];

// Values compared with `extra` are normalised names: packaging 26.2 normalises them only outside
// parentheses (fixed after 26.2; we normalise everywhere).
const EXTRA_VALUES = ['test', 'docs-extra', '', 'dog', 'linux', 'nt'];
const variableAndValue = fc
  .constantFrom(...MARKER_VARIABLE_SPELLINGS)
  .chain((variable) => fc.tuple(fc.constant(variable), fc.constantFrom(...(variable === 'extra' ? EXTRA_VALUES : MARKER_VALUE_POOL))));
const comparison = fc
  .tuple(variableAndValue, fc.constantFrom(...MARKER_OPERATORS), fc.boolean(), fc.constantFrom("'", '"'), fc.constantFrom(' ', '', '  '))
  .map(([[variable, value], op, valueFirst, quote, ws]) => [variable, op, value, valueFirst, quote, ws] as const)
  .map(([variable, op, value, valueFirst, quote, ws]) => {
    const quoted = `${quote}${value}${quote}`;
    const opText = /^[a-z]/.test(op) ? ` ${op} ` : `${ws}${op}${ws}`;
    return valueFirst ? `${quoted}${opText}${variable}` : `${variable}${opText}${quoted}`;
  });

/** A marker expression: comparisons under `and`/`or`, parenthesised or not, up to three deep. */
export const markerString: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: comparison },
    { weight: 1, arbitrary: fc.tuple(tie('expr'), fc.constantFrom('and', 'or'), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`) },
    { weight: 1, arbitrary: tie('expr').map((e) => `(${e})`) },
  ),
})).expr;

/** A marker environment with values from the pool above, and an `extra` (normalised, or none). */
export const markerEnvironmentValues = fc.record({
  ...Object.fromEntries(
    MARKER_ENV_VARIABLES.map((name) => [
      name,
      fc.constantFrom(...MARKER_VALUE_POOL.filter((v) => v !== '' || name === 'platform_release')),
    ]),
  ),
  extra: fc.constantFrom('', 'test', 'docs-extra'),
}) as fc.Arbitrary<Record<(typeof MARKER_ENV_VARIABLES)[number] | 'extra', string>>;

const anchorVersion = pypiVersionString.map((text) => text.trim()).filter((text) => /^[0-9vV]/.test(text));

/** A PEP 508 requirement: names, extras, specifiers (in parentheses or not) or a URL, a marker; sometimes broken. */
export const requirementString = fc
  .tuple(
    fc.constantFrom('requests', 'Typing_Extensions', 'zope.interface', 'a', 'pkg-1', 'café', '-bad', 'x_'),
    fc.option(
      fc.array(fc.constantFrom('socks', 'Security', 'test_utils', 'a.b', ''), { maxLength: 3 }).map((e) => `[${e.join(', ')}]`),
      { freq: 3 },
    ),
    fc.oneof(
      fc.constant(''),
      fc
        .array(
          fc.tuple(fc.constantFrom('==', '!=', '>=', '<', '~=', '===', '>', '<='), anchorVersion).map(([op, v]) => `${op}${v}`),
          { minLength: 1, maxLength: 3 },
        )
        .chain((specs) => fc.constantFrom(specs.join(','), ` (${specs.join(', ')})`, ` ${specs.join(' , ')}`)),
      fc.constantFrom(' @ https://example.com/pkg-1.0.tar.gz', '@ file:///tmp/x.whl', ' @ git+https://github.com/a/b.git@v1.0'),
    ),
    fc.option(
      markerString.map((m) => `; ${m}`),
      { freq: 3 },
    ),
    // No trailing line break: packaging 26.2 accepts one, later versions (and we) refuse it.
    fc.constantFrom('', '', ' ', '\t', ';', ' #'),
  )
  .map(
    ([name, extras, spec, marker, tail]) => `${name}${extras ?? ''}${spec}${spec.includes('@') && marker ? ' ' : ''}${marker ?? ''}${tail}`,
  );
