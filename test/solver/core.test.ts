import { describe, expect, it } from 'vitest';
import { CoreSolver } from '../../solver/core/solver.js';
import { parseUniverse, UniverseProvider } from './helpers/universe.js';

function solveUniverse(universe: string, specs: string[]): { provider: UniverseProvider; result: string[] | 'unsat'; solver: CoreSolver } {
  const provider = new UniverseProvider(parseUniverse(universe));
  const solver = new CoreSolver(provider, { checkInvariants: true });
  const outcome = solver.solve(specs.map((s) => provider.versionSet(s)));
  if (outcome.kind === 'cancelled') throw new Error('cancelled');
  const result = outcome.kind === 'sat' ? outcome.solvables.map((s) => provider.display(s)).sort() : 'unsat';
  return { provider, result, solver };
}

describe('core solver', () => {
  it('selects the highest version of a requested package and its dependencies', () => {
    const { result } = solveUniverse(
      `
      a 1: b
      a 2: b >=2
      b 1
      b 2
      b 3
      `,
      ['a'],
    );
    expect(result).toEqual(['a 2', 'b 3']);
  });

  it('backtracks to an older version when the newest cannot be installed', () => {
    const { result } = solveUniverse(
      `
      a 1: b 1
      a 2: b >=5
      b 1
      b 2
      `,
      ['a'],
    );
    expect(result).toEqual(['a 1', 'b 1']);
  });

  it('maximises requested packages in the order given', () => {
    const universe = `
      a 1: c 1
      a 2: c 2
      b 1: c 2
      b 2: c 1
      c 1
      c 2
    `;
    expect(solveUniverse(universe, ['a', 'b']).result).toEqual(['a 2', 'b 1', 'c 2']);
    expect(solveUniverse(universe, ['b', 'a']).result).toEqual(['a 1', 'b 2', 'c 1']);
  });

  it('honours constrains only when the constrained name is selected', () => {
    const universe = `
      a 2: | c <2
      a 1
      b 1: c
      c 1
      c 2
    `;
    expect(solveUniverse(universe, ['a']).result).toEqual(['a 2']);
    expect(solveUniverse(universe, ['a', 'b']).result).toEqual(['a 2', 'b 1', 'c 1']);
    expect(solveUniverse(universe, ['a', 'c >=2']).result).toEqual(['a 1', 'c 2']);
  });

  it('prefers fewer features over a higher version, and a higher build at equal version', () => {
    const { result } = solveUniverse(
      `
      a 3 features=1
      a 2 0
      a 2 4
      a 2 1
      `,
      ['a'],
    );
    expect(result).toEqual(['a 2 b4']);
  });

  it('reports unsatisfiable when two requests exclude each other', () => {
    const { result } = solveUniverse(
      `
      a 1: c 1
      b 1: c 2
      c 1
      c 2
      `,
      ['a', 'b'],
    );
    expect(result).toBe('unsat');
  });

  it('reports unsatisfiable when nothing provides a requested name', () => {
    expect(solveUniverse('a 1', ['zzz']).result).toBe('unsat');
  });

  it('never asks for names that the selection does not reach', () => {
    const { provider, result } = solveUniverse(
      `
      a 2: b
      a 1: unreachable
      b 1
      unreachable 1
      other 1: b
      `,
      ['a'],
    );
    expect(result).toEqual(['a 2', 'b 1']);
    expect(provider.requestedNames).not.toContain('unreachable');
    expect(provider.requestedNames).not.toContain('other');
  });

  it('solves the pubgrub article universe by backtracking', () => {
    // https://nex3.medium.com/pubgrub-2fb6470504f: menu, dropdown, icons, intl
    const { result } = solveUniverse(
      `
      menu 15: dropdown >=20,<30
      menu 10: dropdown >=10,<20
      dropdown 23: icons 2; intl 3
      dropdown 18: icons 2
      dropdown 15: intl 3
      dropdown 10: icons 1
      icons 2
      icons 1
      intl 5
      intl 3
      `,
      ['menu', 'icons 1', 'intl 5'],
    );
    expect(result).toEqual(['dropdown 10', 'icons 1', 'intl 5', 'menu 10']);
  });

  it('keeps the learnt clauses bounded on a hard problem and still proves it unsatisfiable', () => {
    // Pigeonhole: 9 packages must each take one of 8 versions, and no two the same version.
    const lines: string[] = [];
    for (let p = 0; p <= 8; p++) {
      for (let hole = 1; hole <= 8; hole++) {
        const others = [];
        for (let q = 0; q <= 8; q++) if (q !== p) others.push(`p${q} !=${hole}`);
        lines.push(`p${p} ${hole}: | ${others.join('; ')}`);
      }
    }
    const provider = new UniverseProvider(parseUniverse(lines.join('\n')));
    const solver = new CoreSolver(provider, { maxLearnt: 50 });
    const outcome = solver.solve(Array.from({ length: 9 }, (_, p) => provider.versionSet(`p${p}`)));
    expect(outcome.kind).toBe('unsat');
    expect(solver.stats.learnt).toBeGreaterThan(solver.stats.learntKept);
    expect(solver.stats.learntKept).toBeLessThan(1000);
  });

  it('builds the unsat core from original clauses, and marks it incomplete once the why pool is full', () => {
    const lines: string[] = [];
    for (let p = 0; p <= 5; p++) {
      for (let hole = 1; hole <= 5; hole++) {
        const others = [];
        for (let q = 0; q <= 5; q++) if (q !== p) others.push(`p${q} !=${hole}`);
        lines.push(`p${p} ${hole}: | ${others.join('; ')}`);
      }
    }
    const provider = new UniverseProvider(parseUniverse(lines.join('\n')));
    const roots = Array.from({ length: 6 }, (_, p) => provider.versionSet(`p${p}`));
    const solver = new CoreSolver(provider);
    const outcome = solver.solve(roots);
    if (outcome.kind !== 'unsat') throw new Error(`expected unsat, got ${outcome.kind}`);
    expect(solver.stats.learnt).toBeGreaterThan(0);
    expect(outcome.complete).toBe(true);
    // Every clause of the core is original (describe throws for a learnt one), and the user's specs are in it.
    const kinds = outcome.core.map((clause) => solver.describe(clause));
    expect(kinds.filter((c) => c.kind === 'requires' && c.parent === null)).toHaveLength(6);

    const bounded = new CoreSolver(provider, { maxWhyEntries: 10 });
    const partial = bounded.solve(roots);
    if (partial.kind !== 'unsat') throw new Error(`expected unsat, got ${partial.kind}`);
    expect(partial.complete).toBe(false);
    for (const clause of partial.core) expect(() => bounded.describe(clause)).not.toThrow();
  });
});
