/**
 * Keeps V8 from re-compiling undici's HTTP parser (WebAssembly) with its optimising compiler in a
 * short run. V8 does that for a function once it has run enough (`--wasm-tiering-budget`), on a
 * background thread, and Node waits for a compile still running before the process exits: a run
 * that only revalidated its cache (two 304 answers) ended ~180 ms after its answer
 * (bench/RESULTS.md). The parser only frames repodata bodies, which its baseline code does as
 * fast. Raising the budget while the first connection sets the parser up, and setting it back once
 * the first answer starts, was measured to be enough: the parser then stays on its baseline code
 * for the run, while the zstd decoder, which wants optimised code for a large download, still gets
 * it. (Raising it for the whole run kept the decoder on baseline code too: the sharded row lost
 * ~70 ms.)
 */
import { createRequire } from 'node:module';

/** V8's own default in Node 20 (`node --v8-options`). */
const DEFAULT_BUDGET = 1_800_000;
const RAISED_BUDGET = 1_000_000_000;

let state: 'unset' | 'raised' | 'done' = 'unset';

function setBudget(budget: number): void {
  try {
    const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString(`--wasm-tiering-budget=${budget}`);
  } catch {
    // Not Node, or the flag is gone: V8 then does as it likes.
  }
}

/** Before each request (a no-op after the first; a user's own `--wasm-tiering-budget` is left alone). */
export function raiseParserBudget(): void {
  if (state !== 'unset') return;
  state = 'done';
  if (/--wasm[-_]tiering[-_]budget/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return;
  state = 'raised';
  setBudget(RAISED_BUDGET);
}

/** Once an answer starts (the parser is set up by then), or a request failed; then a no-op. */
export function restoreParserBudget(): void {
  if (state !== 'raised') return;
  state = 'done';
  setBudget(DEFAULT_BUDGET);
}
