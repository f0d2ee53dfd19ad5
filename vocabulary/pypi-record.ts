/**
 * A solved PyPI distribution: the wheel a resolve chose for one platform, every field filled from
 * the index's project page (PEP 691/503, PEP 700) and the wheel's core metadata. Plain data, like
 * `PackageRecord`, so exporters, the lock writers and the HTTP layer read it without the PyPI
 * vocabulary. The native JSON result lists it beside conda records with `manager: "pip"`, the word
 * conda's own environment model uses for pip-installed packages.
 */
export interface PypiRecord {
  /** The project name as its metadata spells it (`Name:`), e.g. `Jinja2`. */
  readonly name: string;
  /** The version as the metadata gives it (`Version:`). */
  readonly version: string;
  /** The wheel's file name, e.g. `rich-13.9.4-py3-none-any.whl`. */
  readonly filename: string;
  /** The wheel's URL, without credentials. */
  readonly url: string;
  /** The index (or find-links location) that listed the file, without credentials. */
  readonly index: string;
  /** Lowercase hex, or null when the index gives no sha256. */
  readonly sha256: string | null;
  /** Every hash the index gives (name -> lowercase hex). */
  readonly hashes: Readonly<Record<string, string>>;
  /** Bytes (PEP 700), or null when the index does not say. */
  readonly size: number | null;
  /** PEP 700 upload time (ISO 8601), or null. */
  readonly upload_time: string | null;
  /** PEP 592: a yanked file is chosen only for an `==` pin. */
  readonly yanked: boolean;
  /** `Requires-Dist` of the metadata, as written (markers included). */
  readonly requires_dist: readonly string[];
  /** `Requires-Python` of the metadata (else the index's), or null. */
  readonly requires_python: string | null;
  /** The extras the solve asked of it, sorted. */
  readonly extras: readonly string[];
  /**
   * The PyPI names (PEP 503 normalised) of the requirements that hold on this platform with the
   * solved Python and the extras asked for: the edges of the solved graph.
   */
  readonly depends: readonly string[];
}

/** The resolution strategy (uv's names): which version of each name the solve prefers. */
export type ResolutionStrategy = 'highest' | 'lowest' | 'lowest-direct';
export const RESOLUTION_STRATEGIES: readonly ResolutionStrategy[] = ['highest', 'lowest', 'lowest-direct'];
