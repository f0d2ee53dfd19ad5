/**
 * Keeps V8 from re-compiling undici's HTTP parser (WebAssembly) with its optimising compiler in a
 * short run. V8 does that for a function once it has run enough (`--wasm-tiering-budget`), on a
 * background thread, and Node waits for a compile still running before the process exits: a run
 * that only revalidated its cache (two 304 answers) ended ~180 ms after its answer
 * (bench/RESULTS.md). The parser only frames repodata bodies, which its baseline code does as
 * fast. Its budgets are set when it is first run, so the budget is raised while the first
 * connection sets the parser up and set back once the first answer starts (the zstd decoder,
 * which wants optimised code for a large download, keeps the default).
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

/** Before the first request of the process (a user's own `--wasm-tiering-budget` is left alone). */
export function raiseParserBudget(): void {
  if (state !== 'unset') return;
  state = 'done';
  if (/--wasm[-_]tiering[-_]budget/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return;
  state = 'raised';
  setBudget(RAISED_BUDGET);
}

/** Once the first answer starts (the parser is set up by then), or the first request failed. */
export function restoreParserBudget(): void {
  if (state !== 'raised') return;
  state = 'done';
  setBudget(DEFAULT_BUDGET);
}
