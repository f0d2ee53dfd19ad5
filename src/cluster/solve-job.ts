/**
 * What crosses Redis between `serve --redis` replicas and `conda-resolve worker` processes: one
 * platform's solve as plain data (the specs as text, each channel as its URL and subdirs, the
 * virtual packages, the options), the key it is cached and deduplicated under, and its outcome.
 *
 * The key is a sha256 of everything the outcome depends on, with each channel subdir named by its
 * content identity (the repodata's sha256, or a local file's stamp) instead of the per-process
 * object identity the in-memory cache uses: two processes that read the same repodata compute the
 * same key, and a channel that changes gets new keys by construction.
 */
import { createHash } from 'node:crypto';
import type { SubdirIndex } from '../../repodata/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PlatformSolveInput, PlatformSolveOutcome } from '../solving/types.js';

export interface JobChannel {
  /** The name records carry (`conda-forge`, or the URL without credentials). */
  readonly name: string;
  /** The base URL with its credentials, for loading only (never logged). */
  readonly url: string;
  readonly subdirs: readonly string[];
}

/**
 * The replica's channel policy (src/http/channel-policy.ts): its allowlist as URL prefixes (`*` for
 * any public https channel) and whether local channels are allowed. The worker applies it to every
 * URL it fetches for the job, redirect targets and `base_url` included, as the replica would.
 */
export interface JobPolicy {
  readonly allowed: readonly string[];
  readonly allowLocal: boolean;
}

export interface SolveJobData {
  readonly specs: readonly string[];
  readonly channels: readonly JobChannel[];
  readonly virtualPackages: readonly PackageRecord[];
  readonly channelPriority: PlatformSolveInput['channelPriority'] | null;
  readonly excludeNewer: number | null;
  /** URLs of a previous lock's records the solve keeps where it can (`--lock`). */
  readonly locked: readonly string[] | null;
  /** Absent in jobs of older replicas: `highest`. */
  readonly resolution?: PlatformSolveInput['resolution'];
  readonly timeoutMs: number | null;
  /** Epoch ms after which nobody waits for the answer: a worker that gets the job later skips it. */
  readonly deadline: number | null;
  /** The channel alias the replica parsed names with, so the worker names channels the same way. */
  readonly channelAlias: string | null;
  /** The replica's channel policy; a job without one is refused (the worker fetches nothing unchecked). */
  readonly policy?: JobPolicy | null;
}

export interface SolveJobResult {
  readonly outcome: PlatformSolveOutcome;
  /** The cache key of the indexes the worker actually read (null when one had no identity). */
  readonly key: string | null;
  /** Epoch ms when the worker took the job (for the queue wait time). */
  readonly startedAt: number;
}

type Identity = (index: SubdirIndex) => string | null;

/** The content-addressed cache key of a solve, or null when an index has no known identity. */
export function solveKey(input: PlatformSolveInput, identity: Identity): string | null {
  const channels: unknown[] = [];
  for (const channel of input.channels) {
    const sources: unknown[] = [];
    for (const index of channel.sources) {
      const id = identity(index) ?? (index.recordCount === 0 ? 'empty' : null);
      if (id === null) return null;
      sources.push([index.subdir, id]);
    }
    channels.push([channel.name, sources]);
  }
  const canonical = JSON.stringify([
    1,
    input.specs.map((spec) => spec.source),
    channels,
    input.virtualPackages.map((record) => [record.name, record.version, record.build]),
    input.channelPriority ?? null,
    input.excludeNewer ?? null,
    input.locked ?? null,
    // Only a non-default strategy changes the key, so keys of older replicas stay valid.
    ...(input.resolution && input.resolution !== 'highest' ? [input.resolution] : []),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Rough size of an outcome for the cache's entry bound. */
export function encodeOutcome(outcome: PlatformSolveOutcome): string {
  return JSON.stringify(outcome);
}

/**
 * An outcome read back from Redis, or null when it is not one: anything there may have been written
 * by another program (or a person), and a malformed entry must be a miss, never a 500.
 */
export function decodeOutcome(text: string): PlatformSolveOutcome | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isOutcome(value) ? value : null;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
const isNullable = (value: unknown, check: (v: unknown) => boolean): boolean => value === null || value === undefined || check(value);
const isCount = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

/** The fields of a `PackageRecord` that the exporters and the native result read. */
function isRecord(value: unknown): value is PackageRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    [r.name, r.version, r.build, r.channel, r.subdir, r.fn, r.url].every(isString) &&
    isCount(r.build_number) &&
    isNullable(r.md5, isString) &&
    isNullable(r.sha256, isString) &&
    isNullable(r.size, isCount) &&
    isNullable(r.timestamp, isCount) &&
    isStringList(r.depends) &&
    isStringList(r.constrains) &&
    isStringList(r.track_features)
  );
}

/** Whether a value read back from a cache has an outcome's shape (what `decodeOutcome` checks). */
export function isOutcome(value: unknown): value is PlatformSolveOutcome {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  switch (o.kind) {
    case 'solved':
      return Array.isArray(o.records) && o.records.every(isRecord);
    case 'unsatisfiable':
      return isString(o.message) && typeof o.explanation === 'object' && o.explanation !== null;
    case 'error':
      return isString(o.code) && isString(o.message);
    default:
      return false;
  }
}

/**
 * A cached outcome checked against the request's own indexes: a solved one is served only when
 * every record is one the request's channels have (same channel, subdir, name and URL), and then
 * with the indexes' records, so nothing else of the entry is trusted. Anything else is null (a miss).
 */
export function fromTheseChannels(outcome: PlatformSolveOutcome, input: Pick<PlatformSolveInput, 'channels'>): PlatformSolveOutcome | null {
  if (outcome.kind !== 'solved') return outcome;
  const records: PackageRecord[] = [];
  for (const cached of outcome.records) {
    const index = input.channels
      .find((channel) => channel.name === cached.channel)
      ?.sources.find((source) => source.subdir === cached.subdir);
    let own: PackageRecord | undefined;
    try {
      own = index?.records(cached.name).find((record) => record.url === cached.url && record.fn === cached.fn);
    } catch {
      own = undefined; // a sharded index without that name fetched
    }
    if (!own) return null;
    records.push(own);
  }
  return { kind: 'solved', records };
}
