/**
 * Property tests against Python's `packaging` (the reference implementation of PEP 440 and 508):
 * random versions, specifier sets and markers, one `python3` process for all the properties' whole
 * batches. Skipped, saying why, when no packaging >= 26 is importable (test/helpers/python-packaging.ts).
 * A failure prints the seed: PYPI_ORACLE_SEED=<seed> replays it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pythonPackaging, runPythonPackagingBatch, type PythonPackaging } from '../../helpers/python-packaging.js';
import { evaluateMarker, parseMarker, type MarkerEnvironment } from '../../../vocabulary/pypi/markers.js';
import { parsePypiSpecifierSet } from '../../../vocabulary/pypi/specifier.js';
import { tryParseRequirement } from '../../../vocabulary/pypi/requirement.js';
import { comparePypiVersions, parsePypiVersion, tryParsePypiVersion } from '../../../vocabulary/pypi/version.js';
import {
  markerEnvironmentValues,
  markerString,
  pypiVersionString,
  requirementString,
  specifierFor,
  versionLikeString,
} from './arbitraries.js';

const packaging = pythonPackaging();
const seed = Number(process.env.PYPI_ORACLE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const describeOracle = typeof packaging === 'string' ? describe.skip : describe;
if (typeof packaging === 'string') console.warn(`[pypi oracle tests] skipped: ${packaging}`);

const oracle = () => packaging as PythonPackaging;
const sample = <T>(arb: fc.Arbitrary<T>, numRuns: number, offset = 0) => fc.sample(arb, { numRuns, seed: seed + offset });
/** `make()`'s value, made on the first call. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The first mismatches, with the seed, or [] when all agree. */
function mismatches<T>(items: T[], ours: unknown[], theirs: unknown[]): { item: T; ours: unknown; python: unknown }[] {
  const out: { item: T; ours: unknown; python: unknown }[] = [];
  for (let i = 0; i < items.length && out.length < 5; i++) {
    if (JSON.stringify(ours[i]) !== JSON.stringify(theirs[i])) out.push({ item: items[i]!, ours: ours[i], python: theirs[i] });
  }
  return out;
}

describeOracle(
  `PEP 440/508 against Python's packaging ${typeof packaging === 'string' ? '' : `${packaging.version} (${packaging.module})`}, seed ${seed}`,
  () => {
    // Each property's inputs and Python body; the five bodies run in one python3 process (one
    // interpreter start-up and import of packaging instead of five), the first time a test asks.
    const job0 = once(() => {
      const texts = sample(versionLikeString, 3000);
      return {
        input: texts,
        body: `out = []
for t in data:
    try:
        out.append(str(V.Version(t)))
    except V.InvalidVersion:
        out.append(None)`,
      };
    });

    const job1 = once(() => {
      const pairs = sample(fc.tuple(pypiVersionString, pypiVersionString), 4000, 1)
        .filter(([a, b]) => tryParsePypiVersion(a) && tryParsePypiVersion(b))
        .slice(0, 3000);
      return {
        input: pairs,
        body: `out = []
for a, b in data:
    x, y = V.Version(a), V.Version(b)
    out.append((x > y) - (x < y))`,
      };
    });

    const job2 = once(() => {
      const validVersion = pypiVersionString.filter((t) => tryParsePypiVersion(t) !== undefined);
      const anchor = validVersion.map((text) => {
        const v = parsePypiVersion(text);
        return {
          text,
          normalized: String(v.public),
          release: v.release.join('.'),
          hasLocal: v.local !== undefined,
          releaseLength: v.release.length,
        };
      });
      // Candidates near each specifier's version: its pre-, post-, dev- and local neighbours.
      const neighbours = (base: string) => [
        base,
        `${base}a1`,
        `${base}.dev0`,
        `${base}.post1`,
        `${base}+local.1`,
        `${base}.1`,
        `${base}rc1.post2`,
      ];
      const cases = sample(
        fc.tuple(
          fc.array(
            anchor.chain((a) => specifierFor(a).map((spec) => ({ spec, base: a.release }))),
            { minLength: 1, maxLength: 3 },
          ),
          fc.array(validVersion, { maxLength: 3 }),
          fc.constantFrom(null, true, false),
        ),
        1500,
        2,
      ).map(([specs, extra, prereleases]) => ({
        set: specs.map((s) => s.spec).join(','),
        candidates: [...specs.flatMap((s) => neighbours(s.base)), ...extra],
        prereleases,
      }));
      return {
        input: cases,
        body: `out = []
for case in data:
    try:
        s = S.SpecifierSet(case["set"])
    except S.InvalidSpecifier:
        out.append("invalid")
        continue
    kw = {} if case["prereleases"] is None else {"prereleases": case["prereleases"]}
    out.append([[s.contains(v, **kw) for v in case["candidates"]], list(s.filter(case["candidates"], **kw))])`,
      };
    });

    const job3 = once(() => {
      const cases = sample(fc.tuple(markerString, markerEnvironmentValues), 2000, 3).map(([marker, env]) => ({ marker, env }));
      return {
        input: cases,
        body: `out = []
for case in data:
    try:
        m = M.Marker(case["marker"])
    except M.InvalidMarker:
        out.append("invalid")
        continue
    try:
        out.append(m.evaluate(case["env"]))
    except M.UndefinedComparison:
        out.append("undefined")`,
      };
    });

    const job4 = once(() => {
      const texts = sample(requirementString, 2000, 4);
      return {
        input: texts,
        body: `out = []
for t in data:
    try:
        r = R.Requirement(t)
    except (R.InvalidRequirement, S.InvalidSpecifier):  # 26.2 lets the second through (fixed later)
        out.append("invalid")
        continue
    out.append([r.name, sorted(r.extras), str(r.specifier), r.url, r.marker is not None])`,
      };
    });
    const oracleAnswers = once(() => runPythonPackagingBatch(oracle(), [job0(), job1(), job2(), job3(), job4()]));

    it('parses and normalises versions as packaging does (3,000 strings, valid and not)', () => {
      const texts = job0().input;
      const python = oracleAnswers()[0] as (string | null)[];
      const ours = texts.map((t) => tryParsePypiVersion(t)?.toString() ?? null);
      expect(mismatches(texts, ours, python)).toEqual([]);
    });

    it('orders versions as packaging does (3,000 pairs)', () => {
      const pairs = job1().input;
      const python = oracleAnswers()[1] as number[];
      const ours = pairs.map(([a, b]) => Math.sign(comparePypiVersions(parsePypiVersion(a), parsePypiVersion(b))));
      expect(mismatches(pairs, ours, python)).toEqual([]);
    });

    it('matches and filters as packaging does (1,500 specifier sets x candidates, prereleases unset/true/false)', () => {
      const cases = job2().input;
      const python = oracleAnswers()[2] as unknown[];
      const ours = cases.map(({ set, candidates, prereleases }) => {
        const parsed = parsePypiSpecifierSet(set);
        const options = prereleases === null ? {} : { prereleases };
        return [candidates.map((v) => parsed.contains(v, options)), parsed.filter(candidates, options)];
      });
      expect(mismatches(cases, ours, python)).toEqual([]);
    });

    it('parses and evaluates markers as packaging does (2,000 markers in random environments)', () => {
      const cases = job3().input;
      const python = oracleAnswers()[3] as unknown[];
      const ours = cases.map(({ marker, env }) => {
        let parsed;
        try {
          parsed = parseMarker(marker);
        } catch {
          return 'invalid';
        }
        const { extra, ...rest } = env;
        try {
          return evaluateMarker(parsed, rest as MarkerEnvironment, { extras: extra ? [extra] : [] });
        } catch {
          return 'undefined';
        }
      });
      expect(mismatches(cases, ours, python)).toEqual([]);
    });

    it('reads requirements as packaging does (2,000 requirement strings, valid and not)', () => {
      const texts = job4().input;
      const python = oracleAnswers()[4] as unknown[];
      const ours = texts.map((t) => {
        const r = tryParseRequirement(t);
        return r ? [r.name, r.extras, String(r.specifier), r.url ?? null, r.marker !== undefined] : 'invalid';
      });
      expect(mismatches(texts, ours, python)).toEqual([]);
    });
  },
);
