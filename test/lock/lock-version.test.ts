/** Which pixi.lock version `-o pixi.lock` writes when no --format says (docs/lock-files.md). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../cli/run-cli.js';
import { chosenPixiLockFormat } from '../../src/lock/lock-version.js';

const V7 = readFileSync(join(import.meta.dirname, '../../fixtures/locks/pypi.v7.pixi.lock'), 'utf8');
const V6 = 'version: 6\nenvironments: {}\npackages: []\n';
const MANIFEST = { filename: 'pixi.toml', content: '[workspace]\nname = "x"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n' };

describe('the pixi.lock version of a file written without --format', () => {
  it("keeps the lock at the path, then --lock's, then the input lock's; a new file is v7 from a manifest, else v6", () => {
    expect(chosenPixiLockFormat({ existing: { filename: 'pixi.lock', content: V6 }, files: [MANIFEST] })).toBe('rattler-lock-v6');
    expect(chosenPixiLockFormat({ lock: { filename: 'pixi.lock', content: V7 }, files: [] })).toBe('rattler-lock-v7');
    expect(chosenPixiLockFormat({ files: [{ filename: 'pixi.lock', content: V7 }] })).toBe('rattler-lock-v7');
    expect(chosenPixiLockFormat({ files: [MANIFEST] })).toBe('rattler-lock-v7');
    expect(chosenPixiLockFormat({ files: [{ filename: 'environment.yml', content: 'dependencies: [python]\n' }] })).toBe('rattler-lock-v6');
  });

  it('-f pixi.lock (v7) -o out/pixi.lock: v7, unless a v6 lock is already there', async () => {
    const dir = tempDir('cr-version-');
    writeFileSync(join(dir, 'pixi.lock'), V7);
    mkdirSync(join(dir, 'new'));
    expect((await runCli(['-q', '-f', 'pixi.lock', '-o', 'new/pixi.lock'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'new/pixi.lock'), 'utf8')).toBe(V7);
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old/pixi.lock'), V6);
    expect((await runCli(['-q', '-f', 'pixi.lock', '-o', 'old/pixi.lock'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'old/pixi.lock'), 'utf8')).toMatch(/^version: 6\n/);
  });
});
