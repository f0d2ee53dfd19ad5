/**
 * A project's page on a simple repository, as PEP 691 JSON or PEP 503 HTML, into `ProjectPage`.
 *
 * HTML (PEP 503, with PEP 592 `data-yanked`, PEP 658/714 `data-core-metadata` and the older
 * `data-dist-info-metadata`, PEP 629 `pypi:repository-version`): every `<a href>` is a file; its URL
 * is resolved against the page URL (or a `<base href>`), its `#<hash>=<hex>` fragment becomes the
 * file's hash, `data-requires-python` is HTML-unescaped (`&gt;=3.8`).
 * JSON (PEP 691, PEP 700 `versions`, `size`, `upload-time`; PEP 714 `core-metadata`, falling back
 * to `dist-info-metadata`).
 * A page that is neither (a login form, an app shell, plain text) is refused: a user who mistyped
 * an index URL gets that said, not "no versions".
 */
import { PypiIndexPageError } from './errors.js';
import { scanHtml } from './html-tokens.js';
import type { CoreMetadataAvailability, ProjectPage, PypiFile, Yanked } from './types.js';

export const PYPI_JSON_TYPE = 'application/vnd.pypi.simple.v1+json';
export const PYPI_HTML_TYPE = 'application/vnd.pypi.simple.v1+html';
/** PEP 691's negotiation: JSON first, then the versioned HTML, then any HTML (static servers). */
export const PYPI_ACCEPT = `${PYPI_JSON_TYPE}, ${PYPI_HTML_TYPE};q=0.2, text/html;q=0.01`;

/** The major API version this client reads (PEP 629: refuse a greater major, accept any minor). */
const SUPPORTED_MAJOR = 1;

export interface PageContext {
  /** The normalised project name asked for. */
  readonly project: string;
  /** The index as shown (without credentials). */
  readonly index: string;
  readonly indexRank: number;
  /** The URL that answered (after redirects); relative links resolve against it. */
  readonly url: string;
}

/** Distribution file endings a simple page links to (wheels, sdists and the legacy formats). */
const DIST_FILE = /\.(whl|tar\.gz|tgz|zip|tar\.bz2|tbz|tar\.xz|txz|tar|egg|exe|msi|rpm|dmg)$/i;

export function isDistributionFilename(name: string): boolean {
  return DIST_FILE.test(name);
}

const HASH_NAME = /^(md5|sha1|sha224|sha256|sha384|sha512)$/;

/** `sha256=<hex>` (a URL fragment, a `data-core-metadata` value) as `{ sha256: hex }`; null when it is not one. */
export function parseHashPair(text: string): Record<string, string> | null {
  const match = /^([A-Za-z0-9]+)=([0-9A-Fa-f]+)$/.exec(text.trim());
  if (!match || !HASH_NAME.test(match[1]!.toLowerCase())) return null;
  return { [match[1]!.toLowerCase()]: match[2]!.toLowerCase() };
}

function coreMetadataFromAttribute(value: string | undefined): CoreMetadataAvailability {
  if (value === undefined) return false;
  const text = value.trim();
  if (text.toLowerCase() === 'true') return { hashes: {} };
  const hashes = parseHashPair(text);
  return hashes ? { hashes } : false;
}

function checkApiVersion(version: string, context: PageContext): void {
  const match = /^(\d+)\.(\d+)$/.exec(version.trim());
  if (!match)
    throw new PypiIndexPageError(
      context.project,
      context.index,
      `its API version ${JSON.stringify(version)} is not <major>.<minor>`,
      context.url,
    );
  if (Number(match[1]) !== SUPPORTED_MAJOR) {
    throw new PypiIndexPageError(
      context.project,
      context.index,
      `it speaks API version ${version}; this client reads version ${SUPPORTED_MAJOR}.x`,
      context.url,
    );
  }
}

/** The last path segment of a URL, percent-decoded (the file name PEP 503 says the anchor text matches). */
function lastSegment(url: URL): string {
  const segment = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A link resolved against the page: http(s), or `file:` only on a page that is itself a local file.
 * An index on the network must not make the client read files of this machine (the HTTP service
 * reads indexes its clients name).
 */
function resolve(href: string, base: string): URL | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  return url.protocol === 'file:' && base.startsWith('file:') ? url : null;
}

/** A PEP 503 HTML page. */
export function parseHtmlPage(html: string, context: PageContext): ProjectPage {
  if (html.includes('\u0000'))
    throw new PypiIndexPageError(context.project, context.index, 'the answer is binary data, not HTML', context.url);
  const scan = scanHtml(html);
  if (!scan.sawElement)
    throw new PypiIndexPageError(context.project, context.index, 'the answer is not HTML (no element in it)', context.url);
  let base = context.url;
  let apiVersion = '1.0';
  let sawVersionMeta = false;
  const files: PypiFile[] = [];
  let anchors = 0;
  for (const tag of scan.tags) {
    if (tag.name === 'base') {
      const href = tag.attributes.get('href');
      const url = href === undefined ? null : resolve(href, context.url);
      if (url) base = url.href;
      continue;
    }
    if (tag.name === 'meta') {
      if (tag.attributes.get('name')?.toLowerCase() === 'pypi:repository-version') {
        apiVersion = tag.attributes.get('content') ?? '';
        sawVersionMeta = true;
        checkApiVersion(apiVersion, context);
      }
      continue;
    }
    const href = tag.attributes.get('href');
    if (href === undefined) continue;
    anchors++;
    const url = resolve(href, base);
    if (url === null) continue;
    const filename = lastSegment(url) || tag.text;
    if (!isDistributionFilename(filename)) continue;
    const hashes = parseHashPair(url.hash.slice(1)) ?? {};
    url.hash = '';
    const yankedAttribute = tag.attributes.get('data-yanked');
    const yanked: Yanked = yankedAttribute === undefined ? false : yankedAttribute === '' ? true : yankedAttribute;
    const requiresPython = tag.attributes.get('data-requires-python');
    files.push({
      filename,
      url: url.href,
      hashes,
      requiresPython: requiresPython === undefined || requiresPython.trim() === '' ? null : requiresPython.trim(),
      yanked,
      // PEP 714: the new name wins; the old one is still read (indexes that predate it).
      coreMetadata: coreMetadataFromAttribute(tag.attributes.get('data-core-metadata') ?? tag.attributes.get('data-dist-info-metadata')),
      size: null,
      uploadTime: null,
      index: context.index,
      indexRank: context.indexRank,
    });
  }
  if (files.length === 0 && !sawVersionMeta) {
    // An empty project page is legal, but a page with links and no distribution among them, or
    // with a form or a script and nothing else, is something else answering at that URL.
    if (anchors > 0)
      throw new PypiIndexPageError(
        context.project,
        context.index,
        `none of its ${anchors} links is a distribution file (wheel or sdist)`,
        context.url,
      );
    if (scan.elementNames.has('form') || scan.elementNames.has('script') || scan.elementNames.has('input')) {
      throw new PypiIndexPageError(
        context.project,
        context.index,
        'it is an HTML page with a form or a script and no distribution links (a login page or a web application?)',
        context.url,
      );
    }
    if (!['html', 'body', 'head'].some((name) => scan.elementNames.has(name))) {
      throw new PypiIndexPageError(context.project, context.index, 'it is neither an HTML document nor JSON', context.url);
    }
  }
  return { name: context.project, files, versions: null, apiVersion };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonHashes(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [name, digest] of Object.entries(value)) {
    if (typeof digest === 'string' && HASH_NAME.test(name.toLowerCase()) && /^[0-9a-fA-F]+$/.test(digest))
      out[name.toLowerCase()] = digest.toLowerCase();
  }
  return out;
}

function jsonCoreMetadata(value: unknown): CoreMetadataAvailability {
  if (value === true) return { hashes: {} };
  if (isRecord(value)) return { hashes: jsonHashes(value) };
  return false;
}

/** A PEP 691 JSON page. */
export function parseJsonPage(text: string, context: PageContext): ProjectPage {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new PypiIndexPageError(context.project, context.index, 'it is not valid JSON', context.url);
  }
  const bad = (detail: string): never => {
    throw new PypiIndexPageError(context.project, context.index, detail, context.url);
  };
  if (!isRecord(doc)) return bad('the JSON is not an object');
  const meta = doc.meta;
  if (!isRecord(meta) || typeof meta['api-version'] !== 'string') return bad('it has no "meta": {"api-version": ...}');
  const apiVersion = meta['api-version'];
  checkApiVersion(apiVersion, context);
  if (!Array.isArray(doc.files)) return bad('it has no "files" list');
  const files: PypiFile[] = [];
  doc.files.forEach((entry: unknown, position: number) => {
    if (!isRecord(entry) || typeof entry.filename !== 'string' || typeof entry.url !== 'string') {
      bad(`files[${position}] has no "filename" and "url" strings`);
      return;
    }
    const url = resolve(entry.url, context.url);
    // A URL that is not one (or a local file named by a remote index) is left out, as pip skips a bad link.
    if (url === null) return;
    url.hash = '';
    const yanked: Yanked =
      entry.yanked === true ? true : typeof entry.yanked === 'string' ? (entry.yanked === '' ? true : entry.yanked) : false;
    files.push({
      filename: entry.filename,
      url: url.href,
      hashes: jsonHashes(entry.hashes),
      requiresPython:
        typeof entry['requires-python'] === 'string' && entry['requires-python'].trim() !== '' ? entry['requires-python'].trim() : null,
      yanked,
      coreMetadata: jsonCoreMetadata(entry['core-metadata'] ?? entry['dist-info-metadata']),
      size: typeof entry.size === 'number' && Number.isSafeInteger(entry.size) && entry.size >= 0 ? entry.size : null,
      uploadTime: typeof entry['upload-time'] === 'string' ? entry['upload-time'] : null,
      index: context.index,
      indexRank: context.indexRank,
    });
  });
  const versions = Array.isArray(doc.versions) && doc.versions.every((v) => typeof v === 'string') ? (doc.versions as string[]) : null;
  return { name: typeof doc.name === 'string' ? doc.name : context.project, files, versions, apiVersion };
}

/** By the answer's Content-Type; a static server's missing or generic type is sniffed (JSON starts with `{`). */
export function parseProjectPage(body: string, contentType: string | null, context: PageContext): ProjectPage {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === PYPI_JSON_TYPE || type === 'application/json') return parseJsonPage(body, context);
  if (type === PYPI_HTML_TYPE || type === 'text/html' || type === 'application/xhtml+xml') return parseHtmlPage(body, context);
  if (type.startsWith('application/vnd.pypi.simple.')) {
    throw new PypiIndexPageError(context.project, context.index, `it answered the unsupported type ${type}`, context.url);
  }
  if (/^\s*\{/.test(body)) return parseJsonPage(body, context);
  return parseHtmlPage(body, context);
}
