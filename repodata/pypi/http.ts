/**
 * The client's HTTP: repodata's GET (`fetch.ts`: redirects checked by the URL policy, credentials
 * kept out of shown URLs, the network policy's mirrors, stored credentials and retries, time and
 * rate rules, content decoding) with the simple-index client's errors. A body cut off mid-way is
 * fetched again as a whole, as the repodata fetcher does.
 */
import type { Dispatcher } from 'undici';
import { redactSecrets } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import {
  failForStatus,
  httpGet,
  isInterruptedBody,
  readBodyBytes,
  type DownloadRules,
  type FetchContext,
  type HttpResponse,
  type Validators,
} from '../fetch.js';
import { RepodataFetchError, RepodataTooLargeError } from '../fetch-errors.js';
import type { NetworkPolicy } from '../net/network.js';
import type { CheckUrl } from '../url-policy.js';
import { PypiFetchError, PypiTooLargeError } from './errors.js';

export interface HttpSettings {
  readonly dispatcher: Dispatcher;
  readonly network?: NetworkPolicy | undefined;
  readonly checkUrl?: CheckUrl | undefined;
  readonly rules?: DownloadRules | undefined;
}

export interface Fetched {
  readonly status: number;
  readonly url: string;
  readonly body: Buffer;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly cacheControl: string | null;
  readonly contentType: string | null;
  readonly contentRange: string | null;
}

/** Who asks, for errors: `what` names the thing fetched ("the page of numpy on https://pypi.org/simple"). */
export interface Request {
  readonly project: string;
  readonly what: string;
  readonly signal?: AbortSignal | undefined;
}

function context(settings: HttpSettings, request: Request): FetchContext {
  return {
    channel: request.project,
    subdir: 'pypi',
    dispatcher: settings.dispatcher,
    network: settings.network,
    checkUrl: settings.checkUrl,
    rules: settings.rules,
    signal: request.signal,
  };
}

/** repodata's errors said in the client's words. */
function translate(error: unknown, request: Request, maxBytes: number): unknown {
  if (error instanceof RepodataTooLargeError) {
    return new PypiTooLargeError(`Cannot fetch ${request.what}: it is larger than ${maxBytes} bytes, the limit`, maxBytes, {
      project: request.project,
      url: error.url,
    });
  }
  if (error instanceof RepodataFetchError) {
    return new PypiFetchError(`Cannot fetch ${request.what}: ${error.detail}`, {
      project: request.project,
      url: error.url,
      status: error.status,
      cause: error,
    });
  }
  return error;
}

/**
 * GET `url`; returns the answer whatever its status (200, 206, 304, 404, 410), its body read
 * under `maxBytes`. Other statuses throw `PypiFetchError` (with the credentials hint for 401/403).
 */
export async function fetchBytes(
  settings: HttpSettings,
  url: string,
  request: Request,
  options: { accept?: string; validators?: Validators; headers?: Record<string, string>; maxBytes: number },
): Promise<Fetched> {
  const ctx = context(settings, request);
  for (let tries = 0; ; tries++) {
    try {
      const response: HttpResponse = await httpGet(ctx, url, {
        accept: options.accept,
        validators: options.validators,
        headers: options.headers,
      });
      const head = {
        status: response.status,
        url: response.url,
        etag: response.etag,
        lastModified: response.lastModified,
        cacheControl: response.cacheControl,
        contentType: response.contentType ?? null,
        contentRange: response.contentRange ?? null,
      };
      if (response.status === 304 || response.status === 404 || response.status === 410) {
        await response.body.dump();
        return { ...head, body: Buffer.alloc(0) };
      }
      if (response.status !== 200 && response.status !== 206) await failForStatus(ctx, response);
      return { ...head, body: await readBodyBytes(ctx, response, options.maxBytes) };
    } catch (error) {
      if (isInterruptedBody(error) && (await settings.network?.retryBody(tries, url, (error as Error).message, request.signal))) continue;
      if (error instanceof CondaResolveError && !(error instanceof RepodataFetchError)) throw error;
      throw translate(error, request, options.maxBytes);
    }
  }
}

/** A URL as shown in messages. */
export function shown(url: string): string {
  return redactSecrets(url);
}
