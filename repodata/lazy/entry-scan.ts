/**
 * The WebAssembly entry scan (`wasm/entry-scan.c`): the fast path of the repodata.json scan
 * (`stream-scan.ts`), about two and a half times the speed of its JavaScript one. Each `EntryScan` is one
 * instance with its own memory, which also holds the scanner's input buffer, so bytes pushed are
 * copied once (into the buffer) and read where they are. Downloads of two subdirs scan at once:
 * each scanner has its own instance.
 *
 * Where WebAssembly or its SIMD instructions are missing (or a browser refuses to compile on its
 * main thread), `EntryScan.create()` gives null and the JavaScript path scans as before.
 * `CONDA_RESOLVE_SCAN=js` forces that path (for comparisons).
 */
import { ENTRY_SCAN_WASM } from './entry-scan-wasm.js';

/**
 * `scan` stopped after an entry not followed by "," (wasm/entry-scan.c's STOP_SEPARATOR); its other
 * reasons (an entry for the JavaScript scan, full output) both leave an entry due next.
 */
export const STOP_SEPARATOR = 1;

/** Bytes the scan may read past the end of the input (whole 64-byte blocks). */
const PADDING = 128;
const PAGE = 65536;

/** What of the WebAssembly API this uses (declared here: the project's `lib` has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown };
}

interface EntryScanExports {
  readonly memory: WasmMemory;
  rows_capacity(): number;
  heap_base(): number;
  results(): number;
  out_fn_hash(): number;
  out_fn_start(): number;
  out_fn_end(): number;
  out_rec_start(): number;
  out_rec_end(): number;
  out_name_start(): number;
  out_name_end(): number;
  out_name_hash(): number;
  out_flags(): number;
  scan_entries(buffer: number, at: number, n: number, base: number): number;
}

const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let compiled: object | null | undefined;

function compile(): object | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    if (env?.CONDA_RESOLVE_SCAN === 'js' || api === undefined) return null;
    const binary = atob(ENTRY_SCAN_WASM);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    compiled = new api.Module(bytes);
  } catch {
    // No SIMD, or no synchronous compile here: the JavaScript path.
  }
  return compiled;
}

/** One scanner's instance: its input buffer and the rows of the last `scan`. */
export class EntryScan {
  readonly #exports: EntryScanExports;
  readonly #heapBase: number;
  readonly rowsCapacity: number;
  #views: ReturnType<typeof makeViews> | null = null;

  private constructor(exports: EntryScanExports) {
    this.#exports = exports;
    this.#heapBase = exports.heap_base();
    this.rowsCapacity = exports.rows_capacity();
  }

  /** A new instance, or null where the WebAssembly scan is not available. */
  static create(): EntryScan | null {
    const module = compile();
    if (module === null) return null;
    try {
      return new EntryScan(new api!.Instance(module, {}).exports as EntryScanExports);
    } catch {
      return null;
    }
  }

  /**
   * The input buffer with room for `capacity` bytes. Its bytes so far are kept (the memory only
   * grows); views over the old one are dead after a call that grew it.
   */
  buffer(capacity: number): Uint8Array<ArrayBuffer> {
    const memory = this.#exports.memory;
    const needed = this.#heapBase + capacity + PADDING;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    this.#views = null;
    return new Uint8Array(memory.buffer, this.#heapBase, capacity);
  }

  /**
   * Scan entries from `buffer[at]` up to `buffer[n]` (`base`: the document offset of buffer[0]).
   * Returns the rows found; `rows` gives them, `stopAt` and `stopReason` where and why it stopped,
   * `unsortedRow` the first row whose file name is not greater than the previous row's (or more
   * than the rows found).
   */
  scan(at: number, n: number, base: number): number {
    return this.#exports.scan_entries(this.#heapBase, at, n, base);
  }

  /** The output columns and results (views over the instance's memory). */
  get rows(): ReturnType<typeof makeViews> {
    if (this.#views === null || this.#views.results.buffer !== this.#exports.memory.buffer) this.#views = makeViews(this.#exports, this.rowsCapacity);
    return this.#views;
  }
}

function makeViews(e: EntryScanExports, rows: number) {
  const buffer = e.memory.buffer;
  const u32 = (at: number) => new Uint32Array(buffer, at, rows);
  return {
    fnHash: u32(e.out_fn_hash()),
    fnStart: u32(e.out_fn_start()),
    fnEnd: u32(e.out_fn_end()),
    recStart: u32(e.out_rec_start()),
    recEnd: u32(e.out_rec_end()),
    nameStart: u32(e.out_name_start()),
    nameEnd: u32(e.out_name_end()),
    nameHash: u32(e.out_name_hash()),
    /** Bit 0: the name has a byte >= 0x80; bit 1: the same bytes as the previous row's name. */
    flags: new Uint8Array(buffer, e.out_flags(), rows),
    /** [stop offset, stop reason, first unsorted row] */
    results: new Uint32Array(buffer, e.results(), 3),
  };
}
