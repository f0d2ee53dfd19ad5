/**
 * HTTP for repodata over undici: one GET with conditional headers, redirects followed here (so the
 * `checkUrl` policy sees every hop), and bodies streamed through a decoder (gzip/br/deflate, or zstd for
 * `.zst`) into a sink. A `/t/<token>/` segment stays in the path (anaconda.org reads it there);
 * `user:password@` becomes an `Authorization` header dropped when a redirect leaves the origin, as curl
 * does. Every URL put in an error goes through `redactSecrets`.
 */
import { createHash, type Hash } from 'node:crypto';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';
import { redactSecrets } from '../vocabulary/channel.js';
import { CondaResolveError } from '../vocabulary/errors.js';
import {
  RepodataCorruptError,
  RepodataDecodingBudgetError,
  RepodataFetchError,
  RepodataTimeoutError,
  RepodataTooLargeError,
} from './fetch-errors.js';
import { exchange, type BodyTimeRules, type ExchangeHead, type ResponseBody } from './http-response.js';
import { checkUrlAllowed, type CheckUrl } from './url-policy.js';
import type { NetworkPolicy } from './net/network.js';
import type { DecodedBytesMeter } from './decoding-budget.js';
import { createZstdDecoder, ZstdDataError, type ZstdStreamDecoder } from './zstd.js';

export { checkUrlAllowed, type CheckUrl } from './url-policy.js';

/** Who a request is for: names the channel and subdir in errors, carries the shared settings. */
export interface FetchContext {
  /** The channel's display name. */
  readonly channel: string;
  readonly subdir: string;
  readonly dispatcher: Dispatcher;
  readonly checkUrl?: CheckUrl | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Time and rate rules of each download; `DEFAULT_DOWNLOAD_RULES` where unset. */
  readonly rules?: DownloadRules | undefined;
  /** Mirrors, stored credentials and retries (`net/network.ts`); none when unset. */
  readonly network?: NetworkPolicy | undefined;
  /** Told each body's decoded bytes, and given them back when it ends: the waiting requests' budgets. */
  readonly meter?: DecodedBytesMeter | undefined;
}

export interface Validators {
  readonly etag?: string | null;
  readonly lastModified?: string | null;
}

export interface HttpHead {
  readonly status: number;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly cacheControl: string | null;
  readonly contentLength: number | null;
  readonly contentEncoding: string | null;
  readonly retryAfter: string | null;
  /** Whether the request carried credentials (an Authorization header or a `/t/<token>/` segment). */
  readonly credentialsSent: boolean;
  /** The URL that answered (after redirects), with credentials: never print it. */
  readonly url: string;
  /** `Content-Type` and `Content-Range` (the simple-index client negotiates formats and reads byte ranges). */
  readonly contentType?: string | null;
  readonly contentRange?: string | null;
}

export interface HttpResponse extends HttpHead {
  readonly body: ResponseBody;
}

/** Time rules of one download (see `http-response.ts`); the defaults suit repodata on slow links. */
export interface DownloadRules {
  /** From the headers to the last byte; default 10 minutes. */
  readonly maxBodySeconds?: number;
  /** The minimum rate: at least `minBytesPerWindow` in every `rateWindowSeconds`; default 1 KiB in 30 s. */
  readonly minBytesPerWindow?: number;
  readonly rateWindowSeconds?: number;
  /**
   * The global decoding budget: decoded bytes of every body being read at once in this process.
   * A body that takes it past this stops (`RepodataDecodingBudgetError`), so many subdirs of a
   * hostile channel decoding at once cannot fill the disk with temp files; default no limit.
   */
  readonly maxDecodingBytes?: number;
}

/** Decoded bytes of the bodies being read now, against `DownloadRules.maxDecodingBytes`. */
let decodingNow = 0;

const MAX_REDIRECTS = 10;
const USER_AGENT = 'conda-resolve (repodata fetcher; +https://github.com/conda/conda)';
export const DEFAULT_DOWNLOAD_RULES: Required<DownloadRules> = {
  maxBodySeconds: 600,
  minBytesPerWindow: 1024,
  rateWindowSeconds: 30,
  maxDecodingBytes: Number.POSITIVE_INFINITY,
};

/** A keep-alive agent with timeouts suited to repodata (a stalled server fails in a minute, not five). */
export function createDefaultDispatcher(): Agent {
  return new Agent({ connections: 16, headersTimeout: 60_000, bodyTimeout: 60_000, connect: { timeout: 15_000 } });
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Move `user:password@` into a header; the token segment stays in the path. */
function splitUserInfo(url: string): { url: string; authorization: string | null; origin: string } {
  const parsed = new URL(url);
  let authorization: string | null = null;
  if (parsed.username !== '' || parsed.password !== '') {
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  return { url: parsed.href, authorization, origin: parsed.origin };
}

function describeNetworkError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the connection timed out';
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'the server sent no answer in time';
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the server stopped sending data';
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    default:
      return typeof code === 'string' ? `${message} (${code})` : message;
  }
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (error as { name?: unknown })?.name === 'AbortError';
}

function bodyRules(context: FetchContext, url: string): BodyTimeRules {
  const rules = { ...DEFAULT_DOWNLOAD_RULES, ...context.rules };
  return {
    maxMs: rules.maxBodySeconds * 1000,
    minBytes: rules.minBytesPerWindow,
    windowMs: rules.rateWindowSeconds * 1000,
    onBroken: (what, received) =>
      new RepodataTimeoutError(
        context.channel,
        context.subdir,
        what === 'total'
          ? `the download took longer than ${rules.maxBodySeconds} s (${received} bytes received)`
          : `the server sent fewer than ${rules.minBytesPerWindow} bytes in ${rules.rateWindowSeconds} s (${received} bytes received in all)`,
        { url },
      ),
  };
}

export interface GetOptions {
  readonly validators?: Validators;
  readonly accept?: string;
  /** Extra request headers (`range`, `accept-encoding`), sent to every hop. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * GET `url` (which may carry credentials), following redirects. Returns the response of the last
 * hop whatever its status; the caller reads or dumps the body.
 */
export async function httpGet(context: FetchContext, url: string, options: GetOptions = {}): Promise<HttpResponse> {
  if (context.network === undefined) return httpGetOnce(context, url, options);
  return context.network.get(url, context.signal, (target, authorization) => httpGetOnce(context, target, { ...options, authorization }));
}

/** One GET without mirrors or retries; `authorization` is used when the URL carries no `user:password@`. */
async function httpGetOnce(
  context: FetchContext,
  url: string,
  options: GetOptions & { authorization?: string | undefined },
): Promise<HttpResponse> {
  const first = splitUserInfo(url);
  const authorization = first.authorization ?? options.authorization ?? null;
  let current = first.url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    await checkUrlAllowed(context, current);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: options.accept ?? '*/*' };
    // Only plain JSON is worth HTTP compression; zstd and msgpack.zst are already compressed.
    headers['accept-encoding'] = current.endsWith('.json') ? 'gzip, br' : 'identity';
    Object.assign(headers, options.headers);
    if (authorization && new URL(current).origin === first.origin) headers.authorization = authorization;
    if (options.validators?.etag) headers['if-none-match'] = options.validators.etag;
    if (options.validators?.lastModified) headers['if-modified-since'] = options.validators.lastModified;
    let response: ExchangeHead;
    try {
      response = await exchange(context.dispatcher, {
        url: new URL(current),
        headers,
        signal: context.signal,
        bodyRules: bodyRules(context, current),
      });
    } catch (error) {
      if (isAbort(error, context.signal)) throw context.signal?.reason ?? error;
      throw new RepodataFetchError(context.channel, context.subdir, describeNetworkError(error), { url: current, cause: error });
    }
    const status = response.status;
    const location = headerValue(response.headers, 'location');
    if (status >= 300 && status < 400 && status !== 304 && location) {
      await response.body.dump();
      let next: URL;
      try {
        next = new URL(location, current);
      } catch (cause) {
        throw new RepodataFetchError(
          context.channel,
          context.subdir,
          `the server redirected to an invalid URL ${JSON.stringify(redactSecrets(location))}`,
          { url: current, cause },
        );
      }
      if (next.protocol !== 'https:' && next.protocol !== 'http:') {
        throw new RepodataFetchError(
          context.channel,
          context.subdir,
          `the server redirected to an unsupported URL scheme "${next.protocol}"`,
          { url: current },
        );
      }
      current = next.href;
      continue;
    }
    const contentLength = headerValue(response.headers, 'content-length');
    return {
      status,
      etag: headerValue(response.headers, 'etag'),
      lastModified: headerValue(response.headers, 'last-modified'),
      cacheControl: headerValue(response.headers, 'cache-control'),
      contentLength: contentLength !== null && /^\d+$/.test(contentLength) ? Number(contentLength) : null,
      contentEncoding: headerValue(response.headers, 'content-encoding')?.trim().toLowerCase() || null,
      retryAfter: headerValue(response.headers, 'retry-after'),
      credentialsSent: Boolean(headers.authorization) || /\/t\/[^/]+\//.test(new URL(current).pathname),
      url: current,
      contentType: headerValue(response.headers, 'content-type'),
      contentRange: headerValue(response.headers, 'content-range'),
      body: response.body,
    };
  }
  throw new RepodataFetchError(context.channel, context.subdir, `more than ${MAX_REDIRECTS} redirects`, { url });
}

/** An HTTP status as a short phrase for messages. */
export function describeStatus(status: number): string {
  const phrases: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    408: 'Request Timeout',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return `HTTP ${status}${phrases[status] ? ` ${phrases[status]}` : ''}`;
}

/** What a 401 or 403 means for the user: credentials missing (and where to put them) or refused, for which host. */
function credentialsHint(response: HttpResponse): string {
  const host = new URL(response.url).host;
  return response.credentialsSent
    ? `the credentials for ${host} were refused (check the password or token in the channel URL, ~/.netrc or the auth file)`
    : `no credentials were sent for ${host}; add them to ~/.netrc or to the auth file (RATTLER_AUTH_FILE), or put user:password@ or /t/<token>/ in the channel URL`;
}

/** Throw the error for a status that is neither 200 nor 304 (after dumping the body). */
export async function failForStatus(context: FetchContext, response: HttpResponse): Promise<never> {
  await response.body.dump();
  let detail = `the server answered ${describeStatus(response.status)}`;
  if (response.status === 401 || response.status === 403) detail += `: ${credentialsHint(response)}`;
  throw new RepodataFetchError(context.channel, context.subdir, detail, { url: response.url, status: response.status });
}

export type BodyDecoding = 'identity' | 'zstd';

export interface StreamBodyOptions {
  /** `zstd` for `.zst` files; HTTP content-encoding (gzip, br, deflate) is undone first either way. */
  readonly decoding: BodyDecoding;
  /**
   * Called with each decoded chunk; may be async (the next chunk waits). A chunk is valid until
   * the call, and the promise it returns, ends: a zstd body's decoder writes later output over it,
   * so a consumer copies what it keeps.
   */
  readonly onData: (chunk: Buffer) => void | Promise<void>;
  /** Called with the number of bytes received so far (before decoding). */
  readonly onProgress?: ((received: number, total: number | null) => void) | undefined;
  /** Stop with `RepodataTooLargeError` past this many decoded bytes. */
  readonly maxOutputBytes?: number;
  /** What the body is, for the size error ("the repodata", "a shard"). */
  readonly what?: string;
  /** Hash the decoded bytes (default true); false when the consumer hashes them (sha256 is then ''). */
  readonly hash?: boolean;
  /**
   * `onData` is synchronous and does a bounded amount of work per chunk: a body that needs no
   * decoding is then handed to it inside the network's data callback (`ResponseBody.pipeTo`),
   * with no queue and no batch copies. Decoded bodies still go through the iterator.
   */
  readonly synchronous?: boolean;
}

export interface StreamedBody {
  /** Bytes received on the wire. */
  readonly receivedBytes: number;
  /** Bytes after decoding. */
  readonly size: number;
  /** sha256 of the decoded bytes, lowercase hex. */
  readonly sha256: string;
}

/** Longest stretch of decoding, hashing and writing before the event loop gets a turn. */
const TURN_MS = 10;

/**
 * The pieces a gzip, brotli or deflate body is decoded in. zlib's default, 16 kB, cost a 636 MB
 * conda-forge-scale channel ~40,000 trips through the thread pool and the stream machinery: its
 * cold run took 5.3-5.9 s against 2.8-2.9 s with 256 kB pieces (bench/RESULTS.md).
 */
const HTTP_DECODED_PIECE = 256 * 1024;

/**
 * Read a response body through its decoders into `onData`, hashing the decoded bytes. Throws
 * `RepodataFetchError` when the connection drops, `RepodataCorruptError` when the body is cut
 * short of its Content-Length or the zstd data is bad, `RepodataTooLargeError` past the cap.
 * The body is always finished or destroyed when this returns or throws.
 */
export async function streamBody(context: FetchContext, response: HttpResponse, options: StreamBodyOptions): Promise<StreamedBody> {
  const hash: Hash | null = options.hash === false ? null : createHash('sha256');
  let size = 0;
  const max = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;
  const total = response.contentEncoding && response.contentEncoding !== 'identity' ? null : response.contentLength;
  const raw = response.body;
  const tooLarge = (): RepodataTooLargeError =>
    new RepodataTooLargeError(context.channel, context.subdir, max, { url: response.url, what: options.what });
  const budget = context.rules?.maxDecodingBytes ?? DEFAULT_DOWNLOAD_RULES.maxDecodingBytes;
  /** This body's share of `decodingNow`, given back when it ends however it ends. */
  let counted = 0;
  /** The part of it told to `context.meter`. */
  let metered = 0;

  // Count wire bytes as they arrive, before any decoder.
  async function* wire(): AsyncGenerator<Buffer> {
    for await (const chunk of raw) {
      options.onProgress?.(raw.received, total);
      yield chunk;
    }
  }

  let source: AsyncIterable<Buffer> = wire();
  const encoding = response.contentEncoding;
  let httpDecoder: Transform | null = null;
  if (encoding && encoding !== 'identity') {
    const pieces = { chunkSize: HTTP_DECODED_PIECE };
    httpDecoder =
      encoding === 'gzip' || encoding === 'x-gzip'
        ? createGunzip(pieces)
        : encoding === 'br'
          ? createBrotliDecompress(pieces)
          : encoding === 'deflate'
            ? createInflate(pieces)
            : null;
    if (!httpDecoder) {
      raw.destroy();
      throw new RepodataFetchError(context.channel, context.subdir, `the server used an unsupported content encoding "${encoding}"`, {
        url: response.url,
      });
    }
    // zlib emits pieces of `HTTP_DECODED_PIECE` and waits for each to be read: a gzip bomb never
    // expands at once. `pipeline`, not `pipe`: a connection cut mid-body reaches the loop below
    // through the decoder (with `pipe` it was an unhandled 'error' event that ended the process).
    pipeline(Readable.from(wire()), httpDecoder, () => undefined);
    source = httpDecoder;
  }

  // What our own code threw (the decoder, the consumer), as against the connection: a bug there
  // is not reported as a dropped connection, nor retried as one.
  let ownError: unknown;
  const own = (error: unknown): never => {
    ownError = error;
    throw error;
  };
  // Each decoded chunk: counted against the cap, hashed, handed over.
  const take = (chunk: Buffer): Promise<void> | void => {
    size += chunk.length;
    if (size > max) throw tooLarge();
    decodingNow += chunk.length;
    counted += chunk.length;
    if (decodingNow > budget) throw new RepodataDecodingBudgetError(context.channel, context.subdir, budget, { url: response.url });
    // The waiting requests' own budgets: one this passes stops waiting for the load (its signal),
    // and a load nobody waits for any more stops here (the abort below).
    metered += chunk.length;
    context.meter?.add(chunk.length);
    context.signal?.throwIfAborted();
    hash?.update(chunk);
    try {
      const result = options.onData(chunk);
      return result === undefined ? undefined : result.catch(own);
    } catch (error) {
      return own(error);
    }
  };
  // A consumer that buffers (or a network chunk that expands a lot) resolves every write at once,
  // so decoding would go on with only microtasks in between: after ~10 ms of work the event loop
  // gets a turn (other requests, /health) before the next piece.
  let turnAt = performance.now();
  const emit = async (chunk: Buffer): Promise<void> => {
    await take(chunk);
    if (performance.now() - turnAt > TURN_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turnAt = performance.now();
    }
  };

  let pending: Buffer[] = [];
  let decoder: ZstdStreamDecoder | null = null;
  try {
    if (options.synchronous === true && httpDecoder === null && options.decoding === 'identity') {
      await raw.pipeTo((chunk) => {
        options.onProgress?.(raw.received, total);
        return take(chunk);
      });
    } else {
      // Each slice's output is handed on (flush) before the next slice is pushed.
      decoder =
        options.decoding === 'zstd'
          ? await createZstdDecoder((chunk) => pending.push(chunk), { maxOutputBytes: max, reuseOutput: true })
          : null;
      const flush = async (): Promise<void> => {
        const out = pending;
        pending = [];
        for (const piece of out) await emit(piece);
      };
      for await (const chunk of source) {
        if (decoder) {
          // In the slices the decoder asks for (at most ~4 MB of output each), emitting after each:
          // a bomb's expansion is never held at once, and the event loop turns between slices.
          for (let at = 0; at < chunk.length; ) {
            const slice = chunk.subarray(at, at + decoder.nextSlice);
            try {
              decoder.push(slice);
            } catch (error) {
              own(error);
            }
            at += slice.length;
            await flush();
          }
        } else {
          await emit(chunk);
        }
      }
      if (decoder) {
        const finishing = decoder;
        decoder = null;
        finishing.end();
        await flush();
      }
    }
  } catch (error) {
    decoder?.dispose();
    raw.destroy();
    httpDecoder?.destroy();
    if (isAbort(error, context.signal)) throw context.signal?.reason ?? error;
    if (error instanceof ZstdDataError) {
      if (error.tooLarge) throw tooLarge();
      throw new RepodataCorruptError(
        context.channel,
        context.subdir,
        `${error.message.replace(/^Cannot decompress zstd data: /, 'bad zstd data: ')}`,
        {
          url: response.url,
          cause: error,
        },
      );
    }
    if (error instanceof CondaResolveError) throw error;
    if (error === ownError) throw error;
    const code = (error as { code?: unknown })?.code;
    if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__ERROR_FORMAT'))) {
      throw new RepodataCorruptError(context.channel, context.subdir, `bad ${encoding} data from the server after ${raw.received} bytes`, {
        url: response.url,
        cause: error,
      });
    }
    const of = total !== null ? ` of ${total}` : '';
    throw interrupted(
      new RepodataFetchError(
        context.channel,
        context.subdir,
        `the connection closed after ${raw.received}${of} bytes: ${describeNetworkError(error)}`,
        {
          url: response.url,
          cause: error,
        },
      ),
    );
  } finally {
    decodingNow -= counted;
    context.meter?.release(metered);
    metered = 0;
    counted = 0;
  }
  if (total !== null && raw.received !== total) {
    throw interrupted(
      new RepodataCorruptError(context.channel, context.subdir, `the body has ${raw.received} bytes but the server announced ${total}`, {
        url: response.url,
      }),
    );
  }
  return { receivedBytes: raw.received, size, sha256: hash?.digest('hex') ?? '' };
}

const INTERRUPTED = new WeakSet<Error>();

function interrupted<E extends Error>(error: E): E {
  INTERRUPTED.add(error);
  return error;
}

/** Whether a download failed because its body was cut off (worth asking again from the start). */
export function isInterruptedBody(error: unknown): boolean {
  return error instanceof Error && INTERRUPTED.has(error);
}

/** Read a small body (a shard, a shard index) whole, without decoding zstd. */
export async function readBodyBytes(context: FetchContext, response: HttpResponse, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await streamBody(context, response, {
    decoding: 'identity',
    maxOutputBytes: maxBytes,
    onData: (chunk) => {
      chunks.push(chunk);
    },
  });
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}
