/**
 * The server's network from the one configuration file its operator names (`serve --condarc FILE`
 * or CONDA_RESOLVE_CONDARC): proxies (`proxy_servers`, and the proxy variables of the server's
 * environment), TLS, timeouts, retries and mirrors. Nothing else of the file applies: the channel
 * allowlist stays the authority on which channels are fetched, and every URL (a mirror's too) still
 * passes the channel policy before it is requested, whether a proxy carries it or not. Stored
 * credentials are read only from files the server's environment names (`RATTLER_AUTH_FILE`,
 * `NETRC`), never from the home directory's defaults, and are sent only to URLs the policy allowed.
 */
import type { Dispatcher } from 'undici';
import { createNetworkDispatcher, TlsFileError, type DispatcherSettings } from '../../repodata/net/dispatcher.js';
import { NetworkPolicy } from '../../repodata/net/network.js';
import { ConfigFileError } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { loadCredentials, networkSettings } from '../config/network.js';

export function serverNetwork(
  condarc: string,
  env: Readonly<Record<string, string | undefined>>,
  lookup: DispatcherSettings['lookup'],
): { dispatcher: Dispatcher; network: NetworkPolicy } {
  const config = loadConfig({ env, files: [condarc], ignoreEnvironment: true });
  const settings = networkSettings(config, {
    ...env,
    RATTLER_AUTH_FILE: undefined,
    NETRC: undefined,
    HOME: undefined,
    USERPROFILE: undefined,
  });
  const credentials = loadCredentials({ RATTLER_AUTH_FILE: env.RATTLER_AUTH_FILE, NETRC: env.NETRC });
  let dispatcher: Dispatcher;
  try {
    dispatcher = createNetworkDispatcher({ ...settings.dispatcher, lookup });
  } catch (error) {
    if (error instanceof TlsFileError) throw new ConfigFileError(error.path, error.message);
    throw error;
  }
  return { dispatcher, network: new NetworkPolicy({ ...settings.network, credentials }) };
}
