/**
 * `PypiIndexClient`: projects and core metadata from Python package indexes (the simple repository
 * API, PEP 503/691), without a Python interpreter or whole wheels. Pages are cached with their
 * validators; several indexes follow uv's `IndexStrategy`, by default the first index that has a
 * project is the only one used for it (so a public name cannot shadow a private project). Metadata,
 * cheapest first: PEP 658 `.metadata`, the wheel's METADATA through HTTP ranges, the whole wheel under a
 * cap; a dynamic sdist is `PypiNeedsBuildError` (PEP 643). One client serves one resolve.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { removeCredentials } from '../../vocabulary/channel.js';
import { parseCoreMetadata, type CoreMetadata } from '../../vocabulary/pypi/core-metadata.js';
import { parseDistributionFileName, type DistributionFileName } from '../../vocabulary/pypi/distribution-file-name.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { comparePypiVersions, type PypiVersion } from '../../vocabulary/pypi/version.js';
import type { DownloadRules } from '../fetch.js';
import { ConcurrencyLimit, SharedWork } from '../limit.js';
import { createNetworkDispatcher } from '../net/dispatcher.js';
import type { NetworkPolicy } from '../net/network.js';
import type { CheckUrl } from '../url-policy.js';
import {
  PypiCorruptError,
  PypiIndexUrlError,
  PypiNeedsBuildError,
  PypiOfflineError,
  PypiProjectNotFoundError,
  PypiTooLargeError,
} from './errors.js';
import { fetchBytes, type HttpSettings } from './http.js';
import { fileSource, findLinksFiles, folderUrl, isDirectory, localPath, readLocalPage } from './local.js';
import { PypiCache } from './page-cache.js';
import { parseProjectPage, PYPI_ACCEPT } from './pages.js';
import { readTarGzPkgInfo } from './sdist.js';
import type { IndexStrategy, ProjectPage, PypiFile, PypiProject } from './types.js';
import {
  bufferSource,
  readCentralDirectory,
  readZipMember,
  TailCachedSource,
  type ByteSource,
  type ZipEntry,
  type ZipLabel,
} from './zip.js';

import { DEFAULT_INDEX_URL } from './types.js';
export { DEFAULT_INDEX_URL };

export interface PypiIndexClientOptions {
  /** The main index (`index-url`); default PyPI. */
  readonly indexUrl?: string;
  /** Use no index at all, only `findLinks` (pip's `--no-index`, for air-gapped machines). */
  readonly noIndex?: boolean;
  /** More indexes (`extra-index-urls`), consulted after the main one as `strategy` says. */
  readonly extraIndexUrls?: readonly string[];
  /** Local folders of wheels and sdists (paths or `file://` URLs). */
  readonly findLinks?: readonly string[];
  /** Default `first-index`. */
  readonly strategy?: IndexStrategy;
  /** The cache directory (the client writes under `<cacheDir>/pypi/`). */
  readonly cacheDir: string;
  /** Use the cache only; a page or metadata never fetched is `PypiOfflineError`. */
  readonly offline?: boolean;
  /** Revalidate every page once, whatever its Cache-Control. */
  readonly refresh?: boolean;
  /** Freshness of a page whose index sends no `max-age`; default 0 (revalidated on each use: a 304 is cheap). */
  readonly ttlSeconds?: number;
  /** Requests at once over all indexes; default 32. */
  readonly concurrency?: number;
  /** Connections per host of the client's own HTTP agent (when no `dispatcher` is given); default `concurrency`. */
  readonly connections?: number;
  readonly dispatcher?: Dispatcher;
  readonly network?: NetworkPolicy;
  readonly checkUrl?: CheckUrl;
  readonly downloadRules?: DownloadRules;
  /** A project page larger than this is refused; default 64 MiB. */
  readonly maxPageBytes?: number;
  /** METADATA / PKG-INFO larger than this (inflated) is refused; default 8 MiB. */
  readonly maxMetadataBytes?: number;
  /** A whole wheel or sdist downloaded to read its metadata: refused past this; default 100 MiB. */
  readonly maxDownloadBytes?: number;
  readonly now?: () => number;
}

export type MetadataSource = 'cache' | 'metadata-file' | 'range-requests' | 'whole-file' | 'local-file';

export interface PypiMetadata {
  readonly file: PypiFile;
  readonly metadata: CoreMetadata;
  /** The METADATA / PKG-INFO text. */
  readonly text: string;
  /** How it was obtained (the cheapest way the index allowed). */
  readonly source: MetadataSource;
}

interface IndexLocation {
  /** With credentials, ending in `/`. */
  readonly url: string;
  /** Without credentials, for messages and `PypiFile.index`. */
  readonly shown: string;
  readonly local: boolean;
  readonly rank: number;
}

/** The first bytes asked of a wheel: the end record, the central directory and, usually, METADATA. */
const TAIL_BYTES = 64 * 1024;
const MiB = 1024 * 1024;

function indexLocation(url: string, rank: number): IndexLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PypiIndexUrlError(url, 'it is not a URL (an index URL is https://..., http://... or file://...)');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:' && parsed.protocol !== 'file:') {
    throw new PypiIndexUrlError(url, `the scheme "${parsed.protocol}" is not supported (https, http or file)`);
  }
  const href = parsed.href.endsWith('/') ? parsed.href : `${parsed.href}/`;
  return { url: href, shown: removeCredentials(href), local: parsed.protocol === 'file:', rank };
}

function hashMatches(bytes: Uint8Array, hashes: Readonly<Record<string, string>>): { ok: boolean; algorithm: string | null } {
  for (const algorithm of ['sha256', 'sha512', 'sha384', 'sha224', 'sha1', 'md5']) {
    const expected = hashes[algorithm];
    if (expected !== undefined) return { ok: createHash(algorithm).update(bytes).digest('hex') === expected, algorithm };
  }
  return { ok: true, algorithm: null };
}

/** What a listed file is, or undefined for files that are neither a wheel nor an sdist (or are misnamed). */
export function describeFile(file: PypiFile, project: string): DistributionFileName | undefined {
  try {
    return parseDistributionFileName(file.filename, { project });
  } catch {
    return undefined;
  }
}

export class PypiIndexClient {
  readonly indexes: readonly string[];
  readonly strategy: IndexStrategy;
  readonly cache: PypiCache;
  readonly #options: PypiIndexClientOptions;
  readonly #locations: readonly IndexLocation[];
  readonly #findLinks: readonly string[];
  readonly #http: HttpSettings;
  readonly #ownDispatcher: Dispatcher | null;
  readonly #limit: ConcurrencyLimit;
  readonly #pages = new SharedWork<string, ProjectPage | null>();
  readonly #projects = new Map<string, PypiProject>();
  readonly #projectLoads = new SharedWork<string, PypiProject>();
  readonly #metadata = new SharedWork<string, PypiMetadata>();
  readonly #refreshed = new Set<string>();
  readonly #now: () => number;
  readonly #writes = new Set<Promise<void>>();
  #writeError: unknown;
  #closed = false;

  constructor(options: PypiIndexClientOptions) {
    this.#options = options;
    this.strategy = options.strategy ?? 'first-index';
    const urls = options.noIndex ? [] : [options.indexUrl ?? DEFAULT_INDEX_URL, ...(options.extraIndexUrls ?? [])];
    this.#locations = urls.map((url, rank) => indexLocation(url, rank));
    this.indexes = this.#locations.map((location) => location.shown);
    this.#findLinks = (options.findLinks ?? []).map((location) => localPath(location));
    this.cache = new PypiCache(options.cacheDir);
    const concurrency = options.concurrency ?? 32;
    this.#limit = new ConcurrencyLimit(concurrency);
    this.#ownDispatcher = options.dispatcher ? null : createNetworkDispatcher({ connections: options.connections ?? concurrency });
    this.#http = {
      dispatcher: options.dispatcher ?? this.#ownDispatcher!,
      network: options.network,
      checkUrl: options.checkUrl,
      rules: options.downloadRules,
    };
    this.#now = options.now ?? Date.now;
  }

  /**
   * Cache writes run behind the answers (a page is handed out as soon as it is parsed: waiting for
   * four file system calls per page through libuv's four threads cost a walk over 60 projects more
   * than its network time). `flush` waits for them and reports the first that failed.
   */
  #write(task: () => Promise<void>): void {
    const run = task().catch((error: unknown) => {
      this.#writeError ??= error;
    });
    this.#writes.add(run);
    void run.finally(() => this.#writes.delete(run));
  }

  /** Wait for the cache writes started so far; throws the first one that failed (`RepodataCacheError`). */
  async flush(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
    const error = this.#writeError;
    this.#writeError = undefined;
    if (error !== undefined) throw error;
  }

  /**
   * Finish the cache writes, then close the HTTP agent the client made (a dispatcher passed in is the
   * caller's to close). Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#projectLoads.abortAll(new Error('the client was closed'));
    this.#pages.abortAll(new Error('the client was closed'));
    try {
      await this.flush();
    } finally {
      await this.#ownDispatcher?.close();
    }
  }

  /**
   * The files of a project over the indexes and find-links, by the strategy. Throws
   * `PypiProjectNotFoundError` when none has it, and the first index's error when one fails (a
   * failing index is never skipped silently: that is how a private project would be shadowed).
   */
  async getProject(name: string, options: { signal?: AbortSignal } = {}): Promise<PypiProject> {
    const project = normalizePypiName(name);
    const done = this.#projects.get(project);
    if (done !== undefined) return done;
    // Concurrent callers share one load, which stops only when all of them gave up; a failure is
    // not remembered (the next ask tries again).
    const loaded = await this.#projectLoads.run(project, (shared) => this.#loadProject(project, shared), options.signal);
    this.#projects.set(project, loaded);
    return loaded;
  }

  /** Several projects at once (under the concurrency bound); the first failure rejects. */
  async getProjects(names: Iterable<string>, options: { signal?: AbortSignal } = {}): Promise<Map<string, PypiProject>> {
    const list = [...new Set([...names].map((name) => normalizePypiName(name)))];
    const projects = await Promise.all(list.map((name) => this.getProject(name, options)));
    return new Map(list.map((name, i) => [name, projects[i]!]));
  }

  async #loadProject(project: string, signal: AbortSignal | undefined): Promise<PypiProject> {
    const local = (
      await Promise.all(this.#findLinks.map((folder, i) => this.#findLinksFor(folder, project, this.#locations.length + i)))
    ).flat();
    const found: { location: IndexLocation; page: ProjectPage }[] = [];
    if (this.strategy === 'first-index') {
      for (const location of this.#locations) {
        const page = await this.#page(location, project, signal);
        if (page !== null) {
          found.push({ location, page });
          break;
        }
      }
    } else {
      const pages = await Promise.all(this.#locations.map((location) => this.#page(location, project, signal)));
      pages.forEach((page, i) => {
        if (page !== null) found.push({ location: this.#locations[i]!, page });
      });
    }
    if (found.length === 0 && local.length === 0) throw new PypiProjectNotFoundError(project, [...this.indexes, ...this.#findLinks]);
    let files = found.flatMap(({ page }) => page.files);
    if (this.strategy === 'unsafe-best-match') files = this.#firstIndexPerVersion(files, project);
    files = [...files, ...local];
    const versionLists = found.map(({ page }) => page.versions).filter((v): v is readonly string[] => v !== null);
    return {
      name: project,
      files,
      versions: versionLists.length === 0 ? null : [...new Set(versionLists.flat())],
      indexes: [...found.map(({ location }) => location.shown), ...(local.length > 0 ? [...new Set(local.map((f) => f.index))] : [])],
    };
  }

  /** `unsafe-best-match`: a version listed by several indexes keeps only the first index's files. */
  #firstIndexPerVersion(files: readonly PypiFile[], project: string): PypiFile[] {
    const owner: { version: PypiVersion; rank: number }[] = [];
    const out: PypiFile[] = [];
    for (const file of files) {
      const parsed = describeFile(file, project);
      if (parsed === undefined) {
        out.push(file);
        continue;
      }
      const seen = owner.find((o) => comparePypiVersions(o.version, parsed.version) === 0);
      if (seen === undefined) owner.push({ version: parsed.version, rank: file.indexRank });
      if (seen === undefined || seen.rank === file.indexRank) out.push(file);
    }
    return out;
  }

  async #findLinksFor(folder: string, project: string, rank: number): Promise<PypiFile[]> {
    if (!(await isDirectory(folder))) throw new PypiIndexUrlError(folder, 'the find-links folder does not exist');
    return findLinksFiles(folder, project, removeCredentials(folderUrl(folder)), rank);
  }

  /** One index's page of a project, or null when the index does not have it (404, 410). */
  #page(location: IndexLocation, project: string, signal: AbortSignal | undefined): Promise<ProjectPage | null> {
    const url = `${location.url}${project}/`;
    return this.#pages.run(url, (shared) => this.#limit.run(() => this.#loadPage(location, project, url, shared), shared), signal);
  }

  async #loadPage(location: IndexLocation, project: string, url: string, signal: AbortSignal): Promise<ProjectPage | null> {
    const context = { project, index: location.shown, indexRank: location.rank };
    if (location.local) {
      const page = await readLocalPage(location.url, project);
      return page === null ? null : parseProjectPage(page.body, 'text/html', { ...context, url: page.url });
    }
    const cached = await this.cache.readPage(url);
    const fromCache = (): ProjectPage | null =>
      cached!.header.contentType === NOT_FOUND
        ? null
        : parseProjectPage(cached!.body, cached!.header.contentType, { ...context, url: withCredentialsOf(url, cached!.header.pageUrl) });
    if (this.#options.offline) {
      if (cached === null) throw new PypiOfflineError(`the page of ${project} on ${location.shown}`, { project });
      return fromCache();
    }
    const refresh = this.#options.refresh === true && !this.#refreshed.has(url);
    if (cached !== null && !refresh && PypiCache.isFresh(cached.header, this.#options.ttlSeconds ?? 0, this.#now())) return fromCache();
    const answer = await fetchBytes(
      this.#http,
      url,
      { project, what: `the page of ${project} on ${location.shown}`, signal },
      {
        accept: PYPI_ACCEPT,
        headers: { 'accept-encoding': 'gzip, br' },
        validators:
          cached !== null && cached.header.contentType !== NOT_FOUND
            ? { etag: cached.header.etag, lastModified: cached.header.lastModified }
            : undefined,
        maxBytes: this.#options.maxPageBytes ?? 64 * MiB,
      },
    );
    this.#refreshed.add(url);
    const header = { etag: answer.etag, lastModified: answer.lastModified, cacheControl: answer.cacheControl, fetchedAt: this.#now() };
    if (answer.status === 304 && cached !== null) {
      this.#write(() =>
        this.cache.writePage(
          url,
          {
            ...header,
            etag: answer.etag ?? cached.header.etag,
            lastModified: answer.lastModified ?? cached.header.lastModified,
            contentType: cached.header.contentType,
            pageUrl: cached.header.pageUrl,
          },
          cached.body,
        ),
      );
      return fromCache();
    }
    if (answer.status === 404 || answer.status === 410) {
      // Remembered, so `offline` knows this index lacks the project (the first-index strategy moves on).
      this.#write(() => this.cache.writePage(url, { ...header, contentType: NOT_FOUND, pageUrl: removeCredentials(url) }, ''));
      return null;
    }
    const body = answer.body.toString('utf8');
    // Relative links resolve against the URL that answered (after redirects), without its credentials in the cache.
    const page = parseProjectPage(body, answer.contentType, { ...context, url: answer.url });
    this.#write(() =>
      this.cache.writePage(url, { ...header, contentType: answer.contentType, pageUrl: removeCredentials(answer.url) }, body),
    );
    return page;
  }

  /** The core metadata of a file (a wheel, or an sdist with static metadata); see the module header. */
  getMetadata(file: PypiFile, options: { signal?: AbortSignal; project?: string } = {}): Promise<PypiMetadata> {
    const key = PypiCache.metadataKey(file);
    return this.#metadata.run(key, (signal) => this.#loadMetadata(file, key, signal, options.project), options.signal);
  }

  async #loadMetadata(file: PypiFile, key: string, signal: AbortSignal, projectHint: string | undefined): Promise<PypiMetadata> {
    const parsed = parseDistributionFileName(file.filename, projectHint === undefined ? {} : { project: projectHint });
    const project = parsed?.name ?? (projectHint ? normalizePypiName(projectHint) : file.filename);
    const label: ZipLabel = { project, filename: file.filename, url: file.url };
    const version = parsed?.versionText ?? '?';
    const cached = await this.cache.readMetadata(key);
    if (cached !== null) {
      try {
        return this.#finish(file, cached, 'cache', parsed, label, version);
      } catch {
        // A cached copy that no longer parses is fetched again.
      }
    }
    if (parsed === undefined)
      throw new PypiCorruptError(`Cannot read the metadata of ${file.filename}: it is neither a wheel nor an sdist`, {
        project,
        url: file.url,
      });
    const local = file.url.startsWith('file:');
    if (this.#options.offline && !local) throw new PypiOfflineError(`the metadata of ${file.filename}`, { project, url: file.url });
    const { bytes, source } = await this.#limit.run(() => this.#fetchMetadata(file, parsed, label, version, local, signal), signal);
    const result = this.#finish(file, bytes, source, parsed, label, version);
    this.#write(() => this.cache.writeMetadata(key, bytes));
    return result;
  }

  /** Parse, check it is the file's project and version, and (for an sdist) that it is static. */
  #finish(
    file: PypiFile,
    bytes: Buffer,
    source: MetadataSource,
    parsed: DistributionFileName | undefined,
    label: ZipLabel,
    version: string,
  ): PypiMetadata {
    const metadata = parseCoreMetadata(bytes, `${file.filename} (${parsed?.kind === 'sdist' ? 'PKG-INFO' : 'METADATA'})`);
    if (parsed !== undefined) {
      if (metadata.name !== parsed.name || comparePypiVersions(metadata.version, parsed.version) !== 0) {
        throw new PypiCorruptError(
          `The metadata of ${file.filename} names ${metadata.displayName} ${metadata.versionText}, not the file's ${parsed.name} ${parsed.versionText}`,
          { project: label.project, url: file.url },
        );
      }
      if (parsed.kind === 'sdist' && !metadata.staticDependencies) {
        const [major, minor] = metadata.metadataVersion.split('.').map(Number) as [number, number];
        const why =
          major < 2 || (major === 2 && minor < 2)
            ? `has Metadata-Version ${metadata.metadataVersion} (metadata is static only from 2.2, PEP 643)`
            : `marks ${metadata.dynamic.join(', ')} as Dynamic`;
        throw new PypiNeedsBuildError(label.project, version, file.filename, why);
      }
    }
    return { file, metadata, text: bytes.toString('utf8'), source };
  }

  async #fetchMetadata(
    file: PypiFile,
    parsed: DistributionFileName,
    label: ZipLabel,
    version: string,
    local: boolean,
    signal: AbortSignal,
  ): Promise<{ bytes: Buffer; source: MetadataSource }> {
    const maxMetadata = this.#options.maxMetadataBytes ?? 8 * MiB;
    const maxDownload = this.#options.maxDownloadBytes ?? 100 * MiB;
    const request = { project: label.project, signal };
    if (parsed.kind === 'wheel' && file.coreMetadata !== false && !local) {
      const answer = await fetchBytes(
        this.#http,
        `${file.url}.metadata`,
        { ...request, what: `the metadata file of ${file.filename}` },
        { maxBytes: maxMetadata },
      );
      if (answer.status === 200) {
        const check = hashMatches(answer.body, file.coreMetadata.hashes);
        if (!check.ok) {
          throw new PypiCorruptError(`The metadata file of ${file.filename} does not match the ${check.algorithm} the index gives for it`, {
            project: label.project,
            url: `${file.url}.metadata`,
          });
        }
        return { bytes: answer.body, source: 'metadata-file' };
      }
      // The index said it has one and does not: read the wheel instead.
    }
    if (parsed.kind === 'sdist' && !/\.(tar\.gz|tgz|zip)$/i.test(file.filename)) {
      throw new PypiNeedsBuildError(
        label.project,
        version,
        file.filename,
        `is a ${parsed.extension} archive, which conda-resolve does not read`,
      );
    }
    if (parsed.kind === 'sdist' && !file.filename.toLowerCase().endsWith('.zip')) {
      const bytes = local
        ? await (await fileSource(file.url)).read(0, maxDownload + 1)
        : await this.#download(file, label, maxDownload, signal);
      if (bytes.length > maxDownload) throw this.#tooLarge(file, label, maxDownload);
      const pkgInfo = await readTarGzPkgInfo(bytes, maxDownload * 4, maxMetadata, label);
      if (pkgInfo === null)
        throw new PypiCorruptError(`Cannot read ${file.filename} of ${label.project}: it has no top-level PKG-INFO`, {
          project: label.project,
          url: file.url,
        });
      return { bytes: pkgInfo, source: local ? 'local-file' : 'whole-file' };
    }
    // A zip (wheel or zip sdist): by ranges when the server serves them, else whole.
    const { source, how } = local
      ? { source: await fileSource(file.url), how: 'local-file' as const }
      : await this.#zipSource(file, label, maxDownload, signal);
    const entries = await readCentralDirectory(source, label);
    const entry = parsed.kind === 'wheel' ? wheelMetadataEntry(entries, parsed.name) : sdistPkgInfoEntry(entries);
    if (entry === undefined) {
      throw new PypiCorruptError(
        `Cannot read ${file.filename} of ${label.project}: it has no ${parsed.kind === 'wheel' ? '*.dist-info/METADATA' : 'top-level PKG-INFO'}`,
        { project: label.project, url: file.url },
      );
    }
    return { bytes: await readZipMember(source, entry, maxMetadata, label), source: how };
  }

  #tooLarge(file: PypiFile, label: ZipLabel, max: number): PypiTooLargeError {
    return new PypiTooLargeError(
      `Cannot read the metadata of ${file.filename}: the file is larger than ${max} bytes, the limit for downloading a whole file (maxDownloadBytes)`,
      max,
      { project: label.project, url: file.url },
    );
  }

  /** The whole file, its hash checked when the index gave one. */
  async #download(file: PypiFile, label: ZipLabel, max: number, signal: AbortSignal): Promise<Buffer> {
    if (file.size !== null && file.size > max) throw this.#tooLarge(file, label, max);
    const answer = await fetchBytes(this.#http, file.url, { project: label.project, what: file.filename, signal }, { maxBytes: max });
    if (answer.status !== 200)
      throw new PypiCorruptError(`Cannot download ${file.filename}: the index lists it but answers HTTP ${answer.status}`, {
        project: label.project,
        url: file.url,
      });
    this.#checkFileHash(file, label, answer.body);
    return answer.body;
  }

  #checkFileHash(file: PypiFile, label: ZipLabel, bytes: Buffer): void {
    const check = hashMatches(bytes, file.hashes);
    if (!check.ok)
      throw new PypiCorruptError(`${file.filename} does not match the ${check.algorithm} the index gives for it`, {
        project: label.project,
        url: file.url,
      });
  }

  /**
   * Random access to a remote zip: one suffix range request for the tail (`Range: bytes=-N`, whose
   * 206 names the total size); a server that ignores ranges answers 200 with the whole file, which
   * is then read from memory (under the cap, hash checked).
   */
  async #zipSource(
    file: PypiFile,
    label: ZipLabel,
    max: number,
    signal: AbortSignal,
  ): Promise<{ source: ByteSource; how: MetadataSource }> {
    const what = `the end of ${file.filename}`;
    const request = { project: label.project, what, signal };
    const tail = await fetchBytes(this.#http, file.url, request, {
      headers: { range: `bytes=-${TAIL_BYTES}`, 'accept-encoding': 'identity' },
      maxBytes: Math.max(max, TAIL_BYTES),
    });
    if (tail.status === 200) {
      if (tail.body.length > max) throw this.#tooLarge(file, label, max);
      this.#checkFileHash(file, label, tail.body);
      return { source: bufferSource(tail.body), how: 'whole-file' };
    }
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(tail.contentRange?.trim() ?? '');
    if (
      tail.status !== 206 ||
      range === null ||
      Number(range[2]) !== Number(range[3]) - 1 ||
      tail.body.length !== Number(range[2]) - Number(range[1]) + 1
    ) {
      if (tail.status === 416 || tail.status === 206)
        return { source: bufferSource(await this.#download(file, label, max, signal)), how: 'whole-file' };
      throw new PypiCorruptError(`Cannot download ${file.filename}: the index lists it but answers HTTP ${tail.status}`, {
        project: label.project,
        url: file.url,
      });
    }
    const size = Number(range[3]);
    const remote: ByteSource = {
      size,
      read: async (offset, length) => {
        const end = Math.min(size, offset + length) - 1;
        const part = await fetchBytes(
          this.#http,
          file.url,
          { ...request, what: `bytes ${offset}-${end} of ${file.filename}` },
          { headers: { range: `bytes=${offset}-${end}`, 'accept-encoding': 'identity' }, maxBytes: end - offset + 1 },
        );
        if (part.status !== 206)
          throw new PypiCorruptError(
            `Cannot read ${file.filename}: the server answered a range request with HTTP ${part.status} after answering the first with 206`,
            { project: label.project, url: file.url },
          );
        return part.body;
      },
    };
    return { source: new TailCachedSource(remote, { start: Number(range[1]), bytes: tail.body }), how: 'range-requests' };
  }
}

/** `pageUrl` (from the cache, without credentials) with the credentials of `requestUrl` when both are on one origin. */
function withCredentialsOf(requestUrl: string, pageUrl: string): string {
  const request = new URL(requestUrl);
  const page = new URL(pageUrl);
  if (request.origin === page.origin && (request.username !== '' || request.password !== '')) {
    page.username = request.username;
    page.password = request.password;
  }
  return page.href;
}

/** Marks a cached 404 (the index does not have the project). */
const NOT_FOUND = 'x-conda-resolve/not-found';

/**
 * The wheel's METADATA: `<name>-<version>.dist-info/METADATA` at the top level. A wheel holds one
 * `.dist-info`; if it holds several, the one named for the project.
 */
function wheelMetadataEntry(entries: readonly ZipEntry[], project: string): ZipEntry | undefined {
  const candidates = entries.filter((entry) => /^[^/]+\.dist-info\/METADATA$/.test(entry.name));
  if (candidates.length <= 1) return candidates[0];
  return candidates.find(
    (entry) =>
      normalizePypiName(
        entry.name
          .split('/')[0]!
          .replace(/\.dist-info$/, '')
          .replace(/-[^-]*$/, ''),
      ) === project,
  );
}

function sdistPkgInfoEntry(entries: readonly ZipEntry[]): ZipEntry | undefined {
  return entries.find((entry) => /^[^/]+\/PKG-INFO$/.test(entry.name));
}
