/**
 * pixi.lock v7 named platforms that share a subdir (issue 37): pixi names a platform of the manifest
 * that is not a plain subdir `p1`, `p2`... with its `subdir` and virtual packages, and two of them
 * may target one subdir (prefix-dev/pixi `examples/multi-machine`: `linux-64` and `p2` with CUDA).
 * The two stay keyed by the lock's platform names (a named platform alone on its subdir is keyed by
 * the subdir, as before); the subdir is used where conda needs one; v7 is written back byte for
 * byte; formats that name a platform by subdir refuse two of one subdir.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockExportEnvironments, readLockFile } from '../../src/locks/lock-file.js';
import { lockPlatformSubdir } from '../../src/locks/facts.js';
import { exportRattlerLockV7 } from '../../src/locks/pixi-lock/write-v7.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { thirdPartyPath } from '../helpers/third-party.js';

const FIXTURE = join(import.meta.dirname, '../../fixtures/locks/named-platforms.v7.pixi.lock');
const TEXT = readFileSync(FIXTURE, 'utf8');
const MAPPING = join(import.meta.dirname, '../../fixtures/pypi-mapping/conda-forge.json');
const OSV = join(import.meta.dirname, '../../fixtures/osv/own');
// prefix-dev/pixi's examples/multi-machine/pixi.lock (test/THIRD-PARTY-DATA.md): absent here, skipped.
const MULTI_MACHINE = thirdPartyPath('pixi/examples/multi-machine/pixi.lock');

describe('reading a v7 lock with two named platforms of one subdir', () => {
  const env = readLockFile('pixi.lock', TEXT).environments.get('default')!;

  it("keys the records of two platforms of one subdir by the lock's platform names, each with its subdir", () => {
    expect([...env.platforms.keys()]).toEqual(['gpu-box', 'linux-64', 'osx-arm64']);
    expect(['gpu-box', 'linux-64', 'osx-arm64'].map((p) => lockPlatformSubdir(env.details, p))).toEqual([
      'linux-64',
      'linux-64',
      'osx-arm64',
    ]);
    expect(env.platforms.get('gpu-box')!.map((r) => r.build)).toEqual(['cuda124_h0a1b2c3_0', 'pyh4f5e6d7_0']);
    expect(env.platforms.get('linux-64')!.map((r) => r.build)).toEqual(['cpu_h9f8e7d6_0', 'pyh4f5e6d7_0']);
  });

  it('is written back as v7 byte for byte', () => {
    expect(exportRattlerLockV7(lockExportEnvironments(readLockFile('pixi.lock', TEXT)))).toBe(TEXT);
  });

  it('refuses a named platform without a conda subdir', () => {
    expect(() => readLockFile('pixi.lock', TEXT.replace('  subdir: osx-arm64\n', ''))).toThrow(
      'platforms[2]: platform "mac" has no conda subdir ("mac" is not one; a named platform gives its "subdir")',
    );
  });
});

describe('every command that takes such a lock', () => {
  const dir = tempDir('cr-named-');
  const lock = join(dir, 'pixi.lock');
  writeFileSync(lock, TEXT);

  it('-f to rattler-lock-v7: the same file', async () => {
    const run = await runCli(['-f', lock, '--format', 'rattler-lock-v7']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(TEXT);
  });

  it('-f to conda-lock-v1: two platforms of linux-64 cannot both be written (a platform there is a subdir), naming both', async () => {
    const run = await runCli(['-f', lock, '--format', 'conda-lock-v1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Cannot export conda-lock-v1: the platforms "gpu-box" and "linux-64" both target linux-64, and conda-lock-v1 names a platform by its subdir only; choose which to export with --platform (gpu-box or linux-64)',
    );
    const v6 = await runCli(['-f', lock, '--format', 'rattler-lock-v6']);
    expect(v6.code).toBe(1);
    expect(v6.stderr).toContain('both target linux-64');
  });

  it('-f to conda-lock-v1 with --platform choosing one: named platforms written as their subdirs', async () => {
    const run = await runCli(['-f', lock, '--format', 'conda-lock-v1', '--platform', 'gpu-box', '--platform', 'osx-arm64']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('  platforms:\n    - linux-64\n    - osx-arm64\n');
    expect(run.stdout).toContain('kettle-2.1.0-cuda124_h0a1b2c3_0.conda');
    expect(run.stdout).not.toContain('cpu_h9f8e7d6_0');
    expect(run.stdout).not.toMatch(/platform: gpu-box/);
  });

  it("-f to explicit: the named platform's subdir on the platform line", async () => {
    const run = await runCli(['-f', lock, '--format', 'explicit', '--platform', 'gpu-box']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('# platform: linux-64\n');
    expect(run.stdout).toContain('/linux-64/kettle-2.1.0-cuda124_h0a1b2c3_0.conda');
  });

  it("native JSON and an SBOM name the lock's platforms", async () => {
    const json = await runCli(['-f', lock]);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { platform: string }[]).map((p) => p.platform)).toEqual(['gpu-box', 'linux-64', 'osx-arm64']);
    const sbom = await runCli(['-f', lock, '--format', 'cyclonedx-json']);
    expect(sbom.code, sbom.stderr).toBe(0);
    expect(sbom.stdout).toContain('"value": "gpu-box"');
  });

  it('--check: the named platform checked with its own virtual packages (__cuda from the lock)', async () => {
    const run = await runCli(['kettle', '--lock', lock, '--check', '-c', 'conda-forge']);
    expect(run.stderr).toContain('satisfies the request (gpu-box, linux-64, osx-arm64)');
    expect(run.code).toBe(0);
  });

  it('diff and audit', async () => {
    const other = join(dir, 'other.pixi.lock');
    // teacup no longer on gpu-box.
    writeFileSync(
      other,
      TEXT.replace(
        '      - conda: https://conda.anaconda.org/conda-forge/noarch/teacup-0.3.1-pyh4f5e6d7_0.conda\n      linux-64:',
        '      linux-64:',
      ),
    );
    const diff = await runCli(['diff', lock, other]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/gpu-box[\s\S]*teacup/);
    const audit = await runCli(['audit', '-f', lock, '--db', OSV, '--pypi-mapping', `conda-forge=${MAPPING}`, '--json']);
    expect(audit.stderr).not.toContain('unknown platform');
    expect((JSON.parse(audit.stdout) as { platforms: { platform: string }[] }).platforms.map((p) => p.platform)).toEqual([
      'gpu-box',
      'linux-64',
      'osx-arm64',
    ]);
  });

  it.skipIf(MULTI_MACHINE === undefined)(
    "pixi's multi-machine example: -f to every format that can hold it, and v7 byte for byte",
    async () => {
      const text = readFileSync(MULTI_MACHINE!, 'utf8');
      const real = join(dir, 'multi.pixi.lock');
      writeFileSync(real, text);
      expect((await runCli(['-f', real, '--format', 'rattler-lock-v7'])).stdout).toBe(text);
      const explicit = await runCli(['-f', real, '--format', 'explicit', '--platform', 'p2']);
      expect(explicit.code, explicit.stderr).toBe(0);
      expect(explicit.stdout).toContain('# platform: linux-64');
      const condaLock = await runCli([
        '-f',
        real,
        '--format',
        'conda-lock-v1',
        '--platform',
        'p1',
        '--platform',
        'p2',
        '--platform',
        'osx-arm64',
      ]);
      expect(condaLock.code, condaLock.stderr).toBe(0);
      expect(condaLock.stdout).toContain('  platforms:\n    - linux-64\n    - osx-arm64\n    - win-64\n');
      const refused = await runCli(['-f', real, '--format', 'conda-lock-v1']);
      expect(refused.stderr).toContain('both target linux-64');
    },
  );
});
