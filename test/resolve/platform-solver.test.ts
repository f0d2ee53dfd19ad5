/**
 * The CLI's multi-platform solver: this thread first, workers once a solve proves heavy. Either way
 * every platform gets the same answer as solving them all here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { InProcessSolver, ThisThreadThenPoolSolver, type PlatformSolver } from '../../src/platform-solver.js';
import { prepareRequest } from '../../src/request.js';
import { resolvePrepared, toNative } from '../../src/resolve.js';
import { SolvePool, type PoolSolveTask } from '../../src/solve-pool.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function resolveDemo(solver: PlatformSolver) {
  const cacheDir = mkdtempSync(join(tmpdir(), 'cr-platform-solver-'));
  const store = new RepodataStore({ cacheDir, indexBytes: 'positional' });
  cleanups.push(async () => {
    await store.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const request = prepareRequest(
    { specs: ['python=3.12', 'numpy'], channels: [DEMO], platforms: ['linux-64', 'osx-arm64', 'win-64'] },
    { env: {}, cwd: process.cwd(), hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] },
  );
  return toNative(await resolvePrepared(request, { store, solver, env: {} }));
}

/** A pool that counts the solves it is given. */
function countingPool(size: number): { pool: SolvePool; solves: () => number } {
  const pool = new SolvePool({ size });
  cleanups.push(() => pool.close());
  let count = 0;
  const solve = pool.solve.bind(pool);
  pool.solve = (task: PoolSolveTask, signal?: AbortSignal) => {
    count++;
    return solve(task, signal);
  };
  return { pool, solves: () => count };
}

describe('ThisThreadThenPoolSolver', () => {
  it('solves small platforms on this thread alone, starting no worker', async () => {
    const expected = await resolveDemo(new InProcessSolver());
    const { pool, solves } = countingPool(2);
    const results = await resolveDemo(new ThisThreadThenPoolSolver(pool, { parallelAfterMs: 60_000 }));
    expect(results).toEqual(expected);
    expect(results.every((r) => r.error === null && r.packages.some((p) => p.name === 'python'))).toBe(true);
    expect(solves()).toBe(0);
  });

  it('hands platforms to workers once a solve here took longer than the threshold, with the same answers', async () => {
    const expected = await resolveDemo(new InProcessSolver());
    const { pool, solves } = countingPool(1);
    const results = await resolveDemo(new ThisThreadThenPoolSolver(pool, { parallelAfterMs: 0 }));
    expect(results).toEqual(expected);
    expect(solves()).toBeGreaterThanOrEqual(1);
    expect(solves()).toBeLessThanOrEqual(2);
  });
});
