/**
 * Vitest's global setup, run once before any test file.
 *
 * - The built `bin.js` is made executable, as `npm run build` (and npm's install of a package's
 *   `bin`) does: a bare `tsc -p tsconfig.build.json` leaves it 0644, and the test that runs it from
 *   PATH by its shebang would fail with EACCES.
 * - When dist/ is at least as new as every source file it is built from, the solve pool's workers
 *   load the compiled worker (`CONDA_RESOLVE_SOLVE_WORKER`, read by src/solving/solve-pool.ts only
 *   when it runs from TypeScript) instead of registering tsx and transforming the solver again in
 *   each worker thread. A stale or missing build keeps the tsx path, so a test never runs old code.
 * - Every CLI a test starts keeps V8's code cache in one folder for the whole run
 *   (`CONDA_RESOLVE_CODE_CACHE_DIR`, inherited from this process's environment): tests give each
 *   run a fresh repodata cache, and without it each run would compile the bundle again (+61 ms of
 *   CPU, src/cli/launch/README.md). A variable already set is kept; the tests of the code cache
 *   itself (test/cli/start-up.test.ts) unset it. The folder is removed when the run ends.
 * - `NODE_EXTRA_CA_CERTS` is taken out of the environment the workers, and every process they
 *   start, inherit: Node reads and parses that bundle at each start, before any code runs (about
 *   70 ms of CPU for the system's bundle), and the tests talk to their own servers on 127.0.0.1,
 *   trusting the test certificates through the CLI's own settings. The value is kept in
 *   `CONDA_RESOLVE_TEST_NODE_EXTRA_CA_CERTS` for the one test that reaches the npm registry
 *   (test/install/pack.test.ts).
 * - `python3` on the tests' PATH is the interpreter itself when the one found first is a version
 *   manager's shim (pyenv's is a bash script costing about 0.25 s of CPU per start, and the tests
 *   start python3 a dozen times): a folder with a link to `sys.executable` goes first on PATH.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from './shared.js';

const BIN = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.js');
const WORKER = join(PROJECT_ROOT, 'dist', 'src', 'solving', 'solve-worker.js');
/** The folders tsconfig.build.json compiles into dist/. */
const SOURCES = ['src', 'solver', 'repodata', 'vocabulary'];

/** The newest modification time of a .ts file under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The first `name` on PATH, with links followed; undefined when there is none. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const path = join(dir, name);
    if (dir !== '' && existsSync(path)) return realpathSync(path);
  }
  return undefined;
}

/** A folder to put first on PATH whose `python3` is the interpreter the shim on PATH runs; undefined when there is no shim. */
function pythonWithoutShim(): string | undefined {
  const found = onPath('python3');
  if (found === undefined) return undefined;
  const run = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const executable = run.status === 0 ? run.stdout.trim() : '';
  if (executable === '' || !existsSync(executable) || realpathSync(executable) === found) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cr-test-bin-'));
  symlinkSync(executable, join(dir, 'python3'));
  return dir;
}

export default function setup(): (() => void) | undefined {
  if (existsSync(BIN)) chmodSync(BIN, 0o755);
  const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;
  if (extraCaCerts !== undefined) {
    process.env.CONDA_RESOLVE_TEST_NODE_EXTRA_CA_CERTS = extraCaCerts;
    delete process.env.NODE_EXTRA_CA_CERTS;
  }
  const made: string[] = [];
  if (!process.env.CONDA_RESOLVE_CODE_CACHE_DIR) {
    const codeCache = mkdtempSync(join(tmpdir(), 'cr-test-code-cache-'));
    process.env.CONDA_RESOLVE_CODE_CACHE_DIR = codeCache;
    made.push(codeCache);
  }
  const python = pythonWithoutShim();
  if (python !== undefined) {
    process.env.PATH = `${python}${delimiter}${process.env.PATH ?? ''}`;
    made.push(python);
  }
  if (existsSync(WORKER)) {
    const built = statSync(WORKER).mtimeMs;
    const fresh = SOURCES.every((folder) => newestSource(join(PROJECT_ROOT, folder)) <= built);
    if (fresh) process.env.CONDA_RESOLVE_SOLVE_WORKER = pathToFileURL(WORKER).href;
  }
  return made.length === 0 ? undefined : () => made.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
}
