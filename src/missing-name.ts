/**
 * What to tell a user whose package no channel has: the closest names the channels searched do
 * have (`did you mean python?`, only when the name is found nowhere else), that no channel has any
 * package for the platform (a private channel built for other platforms), the other platforms that have it, the channels not requested
 * that have it, a `channel::name` whose channel is not among the request's, and which channels and
 * subdirs were searched. Only read on the
 * failure path, from indexes the store has already loaded (other platforms: those of the request,
 * and for local channels the usual ones, which cost a directory read).
 */
import { distance } from 'fastest-levenshtein';
import type { SubdirIndex } from '../repodata/types.js';
import type { Explanation } from '../solver/index.js';
import { sameChannel, type Channel } from '../vocabulary/channel.js';
import type { PreparedRequest } from './request.js';

/** Platforms worth a look for a name missing on the requested one, when every channel is local. */
const COMMON_PLATFORMS = ['linux-64', 'linux-aarch64', 'osx-64', 'osx-arm64', 'win-64'];

/** Up to `limit` names within a small edit distance of `name`, closest first. */
export function closestNames(name: string, names: Iterable<string>, limit = 3): string[] {
  const max = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  const found: { name: string; d: number }[] = [];
  for (const candidate of names) {
    if (candidate === name || Math.abs(candidate.length - name.length) > max) continue;
    const d = distance(name, candidate);
    if (d <= max) found.push({ name: candidate, d });
  }
  found.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return [...new Set(found.map((f) => f.name))].slice(0, limit);
}

/** The name a failure says nothing provides, when that is the whole story. */
export function missingName(explanation: Explanation | null): string | null {
  const failure = explanation?.failure;
  if (failure?.kind !== 'missing' || failure.available.length > 0 || failure.excluded.length > 0) return null;
  return failure.name;
}

export interface HintInput {
  readonly name: string;
  readonly platform: string;
  readonly request: PreparedRequest;
  /** The indexes searched for `platform` (each channel's platform subdir and noarch). */
  readonly searched: readonly SubdirIndex[];
  /** The indexes of the request's channels for another platform; rejects when they cannot be loaded. */
  readonly loadPlatform: (platform: string) => Promise<readonly SubdirIndex[]>;
  /** Channels not requested that are worth a look (configured ones left out), with their loader. */
  readonly unrequested?: readonly Channel[];
  readonly loadChannel?: (channel: Channel) => Promise<readonly SubdirIndex[]>;
}

/** The hint sentences to append to "nothing provides NAME". */
export async function missingNameHint(input: HintInput): Promise<string> {
  const { name, platform, request } = input;
  const parts: string[] = [];
  const spec = request.specs.find((s) => s.name === name);
  if (spec?.channel) {
    const wanted = spec.channel;
    if (!request.channels.some((c) => sameChannel(c.name, wanted) || sameChannel(c.baseUrl, wanted))) {
      parts.push(`"${spec.source}" names the channel ${wanted}, which is not among the channels searched: add it with -c ${wanted}.`);
      return parts.join(' ');
    }
  }
  // Every channel's platform subdir empty or missing: the platform, not the name, is the problem.
  const platformIndexes = input.searched.filter((index) => index.subdir === platform);
  const noPlatformPackages = platformIndexes.length > 0 && platformIndexes.every(hasNoNames);
  const others = request.platforms.filter((p) => p !== platform);
  if (request.channels.every((c) => c.kind === 'file'))
    for (const p of COMMON_PLATFORMS) if (p !== platform && !others.includes(p)) others.push(p);
  const having: string[] = [];
  for (const other of others) {
    try {
      const indexes = await input.loadPlatform(other);
      if (indexes.some((index) => index.subdir !== 'noarch' && index.has(name))) having.push(other);
    } catch {
      // A platform that cannot be loaded says nothing either way.
    }
  }
  const elsewhere: string[] = [];
  for (const channel of input.unrequested ?? []) {
    if (request.channels.some((c) => c.baseUrl === channel.baseUrl) || input.loadChannel === undefined) continue;
    try {
      if ((await input.loadChannel(channel)).some((index) => index.has(name))) elsewhere.push(channel.name);
    } catch {
      // A channel that cannot be loaded says nothing either way.
    }
  }
  // A name found on another platform or channel is spelled right: no other names are offered.
  if (spec !== undefined && !spec.channel && !noPlatformPackages && having.length === 0 && elsewhere.length === 0) {
    const names = new Set<string>();
    for (const index of input.searched) for (const n of index.names()) names.add(n);
    const close = closestNames(name, names);
    if (close.length > 0) parts.push(`Did you mean ${close.join(' or ')}?`);
  }
  if (having.length > 0) parts.push(`${name} exists for ${having.join(', ')}.`);
  if (elsewhere.length > 0)
    parts.push(
      `${name} is in ${elsewhere.join(', ')}, which ${elsewhere.length === 1 ? 'was' : 'were'} not requested: add -c ${elsewhere[0]}.`,
    );
  if (noPlatformPackages) parts.push(`No channel searched has any ${platform} package, only noarch ones.`);
  const channels = request.channels.map((c) => c.name).join(', ');
  parts.push(`Channels searched: ${channels} (${platform} and noarch).`);
  return parts.join(' ');
}

function hasNoNames(index: SubdirIndex): boolean {
  for (const _name of index.names()) return false;
  return true;
}
