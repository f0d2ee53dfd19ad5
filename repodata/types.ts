/**
 * The seam between the repodata layer and its users (the solver, the resolve orchestration).
 *
 * A `SubdirIndex` is one channel's one subdir (`conda-forge/linux-64`), able to hand out the records
 * of one package name on demand, so a solve over a 465,000-record channel materialises only the
 * names it reaches. Monolithic repodata.json files and sharded (CEP 16) channels both implement it.
 */
import type { Channel } from '../vocabulary/channel.js';
import type { PackageRecord } from '../vocabulary/record.js';

/** What a record needs to know about the channel it came from. */
export interface ChannelRef {
  /** Display name: `conda-forge` on the default alias, else the URL without credentials. */
  readonly name: string;
  /** The channel's base URL without credentials and without a trailing slash. */
  readonly baseUrl: string;
}

/** The `ChannelRef` of a parsed channel (what its records and errors name). */
export function channelRef(channel: Channel): ChannelRef {
  return { name: channel.name, baseUrl: channel.baseUrl };
}

export interface SubdirIndex {
  readonly channel: ChannelRef;
  readonly subdir: string;
  /** Every package name this subdir has records for (for sharded channels: from the shard index). */
  names(): Iterable<string>;
  has(name: string): boolean;
  /**
   * The records of one name, parsed on first request and cached. Empty when the name is absent.
   * For a sharded channel, names must have been fetched first (`prefetch`); otherwise this throws.
   */
  records(name: string): readonly PackageRecord[];
  /** Total number of records (for sharded channels: of the names fetched so far). */
  readonly recordCount: number;
}

/** Progress of loading, for the CLI's progress bar and the server's logs. */
export interface LoadProgressEvent {
  readonly channel: string;
  /** The channel's base URL without credentials (what a server's metrics label by its allowlist). */
  readonly url?: string;
  readonly subdir: string;
  readonly phase: 'fetch' | 'cache' | 'index' | 'shards' | 'done';
  readonly bytes?: number;
  readonly totalBytes?: number;
  readonly records?: number;
  /**
   * With phase `cache`, why nothing was downloaded: the cached copy is `fresh` (no request made),
   * was `revalidated` (the server answered 304 Not Modified), or the channel is `local`.
   */
  readonly cache?: 'fresh' | 'revalidated' | 'local';
}

export type LoadProgress = (event: LoadProgressEvent) => void;
