/**
 * What the conda provider needs from a parsed MatchSpec. The vocabulary's MatchSpec satisfies it
 * through `vocabularySpecParser`; keeping the seam this narrow lets the provider stay independent
 * of how match specs are represented.
 */
import type { MatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';

export interface SolverSpec {
  /** The exact package name the spec selects. */
  readonly name: string;
  /** The channel named by `channel::name` or `[channel=...]`, as written; null when absent. */
  readonly channel: string | null;
  /** Whether a record satisfies every field of the spec (name, version, build, channel, subdir...). */
  matches(record: PackageRecord): boolean;
  /** The spec as a person reads it, e.g. `python 3.9.*` or `numpy >=2`. */
  display(): string;
}

/**
 * Parses one match spec, or adopts one parsed already (a root spec the caller validated); throws
 * the vocabulary's typed error for an invalid one.
 */
export type SpecParser = (spec: string | MatchSpec) => SolverSpec;
