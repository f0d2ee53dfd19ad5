/**
 * The entry of the CLI's bundle, `dist/cli/conda-resolve.cjs` (built by scripts/build-cli.mjs
 * after tsc): one script holding the command line and what a resolve needs, which `bin.ts` compiles
 * with V8's code cache (code-cache.ts). A script has no top-level await, so this exports `run`.
 * Started again as a worker thread (the solve pool), it runs that worker's
 * module instead, as `bundle-main.ts` does for the action's one-file CLI.
 */
import { setBundleEntry } from '../../solving/bundle-entry.js';
import { onMainThread } from './main-thread.js';
import { exitWhenIdle } from './exit-when-idle.js';
import { keepParserOnBaseline } from './wasm-tiering.js';
import { main } from '../main.js';

/** `entryUrl` is the launcher's module URL: worker threads start there too. */
export async function run(entryUrl: string): Promise<void> {
  setBundleEntry(entryUrl);
  if (onMainThread()) {
    keepParserOnBaseline();
    const code = await main(process.argv.slice(2), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      cwd: process.cwd(),
    });
    // `serve` and `worker` return only when they stop, so this ends only finished commands.
    await exitWhenIdle(code);
    return;
  }
  await import('../../solving/solve-worker.js');
}
