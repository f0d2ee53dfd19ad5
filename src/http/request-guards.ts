/**
 * Guards against requests a browser sends on another site's behalf, and bodies a route cannot read.
 *
 * - A "simple" cross-origin POST (a safelisted media type such as `text/plain`, or no body) is sent
 *   by a browser without a CORS preflight (Fetch standard, "CORS-safelisted request-header"): any
 *   page could make a visitor's browser post to a service on their network. Such a POST from an
 *   origin that is neither this server's nor one `--cors-origin` allows is refused (403); a JSON
 *   body forces the preflight, which CORS answers.
 * - `/mcp` checks `Origin` on every request, as the MCP specification's Streamable HTTP transport
 *   requires ("Servers MUST validate the Origin header ... to prevent DNS rebinding attacks"), and,
 *   when the server listens on a loopback address, that `Host` names a loopback address (or the host
 *   of a `--cors-origin`): a rebound DNS name reaches 127.0.0.1 with the attacker's name in `Host`
 *   (and `Origin`). Behind a reverse proxy (`--trust-proxy`) the proxy decides which names reach it.
 * - Routes that read only JSON answer any other media type with a 415 naming the accepted ones,
 *   before the body is read (fastify's own `text/plain` parser would hand them a string); and
 *   `wantsText` reads whether `Accept` prefers a route's text answer to its JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerConfig } from './config.js';
import { HttpProblemError } from './problem.js';
import { JSON_MEDIA_TYPE } from './schemas.js';

/** Media types a browser may POST cross-origin without a preflight (Fetch standard). */
const SAFELISTED_MEDIA_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/** The request's media type, lower case, without parameters; '' when there is none. */
export function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** In a route scope: POSTs whose body is not JSON get a 415 naming `application/json`. */
export function acceptOnlyJson(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return;
    const type = mediaTypeOf(request);
    if (type === JSON_MEDIA_TYPE) return;
    throw new HttpProblemError(
      'unsupported-media-type',
      `Cannot read the request body: ${request.routeOptions.url ?? 'this endpoint'} takes ${JSON_MEDIA_TYPE}, not ${type === '' ? 'a body without a Content-Type' : type}`,
      { supported_media_types: [JSON_MEDIA_TYPE] },
    );
  });
}

function hostnameOf(host: string): string {
  // `[::1]:8000` -> `::1`; `localhost:8000` -> `localhost`.
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, '').toLowerCase();
}

export function isLoopbackHost(host: string): boolean {
  const name = hostnameOf(host);
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Whether `origin` may send this request: this server's own origin, or one CORS allows. */
function originAllowed(origin: string, request: FastifyRequest, config: ServerConfig): boolean {
  if (config.corsOrigins.includes('*') || config.corsOrigins.includes(origin)) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false; // `null` (a sandboxed frame, a file) or not a URL
  }
  return host !== '' && host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
}

/** On the whole app: refuses simple cross-origin POSTs (see above). */
export function refuseCrossSiteSimplePosts(app: FastifyInstance, config: ServerConfig): void {
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST' || request.url.startsWith('/mcp')) return;
    const origin = request.headers.origin;
    if (origin === undefined) return;
    const type = mediaTypeOf(request);
    if (type !== '' && !SAFELISTED_MEDIA_TYPES.has(type)) return; // the browser asked CORS first
    if (originAllowed(origin, request, config)) return;
    throw new HttpProblemError(
      'forbidden-origin',
      `Cannot take a ${type || 'body-less'} POST from the web page at ${originLabel(origin)}: send ${JSON_MEDIA_TYPE}, or allow that origin with --cors-origin`,
    );
  });
}

/** In the `/mcp` scope: the MCP transport's Origin (and, on loopback, Host) validation. */
export function validateMcpOrigin(scope: FastifyInstance, config: ServerConfig): void {
  // Behind a reverse proxy (--trust-proxy) the public name arrives in Host: the proxy decides.
  const checkHost = isLoopbackHost(config.host) && !config.trustProxy;
  // Hosts of the origins CORS allows are names this server is reached by, too.
  const corsHosts = new Set(
    config.corsOrigins.flatMap((origin) => {
      try {
        return [new URL(origin).host.toLowerCase()];
      } catch {
        return [];
      }
    }),
  );
  scope.addHook('onRequest', async (request) => {
    const host = request.headers.host ?? '';
    if (checkHost && !isLoopbackHost(host) && !corsHosts.has(host.toLowerCase())) {
      throw new HttpProblemError(
        'forbidden-origin',
        `Cannot take an MCP request for host "${originLabel(host)}": this server listens on ${config.host} and answers only for loopback names (behind a reverse proxy, use --trust-proxy)`,
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin, request, config)) {
      throw new HttpProblemError(
        'forbidden-origin',
        `Cannot take an MCP request from the web page at ${originLabel(origin)}: allow that origin with --cors-origin`,
      );
    }
  });
}

/** A header value quoted in a message: bounded, control characters escaped. */
function originLabel(value: string): string {
  const short = value.length > 100 ? `${value.slice(0, 100)}...` : value;
  return JSON.stringify(short).slice(1, -1);
}

/**
 * Whether the client asked for text: `text/plain` in Accept with a higher weight than
 * `application/json` (which wins a tie, and when neither is named).
 */
export function wantsText(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part
      .trim()
      .toLowerCase()
      .split(';')
      .map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    return { range, q: q === undefined ? 1 : Number(q.slice(2)) || 0 };
  });
  // The weight of a type is that of the most specific range matching it (RFC 9110 section 12.5.1).
  const weight = (type: string): number => {
    const [main] = type.split('/');
    const match =
      ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${main}/*`) ?? ranges.find((r) => r.range === '*/*');
    return match?.q ?? 0;
  };
  const text = weight('text/plain');
  return text > 0 && text > weight('application/json');
}
