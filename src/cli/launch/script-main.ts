/**
 * The entry of the CLI's bundle, `dist/cli/conda-resolve.cjs` (built by scripts/build-cli.mjs
 * after tsc): one script holding the command line and what a resolve needs, which `bin.ts` compiles
 * with V8's code cache (code-cache.ts). A script has no top-level await, so this exports `run`.
 * Started again as a worker thread (the solve pool), it runs that worker's
 * module instead, as `bundle-main.ts` does for the action's one-file CLI.
 */
import { setBundleEntry } from '../../solving/bundle-entry.js';
import { onMainThread } from './main-thread.js';
import { runThisProcess } from './exit-when-idle.js';
import { keepParserOnBaseline } from './wasm-tiering.js';
import { main } from '../main.js';

/** `entryUrl` is the launcher's module URL: worker threads start there too. */
export async function run(entryUrl: string): Promise<void> {
  setBundleEntry(entryUrl);
  if (onMainThread()) {
    keepParserOnBaseline();
    await runThisProcess(main);
    return;
  }
  await import('../../solving/solve-worker.js');
}
