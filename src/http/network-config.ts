/**
 * The server's network from the one configuration file its operator names (`serve --condarc FILE`
 * or CONDA_RESOLVE_CONDARC): proxies (`proxy_servers`, and the proxy variables of the server's
 * environment), TLS, timeouts, retries and mirrors. Nothing else of the file applies: the channel
 * allowlist stays the authority on which channels are fetched, stored credentials (`.netrc`, the
 * auth file) are not read, and every URL still passes the channel policy before it is requested,
 * whether a proxy carries it or not. Hosts reached directly keep the policy's address guard.
 */
import type { Dispatcher } from 'undici';
import { createNetworkDispatcher, type DispatcherSettings } from '../../repodata/net/dispatcher.js';
import { NetworkPolicy } from '../../repodata/net/network.js';
import { loadConfig } from '../config/load.js';
import { networkSettings } from '../config/network.js';

export function serverNetwork(
  condarc: string,
  env: Readonly<Record<string, string | undefined>>,
  lookup: DispatcherSettings['lookup'],
): { dispatcher: Dispatcher; network: NetworkPolicy } {
  const config = loadConfig({ env, files: [condarc], ignoreEnvironment: true });
  const settings = networkSettings(config, env);
  return {
    dispatcher: createNetworkDispatcher({ ...settings.dispatcher, lookup }),
    network: new NetworkPolicy({ ...settings.network, credentials: undefined }),
  };
}
