/**
 * Which proxy a request goes through, as curl, requests and conda decide it: `HTTPS_PROXY` /
 * `HTTP_PROXY` / `ALL_PROXY` (lower case first, then upper case, as curl reads them) over the
 * `proxy_servers` of configuration (`http`, `https`, `all` keys), and `NO_PROXY` for hosts reached
 * directly. The environment beats configuration here as it does in conda (requests lets
 * environment proxies win over the session's).
 */
export interface ProxySettings {
  /** Proxy URL for http:// targets, or undefined for none. */
  readonly http?: string | undefined;
  /** Proxy URL for https:// targets, or undefined for none. */
  readonly https?: string | undefined;
  /** Comma-separated hosts (`.example.com`, `*.example.com`, `host:port`, `*`) reached directly. */
  readonly noProxy?: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

function variable(env: Env, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The proxies for this process's environment and the configured `proxy_servers`. */
export function resolveProxies(env: Env, proxyServers: Readonly<Record<string, string>> | undefined = {}): ProxySettings {
  const http = variable(env, 'http_proxy') ?? variable(env, 'all_proxy') ?? proxyServers.http ?? proxyServers.all;
  const https = variable(env, 'https_proxy') ?? variable(env, 'all_proxy') ?? proxyServers.https ?? proxyServers.all;
  return { http: withScheme(http), https: withScheme(https), noProxy: variable(env, 'no_proxy') };
}

/** `proxy.corp:3128` means `http://proxy.corp:3128`, as curl reads it. */
function withScheme(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
}
