/**
 * The request shapes of the public solver API (re-exported by `solver/index.ts`), defined once for
 * every stage of a solve: `src/` instantiates them with its own sources and specs (indexes and
 * parsed specs in this thread, index keys and spec texts on the way to a worker).
 */
import type { MatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';

/** conda's `channel_priority`: which channels a package name may come from, and how they rank. */
export type ChannelPriority = 'strict' | 'flexible' | 'disabled';
export const CHANNEL_PRIORITIES: readonly ChannelPriority[] = ['strict', 'flexible', 'disabled'];

/** Where the solver reads one subdir's records by name; `SubdirIndex` satisfies it. */
export interface RecordSource {
  records(name: string): readonly PackageRecord[];
}

export interface SolveChannel<Source = RecordSource> {
  /** The channel as users name it (`conda-forge`, or its URL without credentials). */
  readonly name: string;
  /** Its subdirs for this solve, e.g. [linux-64 index, noarch index]. */
  readonly sources: readonly Source[];
}

export interface SolveRequest<Source = RecordSource, Spec = string | MatchSpec> {
  /** Root specs in the user's order: MatchSpec strings, or specs parsed already (not parsed again). */
  readonly specs: readonly Spec[];
  /** Channels in priority order, highest first. */
  readonly channels: readonly SolveChannel<Source>[];
  /** Installed virtual packages (`__glibc`, `__osx`, ...) of the target platform. */
  readonly virtualPackages: readonly PackageRecord[];
  /** Default `strict`. */
  readonly channelPriority?: ChannelPriority;
  /** Milliseconds since the epoch; records with a later timestamp are ignored. */
  readonly excludeNewer?: number;
  /** Which version of each name is preferred: `highest` (default), `lowest`, or `lowest-direct` (lowest for the root specs' names). */
  readonly resolution?: 'highest' | 'lowest' | 'lowest-direct';
  /**
   * URLs of previously locked records (rattler's `locked_packages`): a candidate found here sorts
   * before every other record of its name, so each locked package keeps its record unless the
   * request rules it out.
   */
  readonly locked?: readonly string[];
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}
