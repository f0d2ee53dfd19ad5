/**
 * Loads the WebAssembly entry scan (`wasm/entry-scan.c`, built by `scripts/build-entry-scan.mjs`),
 * which reads the common `"file name": {record}` entries for `stream-scan.ts`. Each `EntryScan` is
 * one instance whose memory also holds its scanner's input buffer, so pushed bytes are copied once.
 * Where WebAssembly with SIMD is missing, `create()` gives null and the byte scan reads every
 * entry; `CONDA_RESOLVE_SCAN=js` asks for that (for comparisons).
 */
import { ENTRY_SCAN_WASM } from './entry-scan-wasm.js';

/** Why `scan` stopped (`STOP_*` in wasm/entry-scan.c): only after `Separator` is no entry due next. */
export const Stop = {
  /** At an entry it leaves to the byte scan (or the end of the bytes). */
  Entry: 0,
  /** After an entry not followed by ",". */
  Separator: 1,
  /** The output columns are full. */
  Full: 2,
} as const;

/** Bits of a row's `flags` (`out_flags` in wasm/entry-scan.c). */
export const RowFlag = {
  /** The name has a byte >= 0x80 (it is decoded to find its canonical bytes). */
  NonAscii: 1,
  /** The name's bytes are the previous row's. */
  SameName: 2,
} as const;

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
    // No SIMD, or no synchronous compile here: the byte scan reads every entry.
  }
  return compiled;
}

/**
 * Instances whose scanners finished, for the next scanner of this thread: creating an instance and
 * growing its memory cost more than a small document's whole scan. A few, and small ones only.
 */
const idle: EntryScan[] = [];
const IDLE_AT_MOST = 2;
const IDLE_MEMORY_AT_MOST = 8 << 20;

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

  /** An instance (a new one, or one a finished scanner released), or null where the WebAssembly scan is not available. */
  static create(): EntryScan | null {
    const reused = idle.pop();
    if (reused !== undefined) return reused;
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
   * Give the instance back once its scanner is done with it, keeping no reference (no buffer or
   * row view of it is used after this): kept for the next `create()` with the memory above the heap
   * zeroed, as a new instance's is, or left to the garbage collector.
   */
  release(): void {
    const memory = this.#exports.memory;
    if (idle.length >= IDLE_AT_MOST || memory.buffer.byteLength > IDLE_MEMORY_AT_MOST) return;
    new Uint8Array(memory.buffer, this.#heapBase).fill(0);
    this.#views = null;
    idle.push(this);
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
    if (this.#views === null || this.#views.results.buffer !== this.#exports.memory.buffer)
      this.#views = makeViews(this.#exports, this.rowsCapacity);
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
    /** `RowFlag` bits. */
    flags: new Uint8Array(buffer, e.out_flags(), rows),
    /** [stop offset, stop reason, first unsorted row] */
    results: new Uint32Array(buffer, e.results(), 3),
  };
}
