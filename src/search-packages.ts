/**
 * What the channels offer for one platform, as `conda search` answers it: the packages whose
 * name matches a match spec (globs allowed, `*zlib*`), each with the versions of its records that
 * match the whole spec, newest first. The platform's subdir and noarch are searched.
 */
import type { RepodataStore } from '../repodata/store.js';
import type { Channel } from '../vocabulary/channel.js';
import { StringPattern, type MatchSpec } from '../vocabulary/match-spec.js';
import { compareVersions } from '../vocabulary/version.js';

export interface PackageMatch {
  readonly name: string;
  /** Distinct versions, newest first (at most `maxVersions`). */
  readonly versions: readonly string[];
  /** Records matching the spec, over every channel and subdir searched. */
  readonly records: number;
  /** The channels that have it, in priority order. */
  readonly channels: readonly string[];
}

export interface SearchResult {
  readonly platform: string;
  readonly packages: readonly PackageMatch[];
  /** True when more names matched than `limit`. */
  readonly truncated: boolean;
}

export interface SearchOptions {
  readonly limit?: number;
  readonly maxVersions?: number;
  readonly signal?: AbortSignal;
}

export async function searchPackages(
  store: RepodataStore,
  channels: readonly Channel[],
  platform: string,
  spec: MatchSpec,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const limit = options.limit ?? 50;
  const subdirs = [platform, 'noarch'];
  const indexes = await store.prepare(channels, subdirs, [], { signal: options.signal });
  const pattern = new StringPattern(spec.name);
  const names = [...new Set(indexes.flatMap((index) => [...index.names()]))].filter((name) => pattern.test(name)).sort();
  const shown = names.slice(0, limit);
  // Sharded channels fetch a name's records only when asked for it.
  const loaded = shown.length > 0 ? await store.prepare(channels, subdirs, shown, { signal: options.signal }) : indexes;
  const packages: PackageMatch[] = [];
  for (const name of shown) {
    const records = loaded.flatMap((index) => index.records(name)).filter((record) => spec.matches(record));
    if (records.length === 0) continue;
    const versions = [...new Set(records.map((r) => r.version))].sort((a, b) => compareVersions(b, a));
    const having = channels.map((c) => c.name).filter((channel) => records.some((r) => r.channel === channel));
    packages.push({ name, versions: versions.slice(0, options.maxVersions ?? 30), records: records.length, channels: having });
  }
  return { platform, packages, truncated: names.length > limit };
}
