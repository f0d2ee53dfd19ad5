/**
 * The plain-data package record shared by every layer.
 *
 * Field names follow repodata.json and the native JSON result (docs/command-line.md), so the
 * exporters and the HTTP layer can read them without renaming. A record is immutable once built.
 */
export interface PackageRecord {
  readonly name: string;
  readonly version: string;
  readonly build: string;
  readonly build_number: number;
  /**
   * The channel as users name it: `conda-forge` for a channel on the default alias, otherwise its
   * URL without credentials, as conda names channels in its output. Virtual packages use `@`.
   */
  readonly channel: string;
  readonly subdir: string;
  /** The file name, `<name>-<version>-<build>.conda` or `.tar.bz2`. */
  readonly fn: string;
  /** The exact download URL, without credentials (they are added only when downloading). */
  readonly url: string;
  /** Lowercase hex, or null when the channel does not publish one. */
  readonly md5: string | null;
  readonly sha256: string | null;
  /** Bytes; null when the channel does not say. */
  readonly size: number | null;
  readonly depends: readonly string[];
  readonly constrains: readonly string[];
  /** Parsed from repodata's comma- or space-separated string; empty when none. */
  readonly track_features: readonly string[];
  /** repodata's legacy `features` string, or null. */
  readonly features: string | null;
  readonly license: string | null;
  readonly license_family: string | null;
  /** `python`, `generic`, or null for an architecture-specific package. */
  readonly noarch: string | null;
  /** Milliseconds since the epoch (normalised from seconds where repodata uses seconds), or null. */
  readonly timestamp: number | null;
  readonly python_site_packages_path?: string | null;
}
