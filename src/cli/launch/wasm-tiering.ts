/**
 * Keeps V8 from re-compiling undici's HTTP parser (WebAssembly) with its optimising compiler in a
 * short run: V8 does that for a function once it has run enough (`--wasm-tiering-budget`), on a
 * background thread, and Node waits for a compile still running before the process exits (the
 * figure: README.md). The budget is raised while the first request sets the parser up and set back
 * once its answer starts, so the zstd decoder, which wants optimised code for a large download,
 * still gets it. undici's public diagnostics channels say when: the HTTP code knows nothing of this.
 */
import { createRequire } from 'node:module';

/** V8's own default in Node 20 (`node --v8-options`). */
const DEFAULT_BUDGET = 1_800_000;
const RAISED_BUDGET = 1_000_000_000;
/** undici's channels (docs/api/DiagnosticsChannel.md in undici): a request made, its answer's headers, its failure. */
const CREATE = 'undici:request:create';
const ENDS = ['undici:request:headers', 'undici:request:error'];

function setBudget(budget: number): void {
  try {
    const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString(`--wasm-tiering-budget=${budget}`);
  } catch {
    // Not Node, or the flag is gone: V8 then does as it likes.
  }
}

/** Once per process, before any request; a user's own `--wasm-tiering-budget` is left alone. */
export function keepParserOnBaseline(): void {
  if (/--wasm[-_]tiering[-_]budget/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '))) return;
  const channels = createRequire(import.meta.url)('node:diagnostics_channel') as typeof import('node:diagnostics_channel');
  const restore = (): void => {
    for (const name of ENDS) channels.unsubscribe(name, restore);
    setBudget(DEFAULT_BUDGET);
  };
  const raise = (): void => {
    channels.unsubscribe(CREATE, raise);
    setBudget(RAISED_BUDGET);
    for (const name of ENDS) channels.subscribe(name, restore);
  };
  channels.subscribe(CREATE, raise);
}
