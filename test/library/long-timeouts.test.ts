/**
 * Issue 32, item 15: a time limit longer than a Node timer can wait (2^31 ms, about 24.8 days) is
 * a long time limit, not one that fires at once with a TimeoutOverflowWarning.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveEnvironments } from '../../src/index.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';

const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});

describe('time limits beyond a timer', () => {
  it.each([2 ** 31, 1e15])('the library solves with timeoutMs %d', async (timeoutMs) => {
    const resolution = await resolveEnvironments(
      { specs: ['python=3.12'], channels: [DEMO], platforms: ['linux-64', 'win-64'] },
      { cacheDir: tempDir(), env: {}, timeoutMs },
    );
    expect(resolution.platforms.map((p) => p.error)).toEqual([null, null]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.startsWith('TimeoutOverflowWarning'))).toEqual([]);
  });

  it('the CLI solves with --timeout 2147484 (seconds)', async () => {
    const { code, stderr } = await runCli(['python=3.12', '-c', DEMO, '-p', 'linux-64', '-p', 'win-64', '--timeout', '2147484']);
    expect(stderr).not.toContain('time limit');
    expect(code).toBe(0);
  });
});
