/**
 * The shard closure of a request: before a solve reads records synchronously, every name reachable
 * from the root names through `depends` (of every record of every reached name, in every index of
 * the request) must have its shards fetched. Records of monolithic indexes are followed too: their
 * dependencies may be in a sharded channel.
 */
import { tryParseMatchSpec } from '../../vocabulary/match-spec.js';
import { followSignal } from '../follow-signal.js';
import { indexIdentity } from '../index-identity.js';
import type { SubdirIndex } from '../types.js';
import { ShardedSubdirIndex } from './sharded-subdir.js';

/** Index sets whose completed closures are remembered (a server sees few distinct channel lists). */
const MAX_REMEMBERED_CLOSURES = 1024;

/**
 * Walks closures and remembers, per set of index objects, the roots whose closure is complete: the
 * same indexes asked again for those roots (a server's next request) are not walked again, since
 * indexes are immutable and shards only get added.
 */
export class ShardClosures {
  /** Root names whose closure is complete, per set of index objects. */
  readonly #done = new Map<string, Set<string>>();

  /**
   * Fetch the shards of the closure of `roots` over `indexes`. Returns false when there was nothing
   * to walk (no sharded index, or every root already complete).
   */
  async complete(indexes: readonly SubdirIndex[], roots: readonly string[], signal: AbortSignal | undefined): Promise<boolean> {
    if (!indexes.some((index) => index instanceof ShardedSubdirIndex)) return false;
    const setKey = indexSetKey(indexes);
    let done = this.#done.get(setKey);
    const todo = done ? roots.filter((name) => !done!.has(name)) : roots;
    if (todo.length === 0) return false;
    await prefetchClosure(indexes, todo, signal);
    if (this.#done.size >= MAX_REMEMBERED_CLOSURES) this.#done.clear();
    if (!done) this.#done.set(setKey, (done = new Set()));
    for (const name of todo) done.add(name);
    return true;
  }
}

/** Identity of the indexes that can contribute records (empty ones are made afresh each time). */
function indexSetKey(indexes: readonly SubdirIndex[]): string {
  return indexes
    .filter((index) => index instanceof ShardedSubdirIndex || index.recordCount > 0)
    .map(indexIdentity)
    .join(',');
}

/**
 * Fetch the shards of every name reachable from `roots`, in every sharded index. Each name is
 * expanded as soon as its own shards are in, so independent branches of the graph overlap instead
 * of waiting for the slowest shard of a breadth-first level.
 */
async function prefetchClosure(
  indexes: readonly SubdirIndex[],
  roots: readonly string[],
  outerSignal: AbortSignal | undefined,
): Promise<void> {
  const sharded = indexes.filter((index): index is ShardedSubdirIndex => index instanceof ShardedSubdirIndex);
  // Every shard wait listens to the signal: hundreds at once for a large closure (follow-signal.ts).
  const { signal, unlink } = followSignal(outerSignal);
  try {
    await walkClosure(indexes, sharded, roots, signal);
  } finally {
    unlink();
  }
  // The walk did not wait for shards to reach the cache; the closure is complete once they have.
  for (const index of sharded) await index.flushSaves();
}

/** The walk of `prefetchClosure`: resolves once every reached name's shards are in. */
function walkClosure(
  indexes: readonly SubdirIndex[],
  sharded: readonly ShardedSubdirIndex[],
  roots: readonly string[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const seen = new Set<string>();
  return new Promise<void>((resolve, reject) => {
    let pending = 0;
    let failed = false;
    const fail = (error: unknown): void => {
      if (!failed) {
        failed = true;
        reject(error);
      }
    };
    const expand = (name: string): void => {
      for (const index of indexes) {
        if (!index.has(name)) continue;
        for (const record of index.records(name)) {
          for (const dep of record.depends) {
            const depName = dependencyName(dep);
            if (depName !== null) visit(depName);
          }
        }
      }
    };
    const visit = (name: string): void => {
      if (failed || seen.has(name)) return;
      seen.add(name);
      const waits = sharded
        .filter((index) => index.has(name) && !index.isLoaded(name))
        .map((index) => index.prefetch([name], { signal, deferCaching: true }));
      if (waits.length === 0) {
        expand(name);
        return;
      }
      pending += 1;
      Promise.all(waits)
        .then(() => {
          if (!failed) expand(name);
        })
        .catch(fail)
        .finally(() => {
          pending -= 1;
          if (pending === 0 && !failed) resolve();
        });
    };
    try {
      signal?.throwIfAborted();
      for (const name of roots) visit(name);
    } catch (error) {
      fail(error);
      return;
    }
    if (pending === 0 && !failed) resolve();
  });
}

/** `depends` strings repeat thousands of times across records: their names are cached. */
const dependencyNames = new Map<string, string | null>();
const SIMPLE_NAME = /^\s*([^\s=<>!~[\](),|;@*:/]+)/;

/** The package name a `depends` entry refers to (`python >=3.9` -> `python`), or null. */
export function dependencyName(dep: string): string | null {
  let name = dependencyNames.get(dep);
  if (name !== undefined) return name;
  if (dep.includes('::') || dep.includes('/')) {
    // A channel-qualified spec: let the match-spec parser find the name.
    const parsed = tryParseMatchSpec(dep);
    name = parsed && parsed.nameIsExact && parsed.name !== '*' ? parsed.name : null;
  } else {
    name = SIMPLE_NAME.exec(dep)?.[1] ?? null;
  }
  if (dependencyNames.size >= 100_000) dependencyNames.clear();
  dependencyNames.set(dep, name);
  return name;
}
