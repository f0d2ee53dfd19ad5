import { describe, expect, it } from 'vitest';
import type { SubdirIndex } from '../../repodata/types.js';
import type { Explanation } from '../../solver/index.js';
import { CachingSolver } from '../../src/solving/solve-cache.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PlatformSolveInput, PlatformSolveOutcome, PlatformSolver } from '../../src/solving/types.js';

function index(name: string): SubdirIndex {
  return {
    channel: { name, baseUrl: `https://x/${name}` },
    subdir: 'linux-64',
    names: () => [],
    has: () => false,
    records: () => [],
    recordCount: 10,
  };
}

/** A solver whose solves finish when the test says, counting calls and cancellations. */
class ControlledSolver implements PlatformSolver {
  calls = 0;
  cancelled = 0;
  readonly pending: { resolve: (o: PlatformSolveOutcome) => void; signal?: AbortSignal }[] = [];
  solve(_input: PlatformSolveInput, signal?: AbortSignal): Promise<PlatformSolveOutcome> {
    this.calls++;
    return new Promise((resolve, reject) => {
      signal?.addEventListener('abort', () => {
        this.cancelled++;
        reject(new Error('cancelled'));
      });
      this.pending.push({ resolve, signal });
    });
  }
  finish(outcome: PlatformSolveOutcome = { kind: 'solved', records: [] }): void {
    this.pending.shift()!.resolve(outcome);
  }
}

const a = index('a');
const input = (specs: string[], sources = [a]): PlatformSolveInput => ({
  specs: specs.map((spec) => parseMatchSpec(spec)),
  channels: [{ name: 'a', sources }],
  virtualPackages: [],
  channelPriority: 'strict',
});
/** The cache never looks inside an explanation; it only hands it back. */
const explanation = { spec: 'numpy' } as Explanation;
const tick = () => new Promise((r) => setImmediate(r));

describe('CachingSolver', () => {
  it('answers a repeated solve from the cache and counts hits', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 10 });
    const first = cache.solve(input(['python']));
    await tick();
    inner.finish();
    await first;
    expect(await cache.solve(input(['python']))).toEqual({ kind: 'solved', records: [] });
    expect(inner.calls).toBe(1);
    expect(cache.stats()).toEqual({ entries: 1, hits: 1, misses: 1 });
  });

  it('joins identical solves in flight', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 10 });
    const both = Promise.all([cache.solve(input(['numpy'])), cache.solve(input(['numpy']))]);
    await tick();
    expect(inner.calls).toBe(1);
    const unsatisfiable = { kind: 'unsatisfiable', message: 'no', explanation } as const;
    inner.finish(unsatisfiable);
    expect(await both).toEqual([unsatisfiable, unsatisfiable]);
  });

  it('misses when the index object changes (a reloaded channel) or the request differs', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 10 });
    for (const request of [input(['python']), input(['python'], [index('a')]), input(['python', 'pip'])]) {
      const pending = cache.solve(request);
      await tick();
      inner.finish();
      await pending;
    }
    expect(inner.calls).toBe(3);
  });

  it('does not keep errors (time-outs, internal failures)', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 10 });
    for (let i = 0; i < 2; i++) {
      const pending = cache.solve(input(['python']));
      await tick();
      inner.finish({ kind: 'error', code: 'CR_ERR_SOLVE_TIMEOUT', message: 'late' });
      await pending;
    }
    expect(inner.calls).toBe(2);
  });

  it('cancels a shared solve only when every waiter has given up', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 10 });
    const one = new AbortController();
    const two = new AbortController();
    const first = cache.solve(input(['python']), one.signal).catch((e: Error) => e);
    const second = cache.solve(input(['python']), two.signal).catch((e: Error) => e);
    await tick();
    one.abort(new Error('client left'));
    expect(await first).toBeInstanceOf(Error);
    expect(inner.cancelled).toBe(0);
    two.abort(new Error('client left'));
    expect(await second).toBeInstanceOf(Error);
    await tick();
    expect(inner.cancelled).toBe(1);
  });

  it('evicts the least recently used outcome beyond its size', async () => {
    const inner = new ControlledSolver();
    const cache = new CachingSolver(inner, { maxEntries: 2 });
    for (const spec of ['a', 'b', 'a', 'c', 'a', 'b']) {
      const pending = cache.solve(input([spec]));
      await tick();
      if (inner.pending.length) inner.finish();
      await pending;
    }
    // a, b, (a hit), c evicts b, (a hit), b again
    expect(inner.calls).toBe(4);
    expect(cache.stats().entries).toBe(2);
  });
});
