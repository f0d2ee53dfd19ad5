/**
 * PyPI packages of a lock survive: kept as records (native JSON with `manager: pip`), written into
 * pixi.lock (v6, v7) and conda-lock.yml on a transcode and back, counted by `diff`, shown by `tree`
 * and `why` with their `requires_dist` edges, checked by `--check`, and warned about (per chosen
 * environment) only where a format cannot hold them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../cli/run-cli.js';
import { readLockFile } from '../../src/locks/lock-file.js';

const V7 = readFileSync(join(import.meta.dirname, '../../fixtures/locks/pypi.v7.pixi.lock'), 'utf8');
const env = { SOURCE_DATE_EPOCH: '1700000000' };

function lockDir(text = V7): string {
  const dir = tempDir('cr-pypi-');
  writeFileSync(join(dir, 'pixi.lock'), text);
  return dir;
}

describe('PyPI packages of a lock', () => {
  it('are in the native JSON result with manager pip, after the conda packages', async () => {
    const { code, stdout } = await runCli(['-q', '-f', 'pixi.lock', '-p', 'linux-64'], { cwd: lockDir() });
    expect(code).toBe(0);
    const [result] = JSON.parse(stdout) as { packages: { name: string; manager: string; version: string | null }[] }[];
    expect(result!.packages.map((p) => [p.name, p.manager])).toEqual([
      ['python', 'conda'],
      ['tzdata', 'conda'],
      ['local-pkg', 'pip'],
      ['requests', 'pip'],
      ['urllib3', 'pip'],
    ]);
  });

  it('go into conda-lock.yml as manager: pip with dependencies and hash, and come back', async () => {
    const dir = lockDir();
    const conda = await runCli(['-q', '-f', 'pixi.lock', '-p', 'linux-64', '--format', 'conda-lock', '-o', 'conda-lock.yml'], {
      cwd: dir,
      env,
    });
    expect(conda.code).toBe(0);
    const text = readFileSync(join(dir, 'conda-lock.yml'), 'utf8');
    const entries = (yaml.load(text) as { package: Record<string, unknown>[] }).package;
    expect(entries.map((e) => [e.name, e.manager])).toEqual([
      ['python', 'conda'],
      ['tzdata', 'conda'],
      ['local-pkg', 'pip'],
      ['requests', 'pip'],
      ['urllib3', 'pip'],
    ]);
    expect(entries[3]).toEqual({
      name: 'requests',
      version: '2.31.0',
      manager: 'pip',
      platform: 'linux-64',
      dependencies: { urllib3: '>=1.21.1,<3' },
      url: 'https://files.pythonhosted.org/packages/8c/40/requests-2.31.0-py3-none-any.whl',
      hash: { sha256: '942c5a758f98d790eaed1a29cb6eefc7f0edf3fcb0fce8aea3fbd5951d1cae1b' },
      category: 'main',
      optional: false,
    });
    const back = readLockFile('conda-lock.yml', text).environments.get('default')!;
    expect(back.pypi.get('linux-64')!.map((r) => [r.name, r.version, r.requires_dist])).toEqual([
      ['local-pkg', null, []],
      ['requests', '2.31.0', ['urllib3>=1.21.1,<3']],
      ['urllib3', '2.2.1', []],
    ]);
  });

  it('go into pixi.lock v6 (with the indexes) and v7 on a transcode', async () => {
    const dir = lockDir();
    const v6 = await runCli(['-q', '-f', 'pixi.lock', '--format', 'pixi'], { cwd: dir });
    const doc = yaml.load(v6.stdout) as {
      environments: Record<string, { indexes?: string[]; packages: Record<string, Record<string, string>[]> }>;
      packages: Record<string, unknown>[];
    };
    expect(doc.environments.default!.indexes).toEqual(['https://pypi.org/simple']);
    expect(doc.environments.default!.packages['linux-64']!.filter((p) => p.pypi).map((p) => p.pypi)).toHaveLength(3);
    expect(doc.packages.find((p) => p.name === 'requests')).toMatchObject({ version: '2.31.0', requires_python: '>=3.7' });
    const reread = readLockFile('pixi.lock', v6.stdout).environments.get('default')!;
    expect(reread.pypi.get('linux-64')!.map((r) => r.name)).toEqual(['local-pkg', 'requests', 'urllib3']);
    // The whole lock in v7 again, every environment, no -e: the same file.
    const v7 = await runCli(['-q', '-f', 'pixi.lock', '--format', 'pixi-lock-v7'], { cwd: dir });
    expect(v7.stdout).toBe(V7);
  });

  it("make an explicit export fail as conda's own exporter does, for the chosen environment only", async () => {
    const two = V7.replace(
      'environments:\n',
      'environments:\n  bare:\n    channels:\n    - url: https://conda.anaconda.org/conda-forge/\n    packages:\n      linux-64:\n      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2024b-hc8b5060_0.conda\n',
    );
    const dir = lockDir(two);
    const bare = await runCli(['-f', 'pixi.lock', '-e', 'bare', '--format', 'explicit'], { cwd: dir });
    expect(bare.code).toBe(0);
    expect(bare.stderr).not.toContain('PyPI');
    const main = await runCli(['-f', 'pixi.lock', '-p', 'linux-64', '--format', 'explicit'], { cwd: dir });
    expect(main.code).not.toBe(0);
    expect(main.stderr).toContain('environment contains external packages that cannot be represented in explicit format');
  });

  it('are counted by diff', async () => {
    const dir = lockDir();
    writeFileSync(join(dir, 'new.lock'), V7.replaceAll('urllib3-2.2.1', 'urllib3-2.2.2').replace('version: 2.2.1', 'version: 2.2.2'));
    const { code, stdout } = await runCli(['diff', 'pixi.lock', 'new.lock', '-p', 'linux-64'], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toBe('linux-64: 1 upgraded\n  upgraded  urllib3 (pypi)  2.2.1  ->  2.2.2\n');
  });

  it('are shown by tree and why, with the edges requires_dist gives', async () => {
    const dir = lockDir();
    const tree = await runCli(['tree', '-f', 'pixi.lock', '-p', 'linux-64'], { cwd: dir });
    expect(tree.code).toBe(0);
    expect(tree.stdout).toContain('requests 2.31.0 pypi [requests]\n└─ urllib3 2.2.1 pypi [urllib3>=1.21.1,<3]\n');
    const why = await runCli(['why', 'urllib3', '-f', 'pixi.lock', '-p', 'linux-64'], { cwd: dir });
    expect(why.stdout).toContain('-> urllib3 2.2.1 pypi  (requests depends on urllib3>=1.21.1,<3)');
  });

  it('are checked by --check: a requirement the lock does not hold is named', async () => {
    const broken = V7.replace('  - urllib3>=1.21.1,<3\n', '  - urllib3>=1.21.1,<3\n  - idna>=2.5,<4\n');
    const dir = lockDir(broken);
    const check = await runCli(['-f', 'pixi.lock', '--lock', 'pixi.lock', '--check', '-p', 'linux-64', '-p', 'osx-arm64'], { cwd: dir });
    expect(check.stderr).toContain('requests 2.31.0 (pypi) requires "idna>=2.5,<4", which the lock does not hold');
  });
});
