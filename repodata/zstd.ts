/**
 * zstd for repodata: a streaming decoder (a 48 MB `repodata.json.zst` becomes a 243 MB file without
 * holding both), a one-shot decoder for shards, and a compressor for the test tool. libzstd is
 * zstd-napi's native addon when it loads, else zstd-codec's WebAssembly build through its low-level
 * stream binding (the figures behind both choices are in bench/RESULTS.md). The stream API cannot say
 * whether input ended on a frame boundary, so `ZstdFrameTracker` walks the frame and block headers
 * alongside and rejects a truncated download.
 */
import { CondaResolveError } from '../vocabulary/errors.js';

/** Bad or truncated zstd data. `offset` is the byte of the compressed input where it went wrong. */
export class ZstdDataError extends CondaResolveError {
  readonly offset: number;
  /** The data is good so far but decodes to more than the caller's cap. */
  readonly tooLarge: boolean;

  constructor(message: string, offset: number, options: { tooLarge?: boolean } = {}) {
    super('CR_ERR_REPODATA_ZSTD', message);
    this.offset = offset;
    this.tooLarge = options.tooLarge === true;
  }
}

/**
 * Input is handed to libzstd in slices sized so that one call produces at most about
 * `OUTPUT_PER_CALL` bytes, judged by the ratio of the previous call: one call decodes its whole
 * slice, and a slice of a decompression bomb (RLE blocks: 4 bytes for 128 kB) expands some 32,000
 * times. Real repodata expands about 10 times, so it keeps 64 kB slices (few calls); a bomb falls
 * to 128-byte slices, 4 MB of output per call (a few milliseconds), after which the cap is checked
 * and the caller may write the output away before the next slice.
 */
const OUTPUT_PER_CALL = 4 * 1024 * 1024;
const MIN_SLICE = 128;
const MAX_SLICE = 64 * 1024;

interface StreamBinding {
  begin(level?: number): boolean;
  transform(chunk: Uint8Array, callback: (out: Uint8Array) => void): boolean;
  flush(callback: (out: Uint8Array) => void): boolean;
  end(callback: (out: Uint8Array) => void): boolean;
  delete(): void;
}

interface ZstdBinding {
  ZstdDecompressStreamBinding: new () => StreamBinding;
  ZstdCompressStreamBinding: new () => StreamBinding;
}

let bindingPromise: Promise<{ readonly binding: ZstdBinding }> | undefined;

/** The WebAssembly module is instantiated once per process (about 30 ms) and shared. */
function loadBinding(): Promise<{ readonly binding: ZstdBinding }> {
  // A literal import (not createRequire) so that the action's one-file bundle carries the codec.
  bindingPromise ??= import('zstd-codec/lib/module.js').then(
    (mod) =>
      new Promise<{ binding: ZstdBinding }>((resolve) => {
        // Emscripten's module object has a `then` method: keep it wrapped, or a promise would adopt it.
        (mod.default ?? mod).run((binding) => resolve({ binding: binding as ZstdBinding }));
      }),
  );
  return bindingPromise;
}

/** What repodata/zstd.ts uses of zstd-napi's low-level binding (`zstd-napi/binding.js`). */
export interface NativeZstd {
  DCtx: new () => NativeDCtx;
  /** `ZSTD_ResetDirective`: `sessionOnly` abandons the frame and keeps the parameters. */
  ResetDirective: { readonly sessionOnly: number };
}

interface NativeDCtx {
  decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
  /** `ZSTD_DCtx_reset`. */
  reset(directive: number): void;
}

let nativePromise: Promise<NativeZstd | null> | undefined;

/**
 * libzstd as a native addon, when the optional dependency `zstd-napi` installed (it builds with
 * node-gyp where no prebuilt binary is fetched): it decodes about 4 times as fast as the
 * WebAssembly build (a 274 MB repodata.json: 0.35 s against 1.2-1.5 s, bench/RESULTS.md). Null
 * when it is missing or does not load (no compiler at install, another platform, the action's
 * one-file bundle), or when `CONDA_RESOLVE_ZSTD=wasm` asks for the WebAssembly build.
 */
function loadNative(): Promise<NativeZstd | null> {
  const wanted = process.env.CONDA_RESOLVE_ZSTD;
  nativePromise ??=
    wanted === 'wasm'
      ? Promise.resolve(null)
      : import('zstd-napi/binding.js').then(
          (mod) => {
            const binding = ((mod as { default?: unknown }).default ?? mod) as Partial<NativeZstd>;
            const usable = typeof binding.DCtx === 'function' && typeof binding.ResetDirective?.sessionOnly === 'number';
            return usable ? (binding as NativeZstd) : null;
          },
          () => null,
        );
  return nativePromise;
}

/**
 * Start loading the codec without waiting for it: a caller about to download zstd data calls this
 * first, so the addon loads (or the WebAssembly compiles, off the main thread) while the request
 * is under way.
 */
export function preloadZstd(): void {
  loadNative()
    .then((native) => (native === null ? loadBinding() : undefined))
    .catch(() => undefined);
}

const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;

type TrackerState = 'magic' | 'descriptor' | 'header-rest' | 'block-header' | 'checksum' | 'skippable-size';

/**
 * Follows zstd's frame layout (RFC 8878 section 3.1) over a stream of chunks without decoding it:
 * frame magic, frame header, block headers (skipping block payloads), optional checksum, and
 * skippable frames. `finish()` throws unless the input ended exactly at a frame boundary.
 */
export class ZstdFrameTracker {
  #state: TrackerState = 'magic';
  #need = 4;
  #header: number[] = [];
  #skip = 0;
  #afterSkip: TrackerState = 'magic';
  #hasChecksum = false;
  #fcsBytes = 0;
  #singleSegment = false;
  #dictBytes = 0;
  #offset = 0;
  #frames = 0;
  #declared: number | null = 0;

  /** Bytes consumed so far. */
  get offset(): number {
    return this.#offset;
  }

  /** Sum of the frames' declared content sizes, or null when a frame does not declare one. */
  get declaredContentSize(): number | null {
    return this.#declared;
  }

  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.#skip > 0) {
        const take = Math.min(this.#skip, n - i);
        this.#skip -= take;
        i += take;
        this.#offset += take;
        if (this.#skip === 0) this.#enter(this.#afterSkip);
        continue;
      }
      this.#header.push(chunk[i]);
      i += 1;
      this.#offset += 1;
      if (this.#header.length === this.#need) {
        const bytes = this.#header;
        this.#header = [];
        this.#handle(bytes);
      }
    }
  }

  finish(): void {
    if (this.#state === 'magic' && this.#header.length === 0 && this.#skip === 0 && this.#frames > 0) return;
    if (this.#offset === 0) throw new ZstdDataError('Cannot decompress zstd data: the input is empty', 0);
    throw new ZstdDataError(`Cannot decompress zstd data: truncated, the input ends inside a frame at byte ${this.#offset}`, this.#offset);
  }

  #enter(state: TrackerState): void {
    this.#state = state;
    switch (state) {
      case 'magic':
      case 'checksum':
      case 'skippable-size':
        this.#need = 4;
        break;
      case 'descriptor':
        this.#need = 1;
        break;
      case 'block-header':
        this.#need = 3;
        break;
      case 'header-rest':
        this.#need = (this.#singleSegment ? 0 : 1) + this.#dictBytes + this.#fcsBytes;
        if (this.#need === 0) this.#enter('block-header');
        break;
    }
  }

  #handle(bytes: number[]): void {
    const at = this.#offset - bytes.length;
    switch (this.#state) {
      case 'magic': {
        const magic = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 0;
        if (magic === ZSTD_MAGIC) this.#enter('descriptor');
        else if ((magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC) this.#enter('skippable-size');
        else throw new ZstdDataError(`Cannot decompress zstd data: no zstd frame at byte ${at}`, at);
        return;
      }
      case 'descriptor': {
        const d = bytes[0];
        if (d & 0x08) throw new ZstdDataError(`Cannot decompress zstd data: reserved bit set in the frame header at byte ${at}`, at);
        const fcsFlag = d >> 6;
        this.#singleSegment = ((d >> 5) & 1) === 1;
        this.#hasChecksum = ((d >> 2) & 1) === 1;
        this.#dictBytes = [0, 1, 2, 4][d & 3];
        this.#fcsBytes = [this.#singleSegment ? 1 : 0, 2, 4, 8][fcsFlag];
        this.#enter('header-rest');
        return;
      }
      case 'header-rest': {
        if (this.#fcsBytes === 0) {
          this.#declared = null;
        } else {
          const fcs = bytes.slice(bytes.length - this.#fcsBytes);
          let size = 0;
          for (let k = fcs.length - 1; k >= 0; k -= 1) size = size * 256 + fcs[k];
          if (this.#fcsBytes === 2) size += 256;
          if (this.#declared !== null) this.#declared += size;
        }
        this.#enter('block-header');
        return;
      }
      case 'block-header': {
        const h = bytes[0] | (bytes[1] << 8) | (bytes[2] << 16);
        const last = (h & 1) === 1;
        const type = (h >> 1) & 3;
        const size = h >>> 3;
        if (type === 3) throw new ZstdDataError(`Cannot decompress zstd data: reserved block type at byte ${at}`, at);
        this.#skip = type === 1 ? 1 : size;
        this.#afterSkip = last ? (this.#hasChecksum ? 'checksum' : 'magic') : 'block-header';
        if (last && !this.#hasChecksum) this.#frames += 1;
        if (this.#skip === 0) this.#enter(this.#afterSkip);
        return;
      }
      case 'checksum':
        this.#frames += 1;
        this.#enter('magic');
        return;
      case 'skippable-size': {
        this.#skip = (bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24)) >>> 0;
        this.#afterSkip = 'magic';
        if (this.#skip === 0) this.#enter('magic');
        return;
      }
    }
  }
}

export interface ZstdDecoderOptions {
  /** Refuse to produce more than this many bytes (a decompression bomb, or the wrong file). */
  readonly maxOutputBytes?: number;
  /**
   * The caller is done with each piece of output before its next `push()` or `end()`, so the
   * decoder may write the next pieces over it (the native build then reuses its blocks).
   */
  readonly reuseOutput?: boolean;
  /** @internal `wasm` decodes with the WebAssembly build even where the native one loads (tests). */
  readonly build?: 'wasm';
}

/** Which libzstd build decodes in this process: `native` (zstd-napi) or `wasm` (zstd-codec). */
export async function zstdBuild(): Promise<'native' | 'wasm'> {
  return (await loadNative()) !== null ? 'native' : 'wasm';
}

/** A push-style streaming decoder. Output chunks are the caller's to keep, unless it passed `reuseOutput`. */
export interface ZstdStreamDecoder {
  /** Decodes `chunk`; callers that want to act between calls pass at most `nextSlice` bytes at a time. */
  push(chunk: Uint8Array): void;
  /** How many input bytes the next call should take to produce about 4 MB at most. */
  readonly nextSlice: number;
  /** Checks the input ended on a frame boundary and the output has the declared size; frees the decoder. */
  end(): void;
  /** Frees the decoder without checks (after an error elsewhere). */
  dispose(): void;
  readonly outputBytes: number;
}

/** Takes a piece of output; false when the decoder should stop (the output is over its cap, or the consumer failed). */
type Emit = (out: Buffer) => boolean;

/**
 * One libzstd build as the streaming decoder drives it. `transform` decodes all of `input` and
 * `end` flushes what is held, each handing output to `emit` (pieces the caller may keep, unless
 * it asked for `reuseOutput`); both return false on corrupt data.
 */
interface DecodeBackend {
  /** A `push()` or `end()` of the caller starts: the pieces handed out before may be written over. */
  begin(): void;
  transform(input: Uint8Array, emit: Emit): boolean;
  end(emit: Emit): boolean;
  delete(): void;
}

/** zstd-codec's stream binding (WebAssembly): its output pieces are copied out of WebAssembly memory. */
function wasmBackend(binding: ZstdBinding): DecodeBackend | null {
  const stream = new binding.ZstdDecompressStreamBinding();
  if (!stream.begin()) {
    stream.delete();
    return null;
  }
  return {
    begin: () => undefined,
    transform: (input, emit) => stream.transform(input, (out) => void emit(ownBuffer(out))),
    end: (emit) => stream.end((out) => void emit(ownBuffer(out))),
    delete: () => stream.delete(),
  };
}

/** Output blocks of the native decoder: each emitted piece is a view of one. */
const NATIVE_BLOCK = 1024 * 1024;
/** A block with less room than this left is left for the next one. */
const NATIVE_MIN_ROOM = 64 * 1024;
const NO_INPUT = new Uint8Array(0);
const NO_BLOCK: Buffer = Buffer.alloc(0);

/** A native decoding context with the output blocks it reuses. */
interface NativeContext {
  readonly dctx: NativeDCtx;
  readonly blocks: Buffer[];
}

/**
 * Contexts of finished decoders, reset, for the next: libzstd's context (~100 kB of native memory
 * the collector does not see) made afresh for each of thousands of shards grew a process by
 * ~26 kB per decode until a collection happened to free them.
 */
const idleContexts: NativeContext[] = [];
const MAX_IDLE_CONTEXTS = 4;
let contextsMade = 0;

/** @internal How many native decoding contexts this process has made (tests). */
export function nativeContextsMade(): number {
  return contextsMade;
}

/**
 * zstd-napi's `DCtx` (`ZSTD_decompressStream`), which writes straight into our blocks. With
 * `reuse`, each `push()` or `end()` of the caller starts again at the context's first block
 * (`begin`), not each `transform`: a push of a large chunk decodes it in many slices, and the
 * pieces of all of them live until the caller's next call,
 * and the blocks stay in memory already touched (fresh memory for every output byte cost ~0.9 s
 * of page faults over 636 MB on the benchmark's machine). Without it, every block is new and each
 * piece is the caller's to keep.
 */
function nativeBackend(native: NativeZstd, reuse: boolean): DecodeBackend {
  const context = idleContexts.pop() ?? (contextsMade++, { dctx: new native.DCtx(), blocks: [] });
  const { dctx, blocks } = context;
  let index = -1;
  let block: Buffer = NO_BLOCK;
  let at = 0;
  let done = false;
  const nextBlock = (): void => {
    index += 1;
    block = reuse ? (blocks[index] ??= Buffer.allocUnsafeSlow(NATIVE_BLOCK)) : Buffer.allocUnsafeSlow(NATIVE_BLOCK);
    at = 0;
  };
  // Decode until the input is used up and the output did not fill the room it had (a full room
  // may mean libzstd holds more).
  const begin = (): void => {
    if (reuse) {
      index = -1;
      block = NO_BLOCK;
    }
  };
  const drain = (input: Uint8Array, emit: Emit): boolean => {
    let rest = input;
    for (;;) {
      if (block.length - at < NATIVE_MIN_ROOM) nextBlock();
      const room = block.subarray(at);
      let produced: number;
      let consumed: number;
      try {
        [, produced, consumed] = dctx.decompressStream(room, rest);
      } catch {
        return false; // libzstd's error: corrupt or unsupported data
      }
      rest = rest.subarray(consumed);
      if (produced > 0) {
        const out = block.subarray(at, at + produced);
        at += produced;
        if (!emit(out)) return true;
      } else if (consumed === 0 && rest.length > 0) {
        return false; // no progress with room to spare: never loop on it
      }
      if (rest.length === 0 && produced < room.length) return true;
    }
  };
  const release = (): void => {
    if (done) return;
    done = true;
    try {
      dctx.reset(native.ResetDirective.sessionOnly);
    } catch {
      return; // not reusable: left to the collector
    }
    // A context whose blocks the caller may still hold (no reuse) gives none of them back.
    if (idleContexts.length < MAX_IDLE_CONTEXTS) idleContexts.push(reuse ? context : { dctx, blocks: [] });
  };
  return { begin, transform: drain, end: (emit) => drain(NO_INPUT, emit), delete: release };
}

export async function createZstdDecoder(onData: (chunk: Buffer) => void, options: ZstdDecoderOptions = {}): Promise<ZstdStreamDecoder> {
  const native = options.build === 'wasm' ? null : await loadNative();
  const backend = native !== null ? nativeBackend(native, options.reuseOutput === true) : wasmBackend((await loadBinding()).binding);
  if (backend === null) throw new ZstdDataError('Cannot decompress zstd data: the decoder failed to start', 0);
  const tracker = new ZstdFrameTracker();
  const max = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;
  let outputBytes = 0;
  let nextSlice = MIN_SLICE;
  let disposed = false;
  let failure: Error | undefined;
  const emit: Emit = (out) => {
    if (failure) return false;
    outputBytes += out.length;
    if (outputBytes > max) {
      failure = new ZstdDataError(`Cannot decompress zstd data: the output exceeds ${max} bytes`, tracker.offset, { tooLarge: true });
      return false;
    }
    try {
      onData(out);
    } catch (error) {
      failure = error as Error;
      return false;
    }
    return true;
  };
  const dispose = (): void => {
    if (!disposed) {
      disposed = true;
      backend.delete();
    }
  };
  return {
    push(chunk) {
      if (disposed) throw new ZstdDataError('Cannot decompress zstd data: the decoder was already closed', tracker.offset);
      const start = tracker.offset;
      try {
        tracker.push(chunk);
      } catch (error) {
        dispose();
        throw error;
      }
      backend.begin();
      for (let at = 0; at < chunk.length; ) {
        const slice = chunk.subarray(at, at + nextSlice);
        const before = outputBytes;
        if (!backend.transform(slice, emit)) {
          dispose();
          throw new ZstdDataError(`Cannot decompress zstd data: corrupt input in the bytes ${start}..${tracker.offset}`, start);
        }
        if (failure) {
          dispose();
          throw failure;
        }
        at += slice.length;
        // The next slice from this one's expansion (libzstd may hold output back, so a call that
        // produced little says little: the slice then grows only gradually).
        const ratio = (outputBytes - before) / slice.length;
        nextSlice = Math.max(MIN_SLICE, Math.min(MAX_SLICE, nextSlice * 2, Math.floor(OUTPUT_PER_CALL / Math.max(ratio, 1))));
      }
    },
    end() {
      if (disposed) throw new ZstdDataError('Cannot decompress zstd data: the decoder was already closed', tracker.offset);
      try {
        tracker.finish();
        backend.begin();
        if (!backend.end(emit)) {
          throw new ZstdDataError(`Cannot decompress zstd data: corrupt input near byte ${tracker.offset}`, tracker.offset);
        }
        if (failure) throw failure;
        const declared = tracker.declaredContentSize;
        if (declared !== null && declared !== outputBytes) {
          throw new ZstdDataError(
            `Cannot decompress zstd data: decoded ${outputBytes} bytes but the frame header declares ${declared}`,
            tracker.offset,
          );
        }
      } finally {
        dispose();
      }
    },
    dispose,
    get nextSlice() {
      return nextSlice;
    },
    get outputBytes() {
      return outputBytes;
    },
  };
}

/** Input is handed to the WebAssembly codec in pieces of this size (its memory is capped). */
const CHUNK = 1 << 20;

/** Decodes a whole zstd buffer (shards, shard indexes). */
export async function zstdDecompress(bytes: Uint8Array, options: ZstdDecoderOptions = {}): Promise<Buffer> {
  const chunks: Buffer[] = [];
  // Each piece copied as it comes (shards are small): the decoder then reuses its blocks, and a
  // kept shard holds no 1 MB block.
  const decoder = await createZstdDecoder((chunk) => chunks.push(Buffer.from(chunk)), { ...options, reuseOutput: true });
  // In pieces: the binding copies each input into WebAssembly memory, which is capped.
  for (let at = 0; at < bytes.length; at += CHUNK) decoder.push(bytes.subarray(at, at + CHUNK));
  decoder.end();
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The binding's output as a Buffer. zstd-codec hands out each piece in an array of its own (copied
 * out of WebAssembly memory already), which is wrapped as it is: copying it again cost ~2% of a
 * `.zst` download. A view into memory the binding may reuse (WebAssembly memory moves when it
 * grows) is copied.
 */
function ownBuffer(out: Uint8Array): Buffer {
  const alone = out.byteOffset === 0 && out.buffer.byteLength === out.length && !(out.buffer instanceof SharedArrayBuffer);
  return alone ? Buffer.from(out.buffer, 0, out.length) : Buffer.from(out);
}

/** Encodes a buffer as one zstd frame (used by the sharded-channel test tool). Level 1..22. */
export async function zstdCompress(bytes: Uint8Array, level = 3): Promise<Buffer> {
  const { binding } = await loadBinding();
  const stream = new binding.ZstdCompressStreamBinding();
  const chunks: Buffer[] = [];
  const callback = (out: Uint8Array): void => {
    chunks.push(ownBuffer(out));
  };
  try {
    let ok = stream.begin(level);
    for (let at = 0; ok && at < bytes.length; at += CHUNK) ok = stream.transform(bytes.subarray(at, at + CHUNK), callback);
    if (!ok || !stream.end(callback)) throw new ZstdDataError('Cannot compress data with zstd: the encoder failed', 0);
  } finally {
    stream.delete();
  }
  return Buffer.concat(chunks);
}
