#!/usr/bin/env node
/**
 * The `conda-resolve` executable. conda runs any `conda-<name>` executable on PATH as
 * `conda <name>`, so this is also `conda resolve`.
 *
 * A built package runs the bundle beside dist/src (`dist/cli/conda-resolve.cjs`, see
 * scripts/build-cli.mjs) with V8's code cache (code-cache.ts): one file to read instead of a
 * hundred modules to resolve, and compiled code reused from the last run. Without a bundle (a
 * checkout run through tsx, or tsc's output alone), or with one older than this file (tsc ran
 * again after the bundle was built), or one that does not load, it imports the modules as they are.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultCacheDir } from '../../repodata/cache-dir.js';
import { loadBundle, type BundleExports } from './code-cache.js';

const bundle = fileURLToPath(new URL('../../cli/conda-resolve.cjs', import.meta.url));
/** Commands that run too little of the bundle to make a code cache worth keeping. */
const LIGHT = new Set(['--version', '-V', '--help', '-h', 'help', 'completion']);

/** The bundle, when there is one at least as new as this file and it loads. */
function builtBundle(): BundleExports | undefined {
  if (!import.meta.url.endsWith('.js')) return undefined;
  try {
    // A second's slack: an unpacked package's files may get their times one by one.
    if (statSync(bundle).mtimeMs < statSync(fileURLToPath(import.meta.url)).mtimeMs - 1000) return undefined;
    return loadBundle(bundle, { cacheDir: defaultCacheDir(process.env), write: !LIGHT.has(process.argv[2] ?? '') });
  } catch {
    return undefined;
  }
}

const built = builtBundle();
if (built) {
  await built.run(import.meta.url);
} else {
  const [{ main }, { exitWhenIdle }] = await Promise.all([import('./main.js'), import('./exit-when-idle.js')]);
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
  await exitWhenIdle(code);
}
