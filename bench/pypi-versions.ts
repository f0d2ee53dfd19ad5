/**
 * Issue 33 benchmark: PEP 440 versions and specifiers, ours against Python's `packaging` in the
 * same run.
 *
 *   npx tsx bench/pypi-versions.ts [--count 100000] [--rounds 3]
 *
 * The same inputs on both sides (generated once with a fixed seed, every spelling PEP 440 allows,
 * shaped like PyPI's: mostly plain releases, some pre/post/dev/local): parsing `--count` versions,
 * parsing `--count` specifier sets, matching each version against a set (`contains`), and sorting
 * the versions. Each figure is the median of `--rounds` runs after a warm-up; Python's are timed
 * inside its process (`time.perf_counter`), so its start-up is not counted. Prints the ratio
 * ours / packaging (below 1: we are faster).
 */
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { pythonPackaging, runPythonPackaging } from '../test/helpers/python-packaging.js';
import { pypiVersionString, specifierFor } from '../test/vocabulary/pypi/arbitraries.js';
import { parsePypiSpecifierSet } from '../vocabulary/pypi/specifier.js';
import { comparePypiVersions, parsePypiVersion, tryParsePypiVersion, type PypiVersion } from '../vocabulary/pypi/version.js';
import { medianTime } from './measure.js';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } } });
const COUNT = Number(values.count);
const ROUNDS = Number(values.rounds);
const SEED = 440;

const packaging = pythonPackaging();
if (typeof packaging === 'string') {
  console.log(`skipped: ${packaging}`);
  process.exit(0);
}

// Inputs: PyPI-like versions (three in four a plain release), and sets of one to three specifiers.
const plain = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));
const versionText = fc.oneof(
  { weight: 3, arbitrary: plain },
  { weight: 1, arbitrary: pypiVersionString.filter((t) => tryParsePypiVersion(t) !== undefined) },
);
const versions = fc.sample(versionText, { numRuns: COUNT, seed: SEED });
const anchor = versionText.map((text) => {
  const v = parsePypiVersion(text);
  return {
    text,
    normalized: String(v.public),
    release: v.release.join('.'),
    hasLocal: v.local !== undefined,
    releaseLength: v.release.length,
  };
});
const specifiers = fc.sample(
  fc.array(anchor.chain(specifierFor), { minLength: 1, maxLength: 3 }).map((s) => s.join(', ')),
  { numRuns: COUNT, seed: SEED + 1 },
);

const time = (run: () => void) => medianTime(ROUNDS, run);

let parsedVersions: PypiVersion[] = [];
let sets: ReturnType<typeof parsePypiSpecifierSet>[] = [];
let sink = 0;
const ours = {
  parseVersions: time(() => {
    parsedVersions = versions.map(parsePypiVersion);
  }),
  parseSpecifiers: time(() => {
    sets = specifiers.map((s) => parsePypiSpecifierSet(s));
  }),
  contains: time(() => {
    let n = 0;
    for (let i = 0; i < COUNT; i++) if (sets[i]!.contains(parsedVersions[i]!)) n++;
    sink += n;
  }),
  sort: time(() => {
    sink += [...parsedVersions].sort(comparePypiVersions).length;
  }),
};

const python = runPythonPackaging<Record<keyof typeof ours, number> & { matched: number }>(
  packaging,
  `import time, statistics
versions, specs, rounds = data["versions"], data["specifiers"], data["rounds"]
def timed(fn):
    fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)
state = {}
def parse_versions(): state["v"] = [V.Version(t) for t in versions]
def parse_specs(): state["s"] = [S.SpecifierSet(t) for t in specs]
def contains(): state["m"] = sum(1 for s, v in zip(state["s"], state["v"]) if s.contains(v))
def sort(): sorted(state["v"])
out = {"parseVersions": timed(parse_versions), "parseSpecifiers": timed(parse_specs), "contains": timed(contains), "sort": timed(sort)}
out["matched"] = state["m"]`,
  { versions, specifiers, rounds: ROUNDS },
);

const matched = sets.reduce((n, set, i) => n + (set.contains(parsedVersions[i]!) ? 1 : 0), 0);
console.log(
  `${COUNT.toLocaleString('en')} versions and specifier sets, median of ${ROUNDS} rounds; Python: packaging ${packaging.version} (${packaging.module})`,
);
console.log(
  `matches agree: ours ${matched.toLocaleString('en')}, packaging ${python.matched.toLocaleString('en')}${matched === python.matched ? '' : '  <-- DIFFER'}`,
);
console.log('| step | conda-resolve (ms) | packaging (ms) | ours / packaging |');
console.log('|---|---|---|---|');
const rows: [keyof typeof ours, string][] = [
  ['parseVersions', `parse ${COUNT.toLocaleString('en')} versions`],
  ['parseSpecifiers', `parse ${COUNT.toLocaleString('en')} specifier sets`],
  ['contains', `${COUNT.toLocaleString('en')} contains (version in set)`],
  ['sort', `sort ${COUNT.toLocaleString('en')} versions`],
];
for (const [key, label] of rows) {
  console.log(`| ${label} | ${ours[key].toFixed(1)} | ${python[key].toFixed(1)} | ${(ours[key] / python[key]).toFixed(2)} |`);
}
if (sink < 0) console.log(sink);
