/**
 * The undici classes conda-resolve makes, loaded from their own modules. `import('undici')` loads
 * the whole package (fetch, WebSocket, caches, mocks, the global dispatcher): 120-170 ms on this
 * project's machines before the first request, against ~45 ms for the agent and the proxy agent
 * alone (bench/RESULTS.md). Both are CommonJS; their types are undici's own.
 */
import type { Agent, EnvHttpProxyAgent } from 'undici';

export async function loadAgent(): Promise<typeof Agent> {
  return (await import('undici/lib/dispatcher/agent.js')).default;
}

/**
 * Only when a proxy is set. An `https://` channel behind a proxy goes through a CONNECT tunnel,
 * which the proxy agent opens with `Dispatcher.prototype.connect`: undici's index adds its
 * request API (`connect` among it) to that prototype, so without the index it is added here, as
 * the index would (else every HTTPS channel behind a proxy failed with "connect is not a function").
 */
export async function loadProxyAgent(): Promise<typeof EnvHttpProxyAgent> {
  const [agent, dispatcher, connect] = await Promise.all([
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
    import('undici/lib/api/api-connect.js'),
  ]);
  const prototype = dispatcher.default.prototype as { connect?: unknown };
  prototype.connect ??= connect.default;
  return agent.default;
}
