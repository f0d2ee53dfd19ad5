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
 */
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

export default function setup(): void {
  if (existsSync(BIN)) chmodSync(BIN, 0o755);
  if (!existsSync(WORKER)) return;
  const built = statSync(WORKER).mtimeMs;
  const fresh = SOURCES.every((folder) => newestSource(join(PROJECT_ROOT, folder)) <= built);
  if (fresh) process.env.CONDA_RESOLVE_SOLVE_WORKER = pathToFileURL(WORKER).href;
}
