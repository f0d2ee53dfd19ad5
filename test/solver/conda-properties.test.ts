/**
 * Soundness at the conda level: random universes of real-looking records (versions, build
 * numbers, track_features, depends and constrains written as match specs, a virtual package),
 * solved by `solve` and checked against MiniSat (logic-solver): same satisfiability, valid
 * answers, and optimality in conda's order for the requested packages.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { solve } from '../../solver/index.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { compareVersions } from '../../vocabulary/version.js';
import { depth } from '../helpers/depth.js';
import { MapSource } from './helpers/load-channel.js';
import { rec, virtual } from './helpers/records.js';
import { Oracle, optimalityViolation, violations, type OracleProblem } from './helpers/sat-oracle.js';

const NAMES = ['a', 'b', 'c', 'd', 'e'];
const VERSIONS = ['1.0', '1.1', '2.0', '2.0.1', '3'];

const specArb = (names: readonly string[]): fc.Arbitrary<string> =>
  fc
    .tuple(fc.constantFrom(...names), fc.constantFrom('', ' >=1.1', ' 2.0.*', ' <2', ' >=2,<3', ' 1.0|3', ' !=2.0'))
    .map(([name, version]) => `${name}${version}`);

const glibcSpec = fc.constantFrom('__glibc >=2.17', '__glibc >=2.34');

const universeArb = fc
  .tuple(
    fc.array(
      fc.record({
        name: fc.constantFrom(...NAMES),
        version: fc.constantFrom(...VERSIONS),
        buildNumber: fc.integer({ min: 0, max: 2 }),
        tracked: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
        depends: fc.array(fc.oneof({ arbitrary: specArb(NAMES), weight: 6 }, { arbitrary: glibcSpec, weight: 1 }), { maxLength: 2 }),
        constrains: fc.array(specArb(NAMES), { maxLength: 1 }),
        timestamp: fc.integer({ min: 1, max: 1000 }),
      }),
      { minLength: 1, maxLength: 16 },
    ),
    fc.array(specArb([...NAMES, 'missing']), { minLength: 1, maxLength: 3 }),
  )
  .map(([raw, specs]) => {
    const seen = new Set<string>();
    const records: PackageRecord[] = [];
    for (const r of raw) {
      const key = `${r.name} ${r.version} ${r.buildNumber}`;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(
        rec(r.name, r.version, {
          build: `h${records.length}_${r.buildNumber}`,
          build_number: r.buildNumber,
          depends: r.depends.filter((d) => d.split(' ')[0] !== r.name),
          constrains: r.constrains,
          track_features: r.tracked ? ['feat'] : [],
          timestamp: r.timestamp,
        }),
      );
    }
    return { records, specs };
  });

const GLIBC = virtual('__glibc', '2.28');

function oracleFor(records: readonly PackageRecord[], specs: readonly string[]): OracleProblem {
  const all = [...records, GLIBC];
  const matching = (text: string): number[] => {
    const spec = parseMatchSpec(text);
    return all.flatMap((r, id) => (spec.matches(r) ? [id] : []));
  };
  const rejecting = (text: string): number[] => {
    const spec = parseMatchSpec(text);
    return all.flatMap((r, id) => (r.name === spec.name && !spec.matches(r) ? [id] : []));
  };
  return {
    packageCount: all.length,
    nameOf: (id) => all[id].name,
    roots: [...specs.map(matching), [all.length - 1]],
    requires: (id) => all[id].depends.map(matching),
    rejects: (id) => all[id].constrains.flatMap(rejecting),
  };
}

/** conda's preference among records of one name when versions and build numbers differ. */
function prefer(a: PackageRecord, b: PackageRecord): number {
  return a.track_features.length - b.track_features.length || compareVersions(b.version, a.version) || b.build_number - a.build_number;
}

// CPU-bound with a fixed number of runs: the run count bounds them, not the clock, so a busy
// machine (the invariant checker makes them 2x slower) gets a generous time limit.
describe('conda solve against MiniSat on random universes', { timeout: 300_000 }, () => {
  it('agrees on satisfiability, returns valid answers, optimal in spec order', () => {
    fc.assert(
      fc.property(universeArb, ({ records, specs }) => {
        const outcome = solve({ specs, channels: [{ name: 'conda-forge', sources: [new MapSource(records)] }], virtualPackages: [GLIBC] });
        const oracle = new Oracle(oracleFor(records, specs));
        const reference = oracle.solve();
        expect(outcome.kind === 'solved').toBe(reference !== null);
        if (outcome.kind !== 'solved') {
          expect(outcome.message).toMatch(/ cannot be installed because /);
          return;
        }
        const all = [...records, GLIBC];
        const ids = [...outcome.records.map((r) => all.indexOf(r)), all.length - 1];
        expect(ids).not.toContain(-1);
        expect(violations(oracle.problem, ids)).toEqual([]);
        expect(optimalityViolation(oracle, ids, (x, y) => prefer(all[x], all[y]))).toBeNull();
      }),
      // 80 runs (a new seed each run) keep the default suite fast; CR_DEEP=1 makes the full 200.
      { numRuns: depth(80, 200) },
    );
  });
});
