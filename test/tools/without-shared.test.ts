/**
 * A user's fresh clone has no ../shared: the snapshot-based test files must skip, saying so, not
 * fail while vitest collects them (they read the snapshots in their describe bodies).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';

describe('the test suite without ../shared', () => {
  it('skips the snapshot tests of files that read snapshots while collecting, and passes', () => {
    const files = [
      'test/repodata/parse.test.ts',
      'test/exporters/golden.test.ts',
      'test/repodata/store-faults.test.ts',
      'test/repodata/lazy-index.test.ts',
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, CONDA_RESOLVE_SHARED_DIR: join(PROJECT_ROOT, 'no-such-shared-dir') };
    delete env.CONDA_RESOLVE_REQUIRE_SHARED;
    // One worker: the run sits beside this suite's own workers, and more would each load the modules again.
    const run = spawnSync(process.execPath, [join(PROJECT_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--maxWorkers=1', ...files], {
      cwd: PROJECT_ROOT,
      env,
      encoding: 'utf8',
    });
    const output = run.stdout + run.stderr;
    expect(output).toContain('snapshot-based tests are skipped');
    expect(output).not.toMatch(/ENOENT/);
    expect(run.status, output).toBe(0);
  }, 120_000);
});
