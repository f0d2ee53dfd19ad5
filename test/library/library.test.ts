/**
 * The package's main entry (`import ... from 'conda-resolve'`), as a developer embedding it uses it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CondaResolveError, exportResolution, resolveEnvironments, toNative } from '../../src/index.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cacheDir = mkdtempSync(join(tmpdir(), 'cr-library-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('resolveEnvironments and exportResolution', () => {
  it('solves several platforms and renders a lock file', async () => {
    const resolution = await resolveEnvironments(
      { specs: ['python=3.12'], channels: [DEMO], platforms: ['linux-64', 'win-64'] },
      { cacheDir, env: {} },
    );
    const native = toNative(resolution);
    expect(native.map((r) => r.platform)).toEqual(['linux-64', 'win-64']);
    expect(native.map((r) => r.packages.find((p) => p.name === 'python')?.version)).toEqual(['3.12.3', '3.12.3']);
    const lock = exportResolution(resolution, 'pixi', { now: new Date('2026-01-01T00:00:00Z') });
    expect(lock.startsWith('version: 6\n')).toBe(true);
    expect(lock).toContain('win-64/python-3.12.3-');
  });

  it('reports an unsolvable platform in its result and refuses to export it', async () => {
    const resolution = await resolveEnvironments(
      { specs: ['linux-only-tool'], channels: [DEMO], platforms: ['linux-64', 'win-64'] },
      { cacheDir, env: {} },
    );
    expect(resolution.platforms.map((p) => p.error === null)).toEqual([true, false]);
    expect(resolution.platforms.map((p) => p.explanation?.spec ?? null)).toEqual([null, 'linux-only-tool']);
    expect(toNative(resolution)[1]!.explanation).toMatchObject({
      spec: 'linux-only-tool',
      requested: ['linux-only-tool'],
      virtual_packages: [],
      excluded: [],
    });
    expect(() => exportResolution(resolution, 'explicit')).toThrow(
      /Cannot export explicit: win-64 did not solve \(linux-only-tool cannot be installed/,
    );
  });

  it('throws a typed error for bad input', async () => {
    const failure = resolveEnvironments({ specs: ['python >=='], channels: [DEMO], platforms: ['linux-64'] }, { cacheDir, env: {} });
    await expect(failure).rejects.toBeInstanceOf(CondaResolveError);
    await expect(failure).rejects.toMatchObject({ code: 'CR_ERR_INPUT_SPEC' });
  });
});
