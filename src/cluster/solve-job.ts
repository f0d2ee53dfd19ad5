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

export function decodeOutcome(text: string): PlatformSolveOutcome | null {
  try {
    const value = JSON.parse(text) as { kind?: unknown };
    return value && (value.kind === 'solved' || value.kind === 'unsatisfiable' || value.kind === 'error') ? (value as PlatformSolveOutcome) : null;
  } catch {
    return null;
  }
}
