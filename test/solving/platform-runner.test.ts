/**
 * The runners of a platform's solve. The CLI's multi-platform runner: this thread first, workers
 * once a solve proves heavy; either way every platform gets the same answer as solving them all
 * here. And an unsatisfiable platform's structured explanation, carried to its result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { renderExplanation } from '../../solver/index.js';
import { InProcessSolver, ThisThreadThenPoolSolver } from '../../src/solving/platform-runner.js';
import { prepareRequest } from '../../src/request.js';
import { resolvePrepared, toNative } from '../../src/resolve.js';
import { SolvePool } from '../../src/solving/solve-pool.js';
import type { PlatformSolveInput, PlatformSolver } from '../../src/solving/types.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function resolveDemo(solver: PlatformSolver) {
  return toNative(await resolveOnDemo(solver, ['python=3.12', 'numpy'], ['linux-64', 'osx-arm64', 'win-64']));
}

async function resolveOnDemo(solver: PlatformSolver, specs: string[], platforms: string[]) {
  const cacheDir = mkdtempSync(join(tmpdir(), 'cr-platform-solver-'));
  const store = new RepodataStore({ cacheDir, indexBytes: 'positional' });
  cleanups.push(async () => {
    await store.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const request = prepareRequest(
    { specs, channels: [DEMO], platforms },
    { env: {}, cwd: process.cwd(), hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] },
  );
  return resolvePrepared(request, { store, solver, env: {} });
}

/** A pool that counts the solves it is given. */
function countingPool(size: number): { pool: SolvePool; solves: () => number } {
  const pool = new SolvePool({ size });
  cleanups.push(() => pool.close());
  let count = 0;
  const solve = pool.solve.bind(pool);
  pool.solve = (input: PlatformSolveInput, signal?: AbortSignal) => {
    count++;
    return solve(input, signal);
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

describe('the explanation of an unsatisfiable platform', () => {
  it('reaches the PlatformResolution, from this thread and from a worker alike, and the native JSON of the failed platform only', async () => {
    const here = await resolveOnDemo(new InProcessSolver(), ['linux-only-tool'], ['linux-64', 'win-64']);
    const pool = new SolvePool({ size: 1 });
    cleanups.push(() => pool.close());
    const there = await resolveOnDemo(pool, ['linux-only-tool'], ['linux-64', 'win-64']);
    for (const resolution of [here, there]) {
      const [linux, win] = resolution.platforms;
      expect(linux).toMatchObject({ error: null, explanation: null });
      expect(win).toMatchObject({ errorCode: 'CR_ERR_SOLVE_UNSATISFIABLE', explanation: { spec: 'linux-only-tool', specIndex: 0 } });
      // The explanation, then what to do: the platform that has it, the channels searched.
      expect(
        win!.error!.startsWith(`${renderExplanation(win!.explanation!)}. linux-only-tool exists for linux-64. Channels searched: `),
      ).toBe(true);
      expect(Object.keys(toNative(resolution)[0]!)).toEqual(['platform', 'packages', 'error']);
      expect(Object.keys(toNative(resolution)[1]!)).toEqual(['platform', 'packages', 'error', 'explanation']);
      expect(toNative(resolution)[1]!.explanation).toMatchObject({ spec: 'linux-only-tool', tree: win!.explanation });
    }
    expect(there.platforms).toEqual(here.platforms);
  });
});
