/**
 * fast-check generators for conda vocabulary tests: version strings shaped like real ones
 * (alternating digit and letter runs, `dev`/`post`/`rc` tags, epochs, local versions, `_`/`-`
 * separators) and version specs built from them.
 */
import fc from 'fast-check';

const LETTERS = ['a', 'b', 'c', 'rc', 'dev', 'post', 'alpha', 'beta', 'g', 'z', 'p'];

export const letterRun = fc.constantFrom(...LETTERS);
export const digitRun = fc.oneof(fc.integer({ min: 0, max: 30 }).map(String), fc.constantFrom('00', '007', '2024', '960923'));

/** One component: `12`, `1rc2`, `dev3`, `0b1`... */
export const component = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(digitRun, letterRun), { minLength: 1, maxLength: 2 }), fc.boolean())
  .map(([startWithLetter, pairs, endWithLetter]) => {
    let text = pairs.map(([d, l]) => d + l).join('');
    if (!endWithLetter) text = text.replace(/[a-z]+$/, '');
    if (startWithLetter) text = `${pairs[0]![1]}${text}`;
    return text === '' ? '0' : text;
  });

/** A version string as packages publish them, with optional epoch and local part. */
export const versionString = fc
  .tuple(
    fc.option(fc.integer({ min: 0, max: 3 }), { freq: 5 }),
    fc.array(component, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('.', '.', '.', '_'),
    fc.option(fc.array(component, { minLength: 1, maxLength: 2 }), { freq: 6 }),
    fc.boolean(),
  )
  .map(([epoch, main, sep, local, upper]) => {
    const text = `${epoch === null ? '' : `${epoch}!`}${main.join(sep)}${local === null ? '' : `+${local.join('.')}`}`;
    return upper ? text.toUpperCase() : text;
  });

/** Plain release versions (`1.2.3`), where conda and every other tool agree. */
export const releaseVersion = fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('.'));

export const operator = fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '=', '~=');

/** A single version spec leaf: `>=1.2`, `1.2.*`, `1.2`, `!=1.2.*`, `*`. */
export const versionSpecLeaf = fc.oneof(
  fc.tuple(operator, versionString).map(([op, v]) => (op === '~=' && !v.includes('.') ? `${op}${v}.0` : `${op}${v}`)),
  versionString.map((v) => `${v}.*`),
  versionString,
  versionString.map((v) => `!=${v}.*`),
  fc.constant('*'),
);

/** A version spec tree with `,`, `|` and parentheses. */
export const versionSpecString: fc.Arbitrary<string> = fc.letrec<{ spec: string }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    versionSpecLeaf,
    fc.tuple(tie('spec'), fc.constantFrom(',', '|'), tie('spec')).map(([a, op, b]) => `${a}${op}${b}`),
    tie('spec').map((s) => `(${s})`),
  ),
})).spec;
