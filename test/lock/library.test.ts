/**
 * The lock lifecycle through the library: a pixi manifest as a file (`environment` picks one), and
 * `lock` / `update` on resolveEnvironments, with the same meaning as the CLI's -e, --lock, --update.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { exportResolution, resolveEnvironments, toNative } from '../../src/index.js';

const DEMO = resolve(import.meta.dirname, '../../fixtures/channels/demo');
const cacheDir = mkdtempSync(join(tmpdir(), 'cr-lock-library-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const manifest = `[workspace]
channels = [${JSON.stringify(DEMO)}]
platforms = ["linux-64"]

[dependencies]
python = "*"

[feature.old.dependencies]
python = "3.10.*"
numpy = "<2"

[environments]
old = ["old"]
`;

const versions = (resolution: Awaited<ReturnType<typeof resolveEnvironments>>) =>
  Object.fromEntries(toNative(resolution)[0]!.packages.map((p) => [p.name, p.version]));

it('a pixi.toml file: the default environment, or the one `environment` names', async () => {
  const files = [{ filename: 'pixi.toml', content: manifest }];
  expect(versions(await resolveEnvironments({ files }, { cacheDir, env: {} })).python).toBe('3.12.3');
  const old = versions(await resolveEnvironments({ files, environment: 'old' }, { cacheDir, env: {} }));
  expect([old.python, old.numpy]).toEqual(['3.10.14', '1.26.4']);
});

it('lock and update: the locked records stay unless updated', async () => {
  const first = await resolveEnvironments(
    { specs: ['python=3.10', 'numpy<2'], channels: [DEMO], platforms: ['linux-64'] },
    { cacheDir, env: {} },
  );
  const lock = { filename: 'pixi.lock', content: exportResolution(first, 'pixi', { now: new Date(0) }) };
  // numpy<2 dropped: numpy stays at its locked 1.26.4 until it is updated.
  const kept = await resolveEnvironments({ specs: ['python=3.10', 'numpy'], lock }, { cacheDir, env: {} });
  expect(versions(kept).numpy).toBe('1.26.4');
  const updated = await resolveEnvironments({ specs: ['python=3.10', 'numpy'], lock, update: ['numpy'] }, { cacheDir, env: {} });
  expect(versions(updated).numpy).toBe('2.0.0');
  expect(versions(updated).python).toBe(versions(first).python);
  await expect(resolveEnvironments({ specs: ['numpy'], lock: 'pixi.lock' as never }, { cacheDir, env: {} })).rejects.toThrow(
    /request\.lock/,
  );
});
