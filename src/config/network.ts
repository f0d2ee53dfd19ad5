/**
 * The network settings of the effective configuration, with the files they name read: proxies
 * (environment over `proxy_servers`), TLS (`ssl_verify`, `REQUESTS_CA_BUNDLE`, `SSL_CERT_FILE`,
 * `client_ssl_cert[_key]`), timeouts, retries, mirrors, and stored credentials (`RATTLER_AUTH_FILE`
 * or `~/.rattler/credentials.json`, then `$NETRC` or `~/.netrc`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CredentialsFileError, CredentialStore, parseAuthFile, parseNetrc, type Credential } from '../../repodata/net/auth.js';
import type { DispatcherSettings, TlsSettings } from '../../repodata/net/dispatcher.js';
import type { NetworkOptions } from '../../repodata/net/network.js';
import { resolveProxies } from '../../repodata/net/proxy.js';
import { ConfigFileError } from './errors.js';
import type { EffectiveConfig } from './load.js';
import { homeOf, type Env } from './search-path.js';

export interface NetworkSettings {
  readonly dispatcher: DispatcherSettings;
  readonly network: NetworkOptions;
}

function readOptional(path: string, required: boolean): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return null;
    throw new ConfigFileError(
      path,
      `Cannot read credentials file "${path}": ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`,
    );
  }
}

/** The stored credentials this environment points at (both files are optional unless named by a variable). */
export function loadCredentials(env: Env): CredentialStore {
  const home = homeOf(env);
  let authFile: Map<string, Credential> | undefined;
  const authPath = env.RATTLER_AUTH_FILE?.trim() || (home ? join(home, '.rattler', 'credentials.json') : undefined);
  if (authPath) {
    const text = readOptional(authPath, Boolean(env.RATTLER_AUTH_FILE?.trim()));
    if (text !== null) {
      try {
        authFile = parseAuthFile(text, authPath);
      } catch (error) {
        if (error instanceof CredentialsFileError) throw new ConfigFileError(authPath, error.message);
        throw error;
      }
    }
  }
  let netrc: Map<string, Credential> | undefined;
  const netrcPath = env.NETRC?.trim() || (home ? join(home, '.netrc') : undefined);
  if (netrcPath) {
    const text = readOptional(netrcPath, Boolean(env.NETRC?.trim()));
    if (text !== null) netrc = parseNetrc(text);
  }
  return new CredentialStore({ authFile, netrc });
}

export function tlsSettings(config: EffectiveConfig, env: Env): TlsSettings {
  const verify = config.get('ssl_verify') ?? true;
  const path = (v: string | undefined): string | undefined => (v && v.trim() !== '' ? v.trim() : undefined);
  // `truststore` (conda's "use the system store") is what Node does with its own roots.
  const configured = typeof verify === 'string' && verify !== 'truststore' ? verify : undefined;
  return {
    verify: verify !== false,
    caFile: verify === false ? undefined : (configured ?? path(env.REQUESTS_CA_BUNDLE) ?? path(env.SSL_CERT_FILE)),
    certFile: config.get('client_ssl_cert'),
    keyFile: config.get('client_ssl_cert_key'),
  };
}

export function networkSettings(config: EffectiveConfig, env: Env, extra: Pick<NetworkOptions, 'log'> = {}): NetworkSettings {
  return {
    dispatcher: {
      proxy: resolveProxies(env, config.get('proxy_servers')),
      tls: tlsSettings(config, env),
      connectTimeoutMs: (config.get('remote_connect_timeout_secs') ?? 9.15) * 1000,
      readTimeoutMs: (config.get('remote_read_timeout_secs') ?? 60) * 1000,
    },
    network: {
      maxRetries: config.get('remote_max_retries'),
      backoffFactor: config.get('remote_backoff_factor'),
      mirrors: config.get('mirrors'),
      credentials: loadCredentials(env),
      ...extra,
    },
  };
}
