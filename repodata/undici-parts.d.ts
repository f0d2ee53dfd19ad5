/**
 * undici's two dispatchers as their own CommonJS modules (repodata/net/undici-agents.ts loads
 * them without the rest of the package). undici ships types for its index only; these are those
 * classes.
 */
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export = AgentClass;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export = EnvHttpProxyAgentClass;
}
