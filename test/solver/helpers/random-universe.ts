/**
 * fast-check generators for small random package universes: few names and versions, so the
 * search space is small enough for the MiniSat oracle, but dense in conflicts.
 */
import fc from 'fast-check';
import type { UniversePackage } from './universe.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

const requirementArb = (names: readonly string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(...names),
      fc.option(fc.tuple(fc.constantFrom('>=', '<', '=', '!='), fc.integer({ min: 1, max: 4 })), { freq: 3 }),
    )
    .map(([name, comparison]) => (comparison ? `${name} ${comparison[0]}${comparison[1]}` : name));

export interface RandomProblem {
  readonly packages: UniversePackage[];
  readonly specs: string[];
}

export const randomProblem: fc.Arbitrary<RandomProblem> = fc.integer({ min: 2, max: NAMES.length }).chain((nameCount) => {
  const names = NAMES.slice(0, nameCount);
  const packageArb = fc.record({
    name: fc.constantFrom(...names),
    version: fc.integer({ min: 1, max: 4 }),
    build: fc.integer({ min: 0, max: 1 }),
    features: fc.integer({ min: 0, max: 9 }).map((x) => (x === 0 ? 1 : 0)),
    requires: fc.array(requirementArb(names), { maxLength: 2 }),
    constrains: fc.array(requirementArb(names), { maxLength: 1 }),
  });
  return fc.record({
    packages: fc.array(packageArb, { minLength: 1, maxLength: 14 }).map((packages) => {
      // One package per (name, version, build), and no self-requirements.
      const seen = new Set<string>();
      return packages
        .filter((p) => {
          const key = `${p.name} ${p.version} ${p.build}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .map((p) => ({ ...p, requires: p.requires.filter((r) => r.split(' ')[0] !== p.name) }));
    }),
    specs: fc.array(requirementArb([...names, 'missing']), { minLength: 1, maxLength: 3 }),
  });
});

/**
 * Random 3-SAT near the hardness threshold, written as packages: variable `xi` has versions 0
 * and 1, clause `cj` has one version per literal, each requiring its variable's value, and every
 * clause is requested. Plenty of conflicts, restarts and learnt-clause clean-ups. The search grows
 * fast with the variables (18 take some 8 times as long as 14 and 4 times as long as 16).
 */
export const cnfProblem = (maxVariables: number): fc.Arbitrary<RandomProblem> =>
  fc.integer({ min: 10, max: maxVariables }).chain((variables) => {
    const clauseCount = Math.round(variables * 4.3);
    const literal = fc.tuple(fc.integer({ min: 0, max: variables - 1 }), fc.boolean());
    return fc
      .array(fc.array(literal, { minLength: 3, maxLength: 3 }), { minLength: clauseCount, maxLength: clauseCount })
      .map((clauses) => {
        const packages: UniversePackage[] = [];
        for (let i = 0; i < variables; i++) {
          for (const version of [0, 1]) packages.push({ name: `x${i}`, version, build: 0, features: 0, requires: [], constrains: [] });
        }
        clauses.forEach((clause, j) => {
          clause.forEach(([variable, value], k) => {
            packages.push({
              name: `c${j}`,
              version: k + 1,
              build: 0,
              features: 0,
              requires: [`x${variable} =${value ? 1 : 0}`],
              constrains: [],
            });
          });
        });
        return { packages, specs: clauses.map((_, j) => `c${j}`) };
      });
  });
