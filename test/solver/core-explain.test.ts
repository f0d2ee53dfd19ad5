import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainUnsatisfiable } from '../../solver/core/explain/unsat.js';
import { renderExplanation } from '../../solver/core/explain/render.js';
import { CoreSolver } from '../../solver/core/solver.js';
import { explainUniverse } from './helpers/explain-universe.js';
import { randomProblem } from './helpers/random-universe.js';
import { UniverseProvider } from './helpers/universe.js';

describe('explanations on tiny universes', () => {
  it('blames the later spec and names the earlier one it conflicts with', () => {
    expect(
      explainUniverse(
        `
        python 9
        python 10
        python 11
        numpy 3: python 11
        numpy 2: python 10
        numpy 1: python 9
        `,
        ['python 9', 'numpy >=2'],
      ),
    ).toBe(
      'numpy >=2 cannot be installed because every numpy >=2 (2, 3) requires python 10 or python 11, which conflicts with the requested python 9',
    );
  });

  it('follows the chain of forced choices in the PubGrub article universe', () => {
    expect(
      explainUniverse(
        `
        menu 15: dropdown >=20
        menu 10: dropdown >=10,<20
        dropdown 23: icons 2
        dropdown 18: intl 3
        dropdown 10: icons 2
        icons 2
        icons 1
        intl 5
        intl 3
        `,
        ['menu', 'icons 1', 'intl 5'],
      ),
    ).toBe(
      [
        'intl 5 cannot be installed because no menu can be installed with it:',
        '├─ menu 15 requires dropdown >=20, which requires icons 2, which conflicts with the requested icons 1',
        '└─ menu 10 requires dropdown >=10,<20, which cannot be installed:',
        '   ├─ dropdown 18 requires intl 3, which conflicts with the requested intl 5',
        '   └─ dropdown 10 requires icons 2, which conflicts with the requested icons 1',
      ].join('\n'),
    );
  });

  it('says what versions exist when none matches', () => {
    expect(explainUniverse('a 1: b >=5\nb 1\nb 2\nb 3\nb 4', ['a'])).toBe(
      'a cannot be installed because a 1 requires b >=5, but no b matches (available: 1 .. 4)',
    );
  });

  it('says when nothing provides a name', () => {
    expect(explainUniverse('a 1: nope', ['a'])).toBe('a cannot be installed because a 1 requires nope, which nothing provides');
    expect(explainUniverse('a 1', ['zzz'])).toBe('zzz cannot be installed because nothing provides zzz');
  });

  it('explains constrains from both sides', () => {
    expect(explainUniverse('a 2: | c <2\na 1: | c <2\nc 1\nc 2', ['c >=2', 'a'])).toBe(
      'a cannot be installed because every a (1, 2) constrains c <2, which conflicts with the requested c >=2',
    );
    expect(explainUniverse('a 1: | c <2\nc 1\nc 2', ['a', 'c >=2'])).toBe(
      'c >=2 cannot be installed because a 1 constrains c <2, which conflicts with the requested c >=2',
    );
  });

  it('names excluded candidates and why', () => {
    expect(explainUniverse('a 1\na 2', ['a >=2'], new Map([[1, 'was uploaded after the cutoff']]))).toBe(
      'a >=2 cannot be installed because every match is excluded: a 2 was uploaded after the cutoff',
    );
  });

  it('collapses long version lists into ranges', () => {
    const universe = [1, 2, 3, 4, 5, 6, 8, 9].map((v) => `a ${v}: b 2`).join('\n') + '\na 7\nb 1\nb 2';
    expect(explainUniverse(universe, ['b 1', 'a !=7'])).toBe(
      'a !=7 cannot be installed because every a !=7 (1 .. 6, 8, 9) requires b 2, which conflicts with the requested b 1',
    );
  });
});

describe('explanations on random universes', () => {
  it('always blame a spec whose predecessors are satisfiable, deterministically', () => {
    fc.assert(
      fc.property(randomProblem, (problem) => {
        const provider = new UniverseProvider(problem.packages);
        const versionSets = problem.specs.map((s) => provider.versionSet(s));
        const solver = new CoreSolver(provider);
        const outcome = solver.solve(versionSets);
        if (outcome.kind !== 'unsat') return;
        const run = (): string => {
          const explanation = explainUnsatisfiable({
            provider,
            interner: provider,
            specs: problem.specs,
            specVersionSets: versionSets,
            fixed: [],
            options: {},
            solver,
            outcome,
          });
          const before = new CoreSolver(provider).solve(versionSets.slice(0, explanation.specIndex));
          expect(before.kind).toBe('sat');
          const upTo = new CoreSolver(provider).solve(versionSets.slice(0, explanation.specIndex + 1));
          expect(upTo.kind).toBe('unsat');
          expect(explanation.spec).toBe(problem.specs[explanation.specIndex]);
          const text = renderExplanation(explanation);
          expect(text.startsWith(`${explanation.spec} cannot be installed because `)).toBe(true);
          return text;
        };
        const text = run();
        expect(run()).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
