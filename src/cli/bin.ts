#!/usr/bin/env node
/**
 * The `conda-resolve` executable. conda runs any `conda-<name>` executable on PATH as
 * `conda <name>`, so this is also `conda resolve`.
 *
 * A built package runs the bundle beside dist/src (`dist/cli/conda-resolve.cjs`, see
 * scripts/build-cli.mjs) with V8's code cache (code-cache.ts): one file to read instead of a
 * hundred modules to resolve, and compiled code reused from the last run. Without a bundle (a
 * checkout run through tsx, or tsc's output alone), or with one older than `main.js` (tsc ran
 * again after the bundle was built), or one that does not load, it imports the modules as they are.
 *
 * package.json's `bin` is `dist/src/cli/bin.cjs`: this file and the two it imports, bundled as
 * CommonJS by scripts/build-cli.mjs, since an ES module as the entry starts Node's ES module loader
 * first (about 8 ms of a warm resolve). tsc's `bin.js` is the same launcher as an ES module.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultCacheDir } from '../../repodata/cache-dir.js';
import { loadBundle, type BundleExports } from './code-cache.js';

/** Commands that run too little of the bundle to make a code cache worth keeping. */
const LIGHT = new Set(['--version', '-V', '--help', '-h', 'help', 'completion']);

/** The bundle, when this is the launcher in dist/src/cli and the bundle is at least as new as tsc's output and loads. */
function builtBundle(): BundleExports | undefined {
  // The action's one-file CLI (an .mjs holding everything) and a checkout run through tsx have none.
  if (!/\.c?js$/.test(import.meta.url)) return undefined;
  try {
    const bundle = fileURLToPath(new URL('../../cli/conda-resolve.cjs', import.meta.url));
    const compiled = fileURLToPath(new URL('./main.js', import.meta.url));
    // A second's slack: an unpacked package's files may get their times one by one.
    if (statSync(bundle).mtimeMs < statSync(compiled).mtimeMs - 1000) return undefined;
    return loadBundle(bundle, { cacheDir: defaultCacheDir(process.env), write: !LIGHT.has(process.argv[2] ?? '') });
  } catch {
    return undefined;
  }
}

async function start(): Promise<void> {
  const built = builtBundle();
  if (built) {
    await built.run(import.meta.url);
    return;
  }
  const [{ main }, { exitWhenIdle }] = await Promise.all([import('./main.js'), import('./exit-when-idle.js')]);
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
  await exitWhenIdle(code);
}

// No top-level await: the CommonJS build of this file cannot have one. An error `main` did not turn
// into a message ends the process as any unhandled rejection does (status 1, with its stack).
void start();
