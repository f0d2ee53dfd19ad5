/**
 * The PyPI side of a resolve, in one module that `src/resolve.ts` imports only for a request with
 * PyPI requirements: the index client pulls in the HTTP stack, which a conda-only run never loads.
 */
import { PypiIndexClient } from '../../repodata/pypi/client.js';
import { defaultCacheDir } from '../../repodata/cache-dir.js';
import { PypiDataStore } from './data.js';
import type { PreparedPypi } from './request.js';

export { PypiDataStore } from './data.js';
export { condaPypiMapping } from './mapping.js';
export { pypiRequirementsOn } from './request.js';
export { prefetchPypi, solvePlatformMixed } from './solve-platform.js';
export { normalizePypiName } from '../../vocabulary/pypi/name.js';

export function defaultPypiClient(env: Readonly<Record<string, string | undefined>>): (pypi: PreparedPypi) => PypiIndexClient {
  return (pypi) =>
    new PypiIndexClient({
      indexUrl: pypi.indexUrl,
      extraIndexUrls: pypi.extraIndexUrls,
      findLinks: pypi.findLinks,
      strategy: pypi.indexStrategy,
      cacheDir: defaultCacheDir(env),
    });
}

/** The data store a resolve's platforms share, over `client`. */
export function pypiDataStore(client: PypiIndexClient): PypiDataStore {
  return new PypiDataStore(client);
}
