/**
 * Issue 32, item 6: exporter plugins through the built CLI (the bundle `bin.cjs` runs), with a real
 * plugin package in a temporary folder: named in CONDA_RESOLVE_PLUGINS it loads (the bundle could
 * load none: `Cannot find module 'file:///...'`) and each command says it did; one that merely
 * sits in the working directory's node_modules is never run.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { DEMO, spawnCli, tempDir } from './run-cli.js';

let root: string;
let plugin: string;
beforeAll(() => {
  root = tempDir('cr-plugin-cli-');
  plugin = join(root, 'plugins', 'conda-resolve-exporter-toml');
  cpSync(join(PROJECT_ROOT, 'fixtures', 'plugins', 'conda-resolve-exporter-toml'), plugin, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('exporter plugins in the built CLI', () => {
  it('loads a plugin named in CONDA_RESOLVE_PLUGINS, says so, and renders with it', async () => {
    const env = { CONDA_RESOLVE_PLUGINS: plugin };
    const formats = await spawnCli(['formats'], { env });
    expect(formats.stderr).not.toContain('Skipped');
    expect(formats.stderr).toContain(
      `conda-resolve: loaded exporter plugin conda-resolve-exporter-toml 1.4.0 from ${plugin} (formats: toml)`,
    );
    expect(formats.stdout).toMatch(/^ {2}- toml\b/m);
    const resolved = await spawnCli(['python=3.12', '-c', DEMO, '-p', 'linux-64', '--format', 'toml'], { env });
    expect(resolved.stderr).not.toContain('Skipped');
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain('name = "python"');
  });

  it("never runs a plugin that sits in the working directory's node_modules", async () => {
    const project = join(root, 'project');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    cpSync(plugin, join(project, 'node_modules', 'conda-resolve-exporter-toml'), { recursive: true });
    const formats = await spawnCli(['formats'], { cwd: project, env: { CONDA_RESOLVE_PLUGINS: undefined } });
    expect(formats.code).toBe(0);
    expect(formats.stdout).not.toMatch(/^ {2}- toml\b/m);
    expect(formats.stderr).not.toContain('loaded exporter plugin');
  });
});
