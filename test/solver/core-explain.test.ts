import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainUnsatisfiable } from '../../solver/core/explain/unsat.js';
import { renderExplanation } from '../../solver/core/explain/render.js';
import { CoreSolver } from '../../solver/core/solver.js';
import { explainUniverse } from './helpers/explain-universe.js';
import { randomProblem } from './helpers/random-universe.js';
import { UniverseProvider, type UniversePackage } from './helpers/universe.js';

/** Compares with `__snapshots__/core-explain/<name>.txt`, the text byte for byte. */
async function expectText(text: string, name: string): Promise<void> {
  await expect(text).toMatchFileSnapshot(`./__snapshots__/core-explain/${name}.txt`);
}

describe('explanations on tiny universes', () => {
  it('blames the later spec and names the earlier one it conflicts with', async () => {
    const universe = `
      python 9
      python 10
      python 11
      numpy 3: python 11
      numpy 2: python 10
      numpy 1: python 9
    `;
    await expectText(explainUniverse(universe, ['python 9', 'numpy >=2']), 'later-spec-blamed');
  });

  it('follows the chain of forced choices in the PubGrub article universe', async () => {
    const universe = `
      menu 15: dropdown >=20
      menu 10: dropdown >=10,<20
      dropdown 23: icons 2
      dropdown 18: intl 3
      dropdown 10: icons 2
      icons 2
      icons 1
      intl 5
      intl 3
    `;
    await expectText(explainUniverse(universe, ['menu', 'icons 1', 'intl 5']), 'pubgrub-article');
  });

  it('says what versions exist when none matches', async () => {
    await expectText(explainUniverse('a 1: b >=5\nb 1\nb 2\nb 3\nb 4', ['a']), 'none-matches');
  });

  it('says when nothing provides a name', async () => {
    await expectText(explainUniverse('a 1: nope', ['a']), 'nothing-provides-dependency');
    await expectText(explainUniverse('a 1', ['zzz']), 'nothing-provides-spec');
  });

  it('explains constrains from both sides', async () => {
    await expectText(explainUniverse('a 2: | c <2\na 1: | c <2\nc 1\nc 2', ['c >=2', 'a']), 'constrains-requested-later');
    await expectText(explainUniverse('a 1: | c <2\nc 1\nc 2', ['a', 'c >=2']), 'constrains-requested-earlier');
  });

  it('names excluded candidates and why', async () => {
    await expectText(explainUniverse('a 1\na 2', ['a >=2'], new Map([[1, 'was uploaded after the cutoff']])), 'excluded');
  });

  it('collapses long version lists into ranges', async () => {
    const universe = [1, 2, 3, 4, 5, 6, 8, 9].map((v) => `a ${v}: b 2`).join('\n') + '\na 7\nb 1\nb 2';
    await expectText(explainUniverse(universe, ['b 1', 'a !=7']), 'ranges');
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

describe('explanations on seeded random universes', () => {
  it('word for word, in one file', async () => {
    const problems = fc.sample(randomProblem, { seed: 20240612, numRuns: 400 });
    const entries: string[] = [];
    for (const problem of problems) {
      const text = explainUniverse(problem.packages.map(universeLine).join('\n'), problem.specs);
      if (!text.startsWith('(')) entries.push(`${problem.packages.map(universeLine).join('\n')}\n> ${problem.specs.join(', ')}\n${text}\n`);
    }
    expect(entries.length).toBeGreaterThan(50);
    await expectText(entries.join('\n'), 'random-universes');
  });
});

/** A package as a line of the textual universe format. */
function universeLine(p: UniversePackage): string {
  const features = p.features ? ` features=${p.features}` : '';
  return `${p.name} ${p.version} ${p.build}${features}: ${p.requires.join('; ')} | ${p.constrains.join('; ')}`;
}
