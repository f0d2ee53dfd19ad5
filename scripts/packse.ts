/**
 * `npx tsx scripts/packse.ts DIR`: runs every packse scenario under DIR (astral-sh/packse's
 * `scenarios/`, or ours in `fixtures/pypi/scenarios/`) through the mixed solve and prints each
 * failure and the counts.
 */
import { basename } from 'node:path';
import { readScenario, runScenario, scenarioFiles } from '../test/helpers/packse.js';

const dir = process.argv[2] ?? process.env.PACKSE_SCENARIOS;
if (!dir) throw new Error('usage: scripts/packse.ts DIR (or PACKSE_SCENARIOS=DIR)');
const counts = { pass: 0, fail: 0, 'not-applicable': 0 };
const skipped = new Map<string, number>();
for (const file of scenarioFiles(dir)) {
  const scenario = readScenario(file);
  const result = runScenario(scenario);
  counts[result.kind]++;
  if (result.kind === 'fail') console.log(`FAIL ${basename(file)} (${scenario.name}): expected ${result.expected}; got ${result.got}`);
  if (result.kind === 'not-applicable')
    skipped.set(
      result.why.replace(/^.* has (only|no)/, 'has $1'),
      (skipped.get(result.why.replace(/^.* has (only|no)/, 'has $1')) ?? 0) + 1,
    );
}
console.log(
  `pass ${counts.pass}, fail ${counts.fail}, not applicable ${counts['not-applicable']}: ${[...skipped].map(([why, n]) => `${n} ${why}`).join('; ')}`,
);
