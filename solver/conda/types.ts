/** The request shapes of the public solver API (re-exported by `solver/index.ts`). */
import type { PackageRecord } from '../../vocabulary/record.js';

/** Where the solver reads one subdir's records by name; `SubdirIndex` satisfies it. */
export interface RecordSource {
  records(name: string): readonly PackageRecord[];
}

export interface SolveChannel {
  /** The channel as users name it (`conda-forge`, or its URL without credentials). */
  readonly name: string;
  /** Its subdirs for this solve, e.g. [linux-64 index, noarch index]. */
  readonly sources: readonly RecordSource[];
}

export interface SolveRequest {
  /** Root MatchSpec strings, in the user's order. */
  readonly specs: readonly string[];
  /** Channels in priority order, highest first. */
  readonly channels: readonly SolveChannel[];
  /** Installed virtual packages (`__glibc`, `__osx`, ...) of the target platform. */
  readonly virtualPackages: readonly PackageRecord[];
  /** Default `strict`. */
  readonly channelPriority?: 'strict' | 'flexible' | 'disabled';
  /** Milliseconds since the epoch; records with a later timestamp are ignored. */
  readonly excludeNewer?: number;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}
