/**
 * The default conda-forge mapping, fetched at run time as pixi does: prefix-dev/parselmouth
 * publishes conda-forge's conda name -> PyPI name (or null) table as one JSON file
 * (DEFAULT_PYPI_MAPPING_URL, the URL pixi's `conda-pypi-map` default reads). It is fetched through
 * repodata's HTTP stack (proxies, TLS, credentials, retries, redaction) and kept under
 * `<cache-dir>/pypi-mapping/` (`<url digest>.json` and its `.state.json`), revalidated with its
 * ETag once a day. Offline, only the cached copy is used; when the network fails, a cached copy
 * (however old) is. When no copy can be had the caller is told why, never thrown at.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { freshnessMs, isPypiMappingCacheFile, makeCacheFolder, writeThroughTemp } from '../../repodata/cache.js';
import type { NetworkPolicy } from '../../repodata/net/network.js';
import { fetchBytes, shown } from '../../repodata/pypi/http.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { parseMappingFile } from './index.js';

/** parselmouth's compressed conda-forge mapping, as pixi fetches it (prefix-dev/pixi, pypi mapping). */
export const DEFAULT_PYPI_MAPPING_URL = 'https://raw.githubusercontent.com/prefix-dev/parselmouth/main/files/compressed_mapping.json';
/** The variable that replaces the URL (for a mirror, or a test server). */
export const PYPI_MAPPING_URL_ENV = 'CONDA_RESOLVE_PYPI_MAPPING_URL';

/** A day: parselmouth's data changes about daily; the server's Cache-Control wins when it sends one. */
const TTL_SECONDS = 24 * 60 * 60;
/** The published file is some megabytes; this bounds a wrong URL's answer. */
const MAX_BYTES = 256 * 1024 * 1024;

export interface RemoteMappingOptions {
  readonly url: string;
  readonly cacheDir: string;
  readonly offline: boolean;
  readonly dispatcher?: Dispatcher | undefined;
  readonly network?: NetworkPolicy | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly now?: () => number;
}

export type RemoteMapping =
  | {
      readonly ok: true;
      readonly table: ReadonlyMap<string, readonly string[]>;
      readonly source: string;
      readonly date: string;
      readonly warning?: string;
    }
  | { readonly ok: false; readonly reason: string };

interface State {
  readonly url: string;
  readonly fetchedAt: number;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly cacheControl: string | null;
}

function digest(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

async function readCached(dir: string, key: string): Promise<{ state: State; text: string } | null> {
  try {
    const state = JSON.parse(await readFile(join(dir, `${key}.state.json`), 'utf8')) as State;
    const text = await readFile(join(dir, `${key}.json`), 'utf8');
    return { state, text };
  } catch {
    return null;
  }
}

function parsed(url: string, text: string, fetchedAt: number, warning?: string): RemoteMapping {
  try {
    const table = parseMappingFile(shown(url), text);
    return { ok: true, table, source: shown(url), date: new Date(fetchedAt).toISOString(), ...(warning ? { warning } : {}) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The mapping at `options.url`, from the cache or the network; `ok: false` says why there is none. */
export async function loadRemoteMapping(options: RemoteMappingOptions): Promise<RemoteMapping> {
  const { url } = options;
  const now = (options.now ?? Date.now)();
  const dir = join(options.cacheDir, 'pypi-mapping');
  const key = digest(url);
  const cached = await readCached(dir, key);
  if (options.offline) {
    return cached
      ? parsed(url, cached.text, cached.state.fetchedAt)
      : { ok: false, reason: `offline, and the cache has no copy of the conda-forge PyPI mapping (${shown(url)})` };
  }
  if (cached && now >= cached.state.fetchedAt && now - cached.state.fetchedAt < freshnessMs(cached.state.cacheControl, TTL_SECONDS)) {
    return parsed(url, cached.text, cached.state.fetchedAt);
  }
  if (!options.dispatcher) return { ok: false, reason: `no network client to fetch the conda-forge PyPI mapping (${shown(url)})` };
  let fetched;
  try {
    fetched = await fetchBytes(
      { dispatcher: options.dispatcher, network: options.network },
      url,
      { project: 'conda-forge', what: 'the conda-forge PyPI mapping', signal: options.signal },
      {
        accept: 'application/json',
        validators: cached ? { etag: cached.state.etag, lastModified: cached.state.lastModified } : undefined,
        maxBytes: MAX_BYTES,
      },
    );
  } catch (error) {
    if (!(error instanceof CondaResolveError)) throw error;
    if (cached)
      return parsed(
        url,
        cached.text,
        cached.state.fetchedAt,
        `${error.message}; using the copy cached on ${new Date(cached.state.fetchedAt).toISOString()}`,
      );
    return { ok: false, reason: error.message };
  }
  if (fetched.status === 304 && cached) {
    const state: State = { ...cached.state, fetchedAt: now, cacheControl: fetched.cacheControl ?? cached.state.cacheControl };
    await store(dir, key, state, null);
    return parsed(url, cached.text, now);
  }
  if (fetched.status !== 200)
    return { ok: false, reason: `Cannot fetch the conda-forge PyPI mapping: ${shown(url)} answered HTTP ${fetched.status}` };
  const text = fetched.body.toString('utf8');
  const result = parsed(url, text, now);
  if (result.ok)
    await store(
      dir,
      key,
      { url: shown(url), fetchedAt: now, etag: fetched.etag, lastModified: fetched.lastModified, cacheControl: fetched.cacheControl },
      text,
    );
  return result;
}

/** Best effort: a cache that cannot be written costs the next run a download, nothing more. */
async function store(dir: string, key: string, state: State, text: string | null): Promise<void> {
  try {
    await makeCacheFolder(dir, isPypiMappingCacheFile);
    if (text !== null) await writeThroughTemp(join(dir, `${key}.json`), (handle) => handle.writeFile(text));
    await writeThroughTemp(join(dir, `${key}.state.json`), (handle) => handle.writeFile(JSON.stringify(state)));
  } catch {
    // left uncached
  }
}
