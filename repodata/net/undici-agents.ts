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

/** Only when a proxy is set. */
export async function loadProxyAgent(): Promise<typeof EnvHttpProxyAgent> {
  return (await import('undici/lib/dispatcher/env-http-proxy-agent.js')).default;
}
