/**
 * Resolver scenarios in astral-sh/packse's format: ours (fixtures/pypi/scenarios, always), and
 * packse's own (uv's resolver test suite) when they are in ../shared/third-party/packse/scenarios
 * or PACKSE_SCENARIOS names a folder of them (test/THIRD-PARTY-DATA.md). Where uv's documented
 * choice differs from pip's, the expected outcome is pip's (FOLLOWS_PIP in test/helpers/packse.ts).
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { readScenario, runScenario, scenarioFiles } from '../helpers/packse.js';
import { thirdPartyPath } from '../helpers/third-party.js';

function runAll(dir: string): void {
  for (const file of scenarioFiles(dir)) {
    it(basename(file), () => {
      const result = runScenario(readScenario(file));
      if (result.kind === 'not-applicable') return;
      expect(result).toEqual({ kind: 'pass' });
    });
  }
}

describe('our scenarios (fixtures/pypi/scenarios)', () => {
  runAll(join(PROJECT_ROOT, 'fixtures', 'pypi', 'scenarios'));
});

const packse = process.env.PACKSE_SCENARIOS ?? thirdPartyPath('packse/scenarios');
(packse ? describe : describe.skip)('astral-sh/packse scenarios', () => {
  if (packse) runAll(packse);
});
