/**
 * Plugins: an npm package installed beside conda-resolve, or named in CONDA_RESOLVE_PLUGINS, adds
 * exporters with no change to conda-resolve; one that merely sits in the working directory's
 * node_modules (or a parent's) is never run (issue 32). The fixture packages in fixtures/plugins are
 * copied into temporary node_modules folders.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DuplicateExporterError } from '../../src/exporters/registry.js';
import { discoverPlugins, loadRegistry } from '../../src/exporters/plugins.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { CONTEXT, solvedEnvironments } from './reference-records.js';

const FIXTURES = join(PROJECT_ROOT, 'fixtures/plugins');
const BUILTIN_NAMES = [
  'conda-lock-v1',
  'cyclonedx-json',
  'environment-json',
  'environment-yaml',
  'explicit',
  'pylock',
  'rattler-lock-v6',
  'rattler-lock-v7',
  'requirements',
  'spdx-json',
];

let root: string;
/** A folder standing for conda-resolve's install location, with nothing installed above it. */
let install: string;
/** The user's project, where commands run. */
let project: string;
/** The node_modules conda-resolve is installed in. */
let installed: string;

async function installPlugin(nodeModules: string, fixture: string, as = fixture): Promise<void> {
  await mkdir(join(nodeModules, ...as.split('/').slice(0, -1)), { recursive: true });
  await cp(join(FIXTURES, fixture), join(nodeModules, as), { recursive: true });
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'conda-resolve-plugins-'));
  installed = join(root, 'tool', 'node_modules');
  install = join(installed, 'conda-resolve');
  project = join(root, 'project');
  await mkdir(install, { recursive: true });
  await mkdir(join(project, 'node_modules'), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('loadRegistry with plugins', () => {
  it('has exactly the built-in exporters when no plugin is installed', async () => {
    const { registry, warnings, plugins } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(registry.names()).toEqual(BUILTIN_NAMES);
    expect(warnings).toEqual([]);
    expect(plugins).toEqual([]);
  });

  it("never runs a package that merely sits in the project's node_modules or a parent's, unless named", async () => {
    await installPlugin(join(project, 'node_modules'), 'conda-resolve-exporter-toml');
    await installPlugin(join(project, 'sub', 'node_modules'), 'conda-resolve-exporter-broken');
    const cwd = join(project, 'sub', 'dir');
    const unnamed = await loadRegistry({ env: {}, cwd, searchFrom: install });
    expect(unnamed.plugins).toEqual([]);
    expect(unnamed.warnings).toEqual([]);
    expect(unnamed.registry.names()).toEqual(BUILTIN_NAMES);
    const named = await loadRegistry({ env: { CONDA_RESOLVE_PLUGINS: 'conda-resolve-exporter-toml' }, cwd: project, searchFrom: install });
    expect(named.registry.has('toml')).toBe(true);
  });

  it('adds an exporter from a package installed beside conda-resolve, which then renders', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-toml');
    const { registry, warnings, plugins } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toEqual([]);
    expect(plugins).toEqual([expect.objectContaining({ name: 'conda-resolve-exporter-toml', version: '1.4.0', exporters: ['toml'] })]);
    expect(registry.names()).toEqual([...BUILTIN_NAMES, 'toml'].sort());
    expect(registry.allNames()).toContain('packages-toml');

    const toml = registry.get('toml');
    // Normalised as conda does (`TOML` -> `toml`), media type inferred from `packages.lock.toml`.
    expect(toml).toMatchObject({ plugin: 'conda-resolve-exporter-toml', category: 'lockfile', mediaType: 'application/toml' });
    expect(registry.detect('out/packages.lock.toml').name).toBe('toml');

    expect(registry.get('packages-toml').name).toBe('toml');
    const text = registry.render('packages-toml', solvedEnvironments(['conda-forge']), CONTEXT);
    expect(text.startsWith('# created-by: conda-resolve 1.2.3\nplatforms = ["linux-64", "osx-arm64"]\n')).toBe(true);
    expect(text).toContain('name = "tzdata"');
    expect(text.endsWith('"\n')).toBe(true); // trailing blank lines cut to one newline
  });

  it("finds plugins installed beside conda-resolve (its install location's node_modules)", async () => {
    await installPlugin(join(root, 'tool', 'node_modules'), 'conda-resolve-exporter-toml');
    const { registry } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(registry.has('toml')).toBe(true);
  });

  it('finds scoped plugin packages', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-toml', '@acme/conda-resolve-exporter-toml');
    const { registry } = await loadRegistry({ env: {}, cwd: join(project, 'sub', 'dir'), searchFrom: install });
    expect(registry.has('toml')).toBe(true);
  });

  it('skips a plugin outside the supported API range with a warning, without loading its code', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-future');
    await installPlugin(installed, 'conda-resolve-exporter-toml');
    const { registry, warnings } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toEqual([
      'Skipped exporter plugin conda-resolve-exporter-future 3.0.0: it needs exporter API ^2.0.0, and this conda-resolve provides 1.1.0',
    ]);
    expect(registry.names()).toEqual([...BUILTIN_NAMES, 'toml'].sort());
  });

  it('skips a plugin whose module fails to load, naming it', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-broken');
    const { registry, warnings } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Skipped exporter plugin conda-resolve-exporter-broken 0\.0\.1: cannot load .*exporters\.js: /);
    expect(registry.names()).toEqual(BUILTIN_NAMES);
  });

  it('skips a plugin that does not export a list of exporters, naming it', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-not-a-list');
    const { registry, warnings } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toEqual([
      'Skipped exporter plugin conda-resolve-exporter-not-a-list 0.2.0: it must export "exporters", a list of exporters, not a value of type object',
    ]);
    expect(registry.names()).toEqual(BUILTIN_NAMES);
  });

  it('skips a plugin with an invalid exporter (neither export nor exportMultiplatform)', async () => {
    const dir = join(installed, 'conda-resolve-exporter-half');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'conda-resolve-exporter-half',
        version: '1.0.0',
        type: 'module',
        'conda-resolve': { exporters: 'index.js', api: '^1' },
      }),
    );
    await writeFile(join(dir, 'index.js'), "export default [{ name: 'ok', export: () => 'x' }, { name: 'half' }];\n");
    const { registry, warnings } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toEqual([
      'Skipped exporter plugin conda-resolve-exporter-half 1.0.0: Cannot register exporter "half" from plugin conda-resolve-exporter-half: exactly one of "export" and "exportMultiplatform" must be set',
    ]);
    // Nothing of a rejected plugin is registered, not even its valid exporters.
    expect(registry.has('ok')).toBe(false);
  });

  it('skips a package whose declaration lacks the api range', async () => {
    const dir = join(installed, 'conda-resolve-exporter-noapi');
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'conda-resolve-exporter-noapi', 'conda-resolve': { exporters: 'x.js' } }),
    );
    const { warnings } = await loadRegistry({ env: {}, cwd: project, searchFrom: install });
    expect(warnings).toEqual([
      'Skipped exporter plugin conda-resolve-exporter-noapi: its package.json "conda-resolve" field must state the "api" range it supports',
    ]);
  });

  it('refuses to start when a plugin claims a name or alias that is taken, naming both', async () => {
    await installPlugin(installed, 'conda-resolve-exporter-clash');
    const loading = loadRegistry({ env: {}, cwd: project, searchFrom: install });
    await expect(loading).rejects.toBeInstanceOf(DuplicateExporterError);
    await expect(loading).rejects.toThrow(
      "Format name conflicts detected in environment exporters.\nMultiple plugins cannot use the same name or alias:\n  - 'yml' name or alias used by plugins: environment-yaml (conda-resolve), yaml-plus (conda-resolve-exporter-clash)",
    );
  });

  it('loads modules and packages named in CONDA_RESOLVE_PLUGINS, and warns about ones it cannot find', async () => {
    const elsewhere = join(root, 'elsewhere');
    await installPlugin(elsewhere, 'conda-resolve-exporter-toml');
    const env = {
      CONDA_RESOLVE_PLUGINS: ` ${join(FIXTURES, 'csv-exporter.mjs')}, ${join(elsewhere, 'conda-resolve-exporter-toml')} ,no-such-plugin,`,
    };
    const { registry, warnings, plugins } = await loadRegistry({ env, cwd: project, searchFrom: install });
    expect(plugins.map((p) => p.exporters)).toEqual([['csv'], ['toml']]);
    expect(warnings).toEqual([`Skipped exporter plugin no-such-plugin (CONDA_RESOLVE_PLUGINS): cannot find it from ${project}`]);
    expect(registry.get('csv').mediaType).toBe('text/csv; charset=utf-8');
    const text = registry.render('csv', solvedEnvironments([]), CONTEXT);
    expect(text.split('\n')[0]).toBe('platform,name,version,build,url');
    expect(text.split('\n')).toHaveLength(2 * 4 + 1); // header+3 rows per platform, joined, final newline
    expect(registry.detect('env.packages.csv').name).toBe('csv');
  });

  it('resolves a package name in CONDA_RESOLVE_PLUGINS through the node_modules folders', async () => {
    await installPlugin(join(project, 'node_modules'), 'conda-resolve-exporter-toml');
    const { candidates } = await discoverPlugins({
      env: { CONDA_RESOLVE_PLUGINS: 'conda-resolve-exporter-toml' },
      cwd: project,
      searchFrom: install,
    });
    // Named and installed: found once.
    expect(candidates.map((c) => c.name)).toEqual(['conda-resolve-exporter-toml']);
  });

  it("scans this checkout's own node_modules without finding or breaking anything", async () => {
    const { registry, warnings } = await loadRegistry({ env: {}, cwd: project });
    expect(warnings).toEqual([]);
    expect(registry.names()).toEqual(BUILTIN_NAMES);
  });
});
