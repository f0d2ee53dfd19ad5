/**
 * What the simple-index client hands out: one project's files as an index lists them, in a shape
 * that does not depend on whether the page was PEP 691 JSON or PEP 503 HTML.
 */

/** `false`, or PEP 592's `data-yanked` / `yanked`: `true` or the reason given. */
export type Yanked = false | true | string;

/**
 * PEP 658/714: whether the index serves `<file url>.metadata`, and its hashes when it says them.
 * `false` when it does not.
 */
export type CoreMetadataAvailability = false | { readonly hashes: Readonly<Record<string, string>> };

export interface PypiFile {
  /** The file name as the index gives it (`numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.whl`). */
  readonly filename: string;
  /** Absolute URL (relative links resolved against the page), without the `#hash` fragment. May carry credentials: never print it. */
  readonly url: string;
  /** Hash name (lower case) -> hex digest (lower case), from the JSON `hashes` or the URL fragment. */
  readonly hashes: Readonly<Record<string, string>>;
  /** The `Requires-Python` the index reports for the file (HTML-unescaped), or null. */
  readonly requiresPython: string | null;
  /** PEP 592: a yanked file is kept, but only an `==` (or `===`) pin may select it. */
  readonly yanked: Yanked;
  readonly coreMetadata: CoreMetadataAvailability;
  /** PEP 700 (JSON pages only): size in bytes and upload time (ISO 8601), when given. */
  readonly size: number | null;
  readonly uploadTime: string | null;
  /** The index (or find-links location) the file was listed by, without credentials. */
  readonly index: string;
  /** Position of that index in the client's list (0 = `index-url`; find-links come after the indexes). */
  readonly indexRank: number;
}

/** One index's page for one project. */
export interface ProjectPage {
  /** The name the page gives (JSON `name`), else the normalised name asked for. */
  readonly name: string;
  readonly files: readonly PypiFile[];
  /** PEP 700 `versions` (JSON pages of API version >= 1.1), or null when the page does not list them. */
  readonly versions: readonly string[] | null;
  /** PEP 629/691 `meta.api-version` (`1.0` when the page does not say). */
  readonly apiVersion: string;
}

/** Where a project's files come from, after the index strategy was applied. */
export interface PypiProject {
  /** PEP 503 normalised name. */
  readonly name: string;
  /** Files in candidate order: by index rank, then as the index listed them. */
  readonly files: readonly PypiFile[];
  /** PEP 700 versions from the indexes that gave them (merged), or null when none did. */
  readonly versions: readonly string[] | null;
  /** The indexes that had the project (without credentials), in rank order. */
  readonly indexes: readonly string[];
}

export type IndexStrategy = 'first-index' | 'unsafe-first-match' | 'unsafe-best-match';

/** The index a request uses when it names none (PyPI's simple API). */
export const DEFAULT_INDEX_URL = 'https://pypi.org/simple/';
