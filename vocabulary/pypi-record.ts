/**
 * A PyPI distribution as a lock records it (pixi.lock `pypi:` entries, conda-lock.yml `manager:
 * pip` entries), kept beside the conda records of an environment. `manager` is `pip`, the word
 * conda-lock and conda's environment model use for these packages.
 *
 * Plain data, immutable once built. The names of its fields follow pixi.lock's (`requires_dist`,
 * `requires_python`), which are the core metadata's (PEP 566) in snake case.
 */
export interface PypiRecord {
  readonly manager: 'pip';
  /** The distribution name as the lock writes it. */
  readonly name: string;
  /** null only for a local source tree, which pixi.lock v7 locks by path without a version. */
  readonly version: string | null;
  /** The wheel or sdist URL, or the path of a local source tree, exactly as the lock writes it. */
  readonly url: string;
  readonly sha256: string | null;
  readonly md5: string | null;
  /** `Requires-Dist` lines (PEP 508), as written. */
  readonly requires_dist: readonly string[];
  readonly requires_python: string | null;
  /** The index the distribution came from when the lock names one (pixi v7 leaves out pypi.org). */
  readonly index: string | null;
  /** pixi.lock v6's `editable: true` (an editable install of a local project). */
  readonly editable?: boolean;
  // What a solve knows besides (a lock does not record these): every field the index gives.
  /** The wheel's file name (PEP 427). */
  readonly filename?: string;
  /** Every hash the index gives (name -> lowercase hex). */
  readonly hashes?: Readonly<Record<string, string>>;
  /** Bytes (PEP 700), or null when the index does not say. */
  readonly size?: number | null;
  /** PEP 700 upload time (ISO 8601), or null. */
  readonly upload_time?: string | null;
  /** PEP 592: a yanked file is chosen only for an `==` pin. */
  readonly yanked?: boolean;
  /** The extras the solve asked of it, sorted. */
  readonly extras?: readonly string[];
  /** Normalised names of the requirements that hold on this platform with the solved Python: the solved graph's edges. */
  readonly depends?: readonly string[];
}

/** The resolution strategy (uv's names): which version of each name the solve prefers. */
export type ResolutionStrategy = 'highest' | 'lowest' | 'lowest-direct';
export const RESOLUTION_STRATEGIES: readonly ResolutionStrategy[] = ['highest', 'lowest', 'lowest-direct'];

/** PEP 503's normalised name: lower case, runs of `-`, `_` and `.` as one `-`. */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The distribution name a PEP 508 requirement starts with (`requests[socks] >=2 ; extra == "x"`
 * -> `requests`), or undefined when it does not start with one. Deliberately simple: the name,
 * then stop at extras, a specifier, a URL or a marker.
 */
export function requirementName(requirement: string): string | undefined {
  const match = /^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)/.exec(requirement);
  return match?.[1];
}

/** Whether a requirement applies only with an extra (`; extra == "test"`): not an edge of a plain install. */
export function requirementNeedsExtra(requirement: string): boolean {
  const marker = requirement.indexOf(';');
  return marker >= 0 && /\bextra\s*==/.test(requirement.slice(marker + 1));
}

/** `name version` (or the location for a source tree without a version), for messages and trees. */
export function pypiLabel(record: PypiRecord): string {
  return record.version === null ? `${record.name} @ ${record.url}` : `${record.name} ${record.version}`;
}
