/**
 * The order test files start in. First the files that start child processes, longest first, then
 * the longest of the rest, then everything else in vitest's own order.
 *
 * - Processes first: Node starts a child with fork(), which copies the page tables of the whole
 *   worker, and the workers hold more memory with each file they run (`isolate: false`). The same
 *   child costs the test several times more CPU from a worker of 500 MB than from a fresh one
 *   (bench/RESULTS.md, test files).
 * - Longest first: vitest orders by the durations of the last run when it has them
 *   (node_modules/.vite), and by file size in a fresh clone, as in CI: there a long file could
 *   start last and run alone at the end while the other workers wait.
 *
 * The lists are the slowest files of a full run; a file missing from them only starts later.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files whose time goes mostly to child processes (the CLI, `serve`, bash, npm, chromium, python3). */
const STARTING_PROCESSES = [
  'test/cli/start-up.test.ts',
  'test/action/remote-shell.test.ts',
  'test/reliability/server-under-fire.test.ts',
  'test/cluster/cluster.test.ts',
  'test/docs/commands.test.ts',
  'test/install/pack.test.ts',
  'test/action/remote-server.test.ts',
  'test/action/audit-relock.test.ts',
  'test/tools/without-shared.test.ts',
  'test/action/local.test.ts',
  // Also holds a lot in the worker once it has run.
  'test/repodata/hostile-servers.test.ts',
  'test/cluster/worker-command.test.ts',
  'test/http/shutdown-drain.test.ts',
  'test/action/bundle.test.ts',
  'test/cli/cli.test.ts',
  'test/http/ui-browser.test.ts',
  'test/repodata/cache.test.ts',
  'test/resolve/pypi-pip-referee.test.ts',
  'test/vocabulary/pypi/packaging-oracle.test.ts',
  'test/repodata/pypi/client.test.ts',
  'test/cli/interrupt.test.ts',
  'test/http/shutdown.test.ts',
  'test/cli/progress-tmux.test.ts',
  'test/http/docs-browser.test.ts',
  'test/cli/output-file.test.ts',
  'test/vocabulary/pypi/packaging-files-compare.test.ts',
  'test/cli/info-cache-completion.test.ts',
  'test/net/proxy-tls.test.ts',
  'test/action/runner.test.ts',
  'test/cluster/faults.test.ts',
  'test/repodata/parse.test.ts',
  'test/cli/keep-alive-download.test.ts',
];

/** The longest of the files that run in the worker itself. */
const SLOW_IN_PROCESS = [
  'test/solver/referee.test.ts',
  'test/solver/core-properties.test.ts',
  'test/repodata/store.test.ts',
  'test/http/hostile-decoding.test.ts',
  'test/http/policy-and-limits.test.ts',
  'test/repodata/shards.test.ts',
  'test/repodata/lazy-index.test.ts',
  'test/http/hostile-surfaces.test.ts',
];

const ORDER = [...STARTING_PROCESSES, ...SLOW_IN_PROCESS];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const at = ORDER.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return at < 0 ? ORDER.length : at;
    };
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map((e) => e.file);
  }
}
