/**
 * Runs the slowest test files first, longest first, then the rest in vitest's own order. Vitest
 * orders by the durations of the last run when it has them (node_modules/.vite), and by file size
 * in a fresh clone, as in CI: there a long file could start last and run alone at the end while the
 * other workers wait. The list is the slowest files of a full run (bench/RESULTS.md, test files).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const SLOW_FIRST = [
  'test/action/remote-shell.test.ts',
  'test/cli/start-up.test.ts',
  'test/reliability/server-under-fire.test.ts',
  'test/http/shutdown-drain.test.ts',
  'test/repodata/hostile-servers.test.ts',
  'test/solver/referee.test.ts',
  'test/action/audit-relock.test.ts',
  'test/cluster/cluster.test.ts',
  'test/docs/commands.test.ts',
  'test/tools/without-shared.test.ts',
  'test/action/local.test.ts',
  'test/install/pack.test.ts',
  'test/solver/core-properties.test.ts',
  'test/http/policy-and-limits.test.ts',
  'test/resolve/pypi-pip-referee.test.ts',
  'test/cluster/worker-command.test.ts',
  'test/action/remote-server.test.ts',
  'test/http/hostile-decoding.test.ts',
  'test/http/ui-browser.test.ts',
  'test/repodata/stream-scan.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = SLOW_FIRST.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return at < 0 ? SLOW_FIRST.length : at;
    };
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map((e) => e.file);
  }
}
