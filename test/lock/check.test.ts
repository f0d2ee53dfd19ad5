/**
 * `--check --lock FILE`: exit 0 while the lock satisfies the request, 1 with the reason once a spec
 * is added, a channel changed or a platform added; no solve and no repodata (the runs are offline
 * with an empty cache, and a changed channel is never contacted).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { pathToFileURL } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { runCli, tempDir } from '../cli/run-cli.js';

describeShared('--check --lock on the shared conda-forge snapshot', () => {
  const forge = pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href;
  const dir = tempDir('cr-check-');
  const base = ['-q', '-c', forge, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9'];

  beforeAll(async () => {
    for (const name of ['pixi.lock', 'conda-lock.yml']) {
      expect((await runCli([...base, '--exclude-newer', '2023-01-01', '-o', name], { cwd: dir })).code).toBe(0);
    }
  });

  const check = (args: string[], lock: string) => runCli([...args, '--lock', lock, '--check', '--offline'], { cwd: dir });

  it.each(['pixi.lock', 'conda-lock.yml'])(
    '%s: exit 0 for the request it was made from, offline, and with the request as given by the lock',
    async (lock) => {
      const same = await check(base, lock);
      expect(same.stderr).toBe('');
      expect(same.code).toBe(0);
      // No -c and no -p: the lock's own channels and platforms.
      const bare = await runCli(['python=3.9', '--lock', lock, '--check', '--offline'], { cwd: dir });
      expect(bare.stderr).toBe(`conda-resolve: ${lock} satisfies the request (linux-64, osx-arm64)\n`);
      expect(bare.code).toBe(0);
    },
  );

  it.each(['pixi.lock', 'conda-lock.yml'])('%s: exit 1 naming the reason after a spec is added', async (lock) => {
    const { code, stderr } = await check([...base, 'openssl>=3.1'], lock);
    expect(code).toBe(1);
    expect(stderr).toMatch(/linux-64: the spec "openssl>=3\.1" is not met by the locked openssl 3\.0\.\d+ /);
    expect(stderr).toMatch(/osx-arm64: the spec "openssl>=3\.1" is not met/);
    const absent = await check([...base, 'numpy'], lock);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('linux-64: the spec "numpy" is not met: the lock has no numpy');
  });

  it.each(['pixi.lock', 'conda-lock.yml'])('%s: exit 1 after a channel is changed (never contacted)', async (lock) => {
    const other = 'http://127.0.0.1:9/unreachable-channel';
    const { code, stderr } = await check(['-q', '-c', other, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9'], lock);
    expect(code).toBe(1);
    expect(stderr).toContain(`the channels differ: the request has ${other}, the lock ${forge}`);
    const added = await check(['-q', '-c', forge, '-c', other, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.9'], lock);
    expect(added.code).toBe(1);
  });

  it.each(['pixi.lock', 'conda-lock.yml'])('%s: exit 1 after a platform is added', async (lock) => {
    const { code, stderr } = await check([...base, '-p', 'win-64'], lock);
    expect(code).toBe(1);
    expect(stderr).toContain('the lock has no win-64 (it locks linux-64, osx-arm64)');
  });

  it('exit 1 when the locked dependencies are not closed', async () => {
    const doc = yaml.load(readFileSync(join(dir, 'pixi.lock'), 'utf8')) as {
      environments: { default: { packages: Record<string, { conda: string }[]> } };
    };
    const linux = doc.environments.default.packages['linux-64']!;
    doc.environments.default.packages['linux-64'] = linux.filter((ref) => !ref.conda.includes('/openssl-'));
    writeFileSync(join(dir, 'broken.lock'), yaml.dump(doc));
    const { code, stderr } = await check(base, 'broken.lock');
    expect(code).toBe(1);
    expect(stderr).toMatch(/linux-64: python 3\.9\.\d+ \S+ depends on "openssl >=3\.0\.\d+,<4\.0a0", which the lock does not hold/);
    expect(stderr).not.toContain('osx-arm64:');
  });

  it('--check without --lock is a usage error', async () => {
    const alone = await runCli([...base, '--check'], { cwd: dir });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('Cannot use --check without --lock');
  });
});
