/**
 * The client's disk cache, under `<cache-dir>/pypi/`:
 *   pages/<key>.page         one project page of one index: a JSON header line (URL without
 *                            credentials, ETag, Last-Modified, Cache-Control, Content-Type, when it
 *                            was validated), then the body as the index sent it
 *   metadata/<key>.metadata  a file's core metadata (METADATA / PKG-INFO), keyed by the file's URL
 *                            and the sha256 its index gives; never revalidated (a published file
 *                            does not change)
 * `<key>` hashes the URL with its credentials, so two tokens never share a private index's page.
 * Every write goes to a temp file renamed into place (repodata/cache.ts `writeSmallFile`): a
 * reader sees the old entry or the new one, never half of one, and a failed fetch leaves the
 * entry as it was.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { removeCredentials } from '../../vocabulary/channel.js';
import { freshnessMs, makeDirectory, readSmallFile, writeSmallFile } from '../cache.js';
import { RepodataCacheError } from '../fetch-errors.js';

export interface PageHeader {
  readonly version: 1;
  readonly url: string;
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly cacheControl: string | null;
  readonly contentType: string | null;
  /** The URL that answered (after redirects), without credentials: relative links resolve against it. */
  readonly pageUrl: string;
  /** Milliseconds since the epoch of the last 200 or 304. */
  readonly fetchedAt: number;
}

export interface CachedPage {
  readonly header: PageHeader;
  readonly body: string;
}

/** The folder under the cache directory that holds everything this client writes. */
export const PYPI_CACHE_FOLDER = 'pypi';
/** Its subfolders (nothing else is written in `pypi/` itself). */
export const PYPI_CACHE_SUBFOLDERS = ['pages', 'metadata'] as const;

/** The names written in `pypi/pages/` and `pypi/metadata/`: entries and their temp files (`writeSmallFile`). */
const PAGE_FILE = /^[0-9a-f]{32}\.page(\.\d+\.[0-9a-f]+\.tmp)?$/;
const METADATA_FILE = /^[0-9a-f]{32}\.metadata(\.\d+\.[0-9a-f]+\.tmp)?$/;

/** Whether `name` is a file this cache writes in `pypi/<folder>/` (for `cache clean`, which removes only those). */
export function isPypiCacheFile(folder: (typeof PYPI_CACHE_SUBFOLDERS)[number], name: string): boolean {
  return (folder === 'pages' ? PAGE_FILE : METADATA_FILE).test(name);
}

function key(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 32);
}

function isHeader(value: unknown): value is PageHeader {
  if (typeof value !== 'object' || value === null) return false;
  const h = value as Record<string, unknown>;
  const optional = (v: unknown): boolean => v === null || typeof v === 'string';
  return (
    h.version === 1 &&
    typeof h.url === 'string' &&
    optional(h.etag) &&
    optional(h.lastModified) &&
    optional(h.cacheControl) &&
    optional(h.contentType) &&
    typeof h.pageUrl === 'string' &&
    typeof h.fetchedAt === 'number'
  );
}

export class PypiCache {
  readonly dir: string;
  readonly #pages: string;
  readonly #metadata: string;
  #ready: Promise<void> | undefined;
  /**
   * The entry files present when the client started (one `readdir` per folder), plus those written
   * since: a miss costs no file system call. On a cold walk the misses would otherwise queue in
   * libuv's four threads behind the cache writes of the level before.
   */
  #present: Promise<Set<string>> | undefined;

  constructor(cacheDir: string) {
    this.dir = join(cacheDir, PYPI_CACHE_FOLDER);
    this.#pages = join(this.dir, 'pages');
    this.#metadata = join(this.dir, 'metadata');
  }

  async #ensure(): Promise<void> {
    this.#ready ??= (async () => {
      try {
        await makeDirectory(this.#pages);
        await makeDirectory(this.#metadata);
      } catch (error) {
        this.#ready = undefined;
        throw new RepodataCacheError(`cannot create ${this.dir}: ${(error as Error).message}`, { cause: error });
      }
    })();
    return this.#ready;
  }

  async #has(name: string): Promise<boolean> {
    this.#present ??= Promise.all([readdir(this.#pages).catch(() => []), readdir(this.#metadata).catch(() => [])]).then(
      ([pages, metadata]) => new Set([...pages, ...metadata]),
    );
    return (await this.#present).has(name);
  }

  #added(name: string): void {
    void this.#present?.then((present) => present.add(name));
  }

  /** The cached page of `url` (with credentials), or null when there is none or it is unreadable. */
  async readPage(url: string): Promise<CachedPage | null> {
    if (!(await this.#has(`${key(url)}.page`))) return null;
    const bytes = readSmallFile(join(this.#pages, `${key(url)}.page`));
    if (bytes === null) return null;
    const newline = bytes.indexOf(10);
    if (newline < 0) return null;
    try {
      const header: unknown = JSON.parse(bytes.toString('utf8', 0, newline));
      if (!isHeader(header) || header.url !== removeCredentials(url)) return null;
      return { header, body: bytes.toString('utf8', newline + 1) };
    } catch {
      return null;
    }
  }

  async writePage(url: string, header: Omit<PageHeader, 'version' | 'url'>, body: string): Promise<void> {
    await this.#ensure();
    const line = JSON.stringify({ version: 1, url: removeCredentials(url), ...header } satisfies PageHeader);
    await writeSmallFile(join(this.#pages, `${key(url)}.page`), `${line}\n${body}`);
    this.#added(`${key(url)}.page`);
  }

  /** Whether a page validated at `fetchedAt` may be used without asking the index again. */
  static isFresh(header: PageHeader, defaultTtlSeconds: number, now: number): boolean {
    return now >= header.fetchedAt && now - header.fetchedAt < freshnessMs(header.cacheControl, defaultTtlSeconds);
  }

  /**
   * The metadata key of a file: its URL (without credentials) and the sha256 its index gives. Not the
   * hash alone: the wheel itself is never downloaded, so an index could claim another index's hash and
   * plant its own metadata for that file in a shared cache.
   */
  static metadataKey(file: { readonly url: string; readonly hashes: Readonly<Record<string, string>> }): string {
    return key(`${removeCredentials(file.url)}\0${file.hashes.sha256 ?? ''}`);
  }

  async readMetadata(metadataKey: string): Promise<Buffer | null> {
    if (!(await this.#has(`${metadataKey}.metadata`))) return null;
    return readSmallFile(join(this.#metadata, `${metadataKey}.metadata`));
  }

  async writeMetadata(metadataKey: string, bytes: Uint8Array): Promise<void> {
    await this.#ensure();
    await writeSmallFile(join(this.#metadata, `${metadataKey}.metadata`), bytes);
    this.#added(`${metadataKey}.metadata`);
  }
}
