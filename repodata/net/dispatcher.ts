/**
 * The HTTP client of a store, from the user's network settings: proxies (undici's
 * `EnvHttpProxyAgent`, given the values explicitly so it never reads `process.env` behind our
 * back), TLS verification (off, or a CA bundle added to Node's roots), a client certificate, and
 * the connect and read timeouts.
 *
 * undici (and node:tls) are loaded on the first request, not when the dispatcher is made: a run
 * answered from a fresh cache sends none, and loading undici costs about as much as the rest of
 * such a run.
 */
import { EventEmitter } from 'node:events';
import { accessSync, constants, readFileSync } from 'node:fs';
import type { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import type { ProxySettings } from './proxy.js';

export interface TlsSettings {
  /** False turns verification off (`ssl_verify: false`). */
  readonly verify: boolean;
  /** A PEM bundle of extra trusted CAs (`ssl_verify: <path>`, `REQUESTS_CA_BUNDLE`, `SSL_CERT_FILE`). */
  readonly caFile?: string | undefined;
  /** `client_ssl_cert` (PEM, may hold the key too) and `client_ssl_cert_key`. */
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

export interface DispatcherSettings {
  readonly proxy?: ProxySettings;
  readonly tls?: TlsSettings;
  readonly connectTimeoutMs?: number;
  readonly readTimeoutMs?: number;
  /** Connections per origin; default 16 (the simple-index client asks for more: one host serves every project page). */
  readonly connections?: number;
  /** A host name resolver (the server's private-address guard). */
  readonly lookup?: NonNullable<Agent.Options['connect']> extends infer C ? (C extends { lookup?: infer L } ? L : never) : never;
}

/** A file the TLS settings name could not be read. */
export class TlsFileError extends Error {
  readonly path: string;
  constructor(path: string, what: string, cause: unknown) {
    super(`Cannot read the ${what} "${path}": ${(cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'unreadable'}`, {
      cause,
    });
    this.path = path;
  }
}

function read(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (cause) {
    throw new TlsFileError(path, what, cause);
  }
}

/** The files TLS settings may name, with what each is (for errors). */
const TLS_FILES = { caFile: 'CA bundle', certFile: 'client certificate', keyFile: 'client certificate key' } as const;
type TlsFileField = keyof typeof TLS_FILES;

/** The contents of the file `field` of `tls` names, if it names one. */
function readTlsFile(tls: TlsSettings, field: TlsFileField): Buffer | undefined {
  const path = tls[field];
  return path === undefined ? undefined : read(path, TLS_FILES[field]);
}

/** The options of a TLS connection (to a channel, or to an https proxy), read when the agent is made. */
function tlsOptions(tls: TlsSettings | undefined): Record<string, unknown> {
  if (tls === undefined) return {};
  const out: Record<string, unknown> = {};
  if (!tls.verify) out.rejectUnauthorized = false;
  // Added to Node's roots in createAgent.
  const ca = readTlsFile(tls, 'caFile');
  if (ca !== undefined) out.ca = ca.toString('utf8');
  const cert = readTlsFile(tls, 'certFile');
  if (cert !== undefined) out.cert = cert;
  // A PEM file may hold the certificate and its key.
  const key = readTlsFile(tls, 'keyFile') ?? cert;
  if (key !== undefined) out.key = key;
  return out;
}

/** The undici agent of the settings; the TLS files are read before (see `createNetworkDispatcher`). */
async function createAgent(settings: DispatcherSettings, read: Record<string, unknown>): Promise<Dispatcher> {
  // A CA bundle adds to Node's roots (requests replaces them; a corporate bundle usually holds both).
  const tls = typeof read.ca === 'string' ? { ...read, ca: [...(await import('node:tls')).rootCertificates, read.ca] } : read;
  const connect = { timeout: settings.connectTimeoutMs ?? 15_000, ...tls, ...(settings.lookup ? { lookup: settings.lookup } : {}) };
  const common = {
    connections: settings.connections ?? 16,
    headersTimeout: settings.readTimeoutMs ?? 60_000,
    bodyTimeout: settings.readTimeoutMs ?? 60_000,
    connect,
  };
  const proxy = settings.proxy;
  const undici = await import('undici');
  if (proxy?.http === undefined && proxy?.https === undefined) return new undici.Agent(common);
  return new undici.EnvHttpProxyAgent({
    ...common,
    // Empty strings, not undefined: undefined would make undici read process.env itself.
    httpProxy: proxy.http ?? '',
    httpsProxy: proxy.https ?? '',
    noProxy: proxy.noProxy ?? '',
    // http:// targets go as absolute-form requests (as requests and curl send them); https ones
    // through a CONNECT tunnel, verified end to end with the same TLS settings.
    proxyTunnel: false,
    requestTls: tls,
    proxyTls: tls,
  } as EnvHttpProxyAgent.Options);
}

/** A controller for a handler whose request never started (undici could not be loaded). */
const NOT_STARTED: Dispatcher.DispatchController = {
  aborted: true,
  paused: false,
  reason: null,
  abort() {},
  pause() {},
  resume() {},
};

/**
 * A dispatcher that makes its undici agent on the first `dispatch`. Only `dispatch`, `close` and
 * `destroy` are offered (what `http-response.ts` and the stores call); the agent's handler
 * callbacks are asynchronous anyway, so starting them one module load later changes nothing.
 */
class LazyDispatcher extends EventEmitter {
  readonly #make: () => Promise<Dispatcher>;
  #agent: Promise<Dispatcher> | undefined;
  #closed = false;

  constructor(make: () => Promise<Dispatcher>) {
    super();
    this.#make = make;
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.#closed) throw new Error('the HTTP client is closed');
    const fail = (error: unknown): void => {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (handler.onResponseError) handler.onResponseError(NOT_STARTED, failure);
      else handler.onError?.(failure);
    };
    this.#agent ??= this.#make();
    this.#agent.then((agent) => {
      try {
        agent.dispatch(options, handler);
      } catch (error) {
        fail(error);
      }
    }, fail);
    return true;
  }

  /** The agent if one was made (a failed load leaves nothing to close). */
  async #made(): Promise<Dispatcher | undefined> {
    return this.#agent?.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await (await this.#made())?.close();
  }

  async destroy(error?: Error | null): Promise<void> {
    this.#closed = true;
    await (await this.#made())?.destroy(error ?? null);
  }
}

/**
 * The HTTP client of the settings. The TLS files are checked here, so a missing or unreadable one
 * is a `TlsFileError` now, not at the first request; they are read, and undici loaded, at the
 * first request (a CA bundle is often a 200 kB file a run answered from the cache never needs).
 */
export function createNetworkDispatcher(settings: DispatcherSettings): Dispatcher {
  for (const field of Object.keys(TLS_FILES) as TlsFileField[]) {
    const path = settings.tls?.[field];
    if (path === undefined) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (cause) {
      throw new TlsFileError(path, TLS_FILES[field], cause);
    }
  }
  // Typed as undici's Dispatcher for the callers, which use only the three methods it has.
  return new LazyDispatcher(async () => createAgent(settings, tlsOptions(settings.tls))) as unknown as Dispatcher;
}
