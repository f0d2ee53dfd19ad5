/**
 * A pixi workspace (pixi.toml with two environments, target-specific dependencies and a system
 * requirement) locked into one pixi.lock on the shared conda-forge snapshot, each environment
 * checked record by record against the channel files; then the lifecycle on it: re-lock unchanged
 * (byte-identical), --check, --update with the manifest's exclude-newer dropped, --diff.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { beforeAll, expect, it } from 'vitest';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { parseVersion } from '../../vocabulary/version.js';
import { virtualPackages } from '../../vocabulary/virtual-packages.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { channelRecord, environmentProblems, isRequired, loadChannelFiles, type ChannelFiles } from '../helpers/channel-files.js';
import { runCli, tempDir } from '../cli/run-cli.js';

interface PixiLock {
  version: number;
  environments: Record<string, { channels: { url: string }[]; packages: Record<string, { conda: string }[]> }>;
  packages: { conda: string }[];
}

describeShared('a pixi.toml workspace locked into one pixi.lock (shared conda-forge snapshot)', () => {
  const channelDir = join(CHANNELS_DIR, 'conda-forge-py39');
  const forge = pathToFileURL(channelDir).href;
  const manifest = (extra: { workspace?: string; testDeps?: string; platforms?: string } = {}) => `[workspace]
name = "demo"
channels = ["${forge}"]
platforms = [${extra.platforms ?? '"linux-64", "osx-arm64"'}]
${extra.workspace ?? ''}

[dependencies]
python = "3.9.*"

[target.linux-64.dependencies]
openssl = "<3"

[target.osx.dependencies]
readline = "*"
zstd = "*"

[feature.test.dependencies]
setuptools = "<60"
${extra.testDeps ?? ''}

[feature.test.target.linux-64.dependencies]
libffi = "<3.4"

[feature.test.system-requirements]
macos = "10.8"

[environments]
test = ["test"]
`;
  // What each environment asks for on each platform (the manifest above, read by hand).
  const expected: Record<string, Record<string, string[]>> = {
    default: { 'linux-64': ['python 3.9.*', 'openssl <3'], 'osx-arm64': ['python 3.9.*', 'readline', 'zstd'] },
    test: {
      'linux-64': ['python 3.9.*', 'openssl <3', 'setuptools <60', 'libffi <3.4'],
      'osx-arm64': ['python 3.9.*', 'readline', 'zstd', 'setuptools <60'],
    },
  };
  const dir = tempDir('cr-workspace-');
  let files: ChannelFiles;
  let lockText: string;
  let lock: PixiLock;

  const recordsOf = (doc: PixiLock, environment: string, platform: string): PackageRecord[] =>
    doc.environments[environment]!.packages[platform]!.map((p) => channelRecord(files, p.conda));

  beforeAll(async () => {
    files = loadChannelFiles(channelDir, ['linux-64', 'osx-arm64', 'noarch']);
    writeFileSync(join(dir, 'pixi.toml'), manifest());
    const made = await runCli(['-q', '-f', 'pixi.toml', '-o', 'pixi.lock'], { cwd: dir });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    lockText = readFileSync(join(dir, 'pixi.lock'), 'utf8');
    lock = yaml.load(lockText) as PixiLock;
  });

  it('one pixi.lock v7 (a new lock from a pixi manifest) with both environments, each platform, each package listed once', () => {
    expect(lock.version).toBe(7);
    expect(lockText).toMatch(/^version: 7\nplatforms:\n- name: linux-64\n- name: osx-arm64\nenvironments:\n/);
    expect(Object.keys(lock.environments)).toEqual(['default', 'test']);
    for (const environment of Object.values(lock.environments)) {
      // pixi writes a channel as its URL with a trailing slash.
      expect(environment.channels).toEqual([{ url: `${forge}/` }]);
      expect(Object.keys(environment.packages)).toEqual(['linux-64', 'osx-arm64']);
    }
    const listed = lock.packages.map((p) => p.conda);
    expect(new Set(listed).size).toBe(listed.length);
    const referenced = new Set(
      Object.values(lock.environments).flatMap((e) => Object.values(e.packages).flatMap((l) => l.map((p) => p.conda))),
    );
    expect(new Set(listed)).toEqual(referenced);
  });

  it.each(['default', 'test'])(
    'environment %s: valid for its specs on each platform, record by record against the channel files',
    (environment) => {
      for (const platform of ['linux-64', 'osx-arm64']) {
        const records = recordsOf(lock, environment, platform);
        expect(environmentProblems(records), `${environment} ${platform}`).toEqual([]);
        for (const spec of expected[environment]![platform]!) {
          const match = parseMatchSpec(spec);
          const record = records.find((r) => r.name === match.name);
          expect(record && match.matches(record), `${environment} ${platform}: ${spec}`).toBe(true);
        }
      }
      // Target-specific specs stay on their platforms: osx gets the newest openssl, linux no readline spec
      // of its own, and the test feature's libffi pin does not reach the default environment.
      const osxOpenssl = recordsOf(lock, environment, 'osx-arm64').find((r) => r.name === 'openssl')!;
      expect(parseVersion(osxOpenssl.version).compare(parseVersion('3'))).toBeGreaterThan(0);
      if (environment === 'default') {
        const libffi = recordsOf(lock, 'default', 'linux-64').find((r) => r.name === 'libffi')!;
        expect(parseVersion(libffi.version).compare(parseVersion('3.4'))).toBeGreaterThanOrEqual(0);
      }
    },
  );

  it('system-requirements are the virtual packages: the test environment only holds records a macOS 10.8 allows', () => {
    const [osx] = virtualPackages('osx-arm64', {}, ['__osx=10.8']).filter((r) => r.name === '__osx');
    const needs = (records: PackageRecord[]) =>
      records.flatMap((r) => r.depends.filter((d) => d.startsWith('__osx')).map((d) => ({ record: r, spec: parseMatchSpec(d) })));
    for (const { record, spec } of needs(recordsOf(lock, 'test', 'osx-arm64'))) {
      expect(spec.matches(osx!), `${record.name} ${record.version} ${record.build} needs ${spec.source}`).toBe(true);
    }
    // The default environment (macOS 11 by default) takes zstd 1.5.6 (`__osx >=11.0`); the test one cannot.
    const zstd = (environment: string) => recordsOf(lock, environment, 'osx-arm64').find((r) => r.name === 'zstd')!;
    expect(zstd('default').depends).toContain('__osx >=11.0');
    expect(zstd('default').version).toBe('1.5.6');
    expect(zstd('test').version).toBe('1.5.5');
  });

  it('each environment equals that environment resolved alone (-e NAME --format explicit)', async () => {
    for (const environment of ['default', 'test']) {
      for (const platform of ['linux-64', 'osx-arm64']) {
        const { code, stdout } = await runCli(['-q', '-f', 'pixi.toml', '-e', environment, '-p', platform, '--format', 'explicit'], {
          cwd: dir,
        });
        expect(code).toBe(0);
        const urls = stdout
          .split('\n')
          .filter((l) => l.startsWith('file:'))
          .map((l) => l.split('#')[0]);
        expect(urls.sort()).toEqual(lock.environments[environment]!.packages[platform]!.map((p) => p.conda).sort());
      }
    }
  });

  it('--lock pixi.lock with nothing changed is byte-identical; --check passes offline', async () => {
    const same = await runCli(['-q', '-f', 'pixi.toml', '--lock', 'pixi.lock'], { cwd: dir });
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(lockText);
    const check = await runCli(['-f', 'pixi.toml', '--lock', 'pixi.lock', '--check', '--offline'], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stderr).toContain('conda-resolve: pixi.lock satisfies pixi.toml (environments default, test)');
  });

  it('--check fails naming the environment after a dependency, a platform or an environment is added', async () => {
    const sub = join(dir, 'changed');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'pixi.lock'), lockText);
    const check = async (text: string) => {
      writeFileSync(join(sub, 'pixi.toml'), text);
      return runCli(['-q', '-f', 'pixi.toml', '--lock', 'pixi.lock', '--check', '--offline'], { cwd: sub });
    };
    const dep = await check(manifest({ testDeps: 'pip = ">=99"' }));
    expect(dep.code).toBe(1);
    expect(dep.stderr).toMatch(/environment "test": linux-64: the spec "pip >=99" is not met by the locked pip /);
    expect(dep.stderr).not.toContain('environment "default"');
    const platform = await check(manifest({ platforms: '"linux-64", "osx-arm64", "win-64"' }));
    expect(platform.code).toBe(1);
    expect(platform.stderr).toContain('environment "default": the lock has no win-64 (it locks linux-64, osx-arm64)');
    const environment = await check(`${manifest()}lint = ["test"]\n`);
    expect(environment.code).toBe(1);
    expect(environment.stderr).toContain('the lock has no environment "lint", which pixi.toml defines');
  });

  it('--update NAME over the workspace: NAME moves in every environment that allows it, everything else that can keeps its record', async () => {
    const sub = join(dir, 'update');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'pixi.toml'), manifest({ workspace: 'exclude-newer = "2022-06-01"' }));
    expect((await runCli(['-q', '-f', 'pixi.toml', '-o', 'old.lock', '--format', 'pixi'], { cwd: sub })).code).toBe(0);
    const old = yaml.load(readFileSync(join(sub, 'old.lock'), 'utf8')) as PixiLock;
    // The date dropped from the manifest: only setuptools may move.
    writeFileSync(join(sub, 'pixi.toml'), manifest());
    const diff = await runCli(
      ['-q', '-f', 'pixi.toml', '--lock', 'old.lock', '--update', 'setuptools', '--diff', '--json', '-o', 'pixi.lock'],
      { cwd: sub },
    );
    expect(diff.code).toBe(0);
    const fresh = yaml.load(readFileSync(join(sub, 'pixi.lock'), 'utf8')) as PixiLock;
    const changes = (
      JSON.parse(diff.stdout) as {
        environments: { environment: string; platforms: { platform: string; changes: { name: string; kind: string }[] }[] }[];
      }
    ).environments;
    for (const environment of ['default', 'test']) {
      for (const platform of ['linux-64', 'osx-arm64']) {
        const before = recordsOf(old, environment, platform);
        const after = recordsOf(fresh, environment, platform);
        expect(environmentProblems(after)).toEqual([]);
        const updated = after.find((r) => r.name === 'setuptools')!;
        // The newest setuptools the channel has that this environment's specs and other records allow.
        const allowed = files.all.filter(
          (candidate) =>
            candidate.name === 'setuptools' &&
            (environment === 'default' || parseMatchSpec('setuptools <60').matches(candidate)) &&
            environmentProblems(after.map((r) => (r.name === 'setuptools' ? candidate : r))).length === 0,
        );
        const newest = allowed.reduce((a, b) => (parseVersion(b.version).compare(parseVersion(a.version)) > 0 ? b : a));
        expect(updated.version, `${environment} ${platform}`).toBe(newest.version);
        for (const locked of before) {
          if (locked.name === 'setuptools') continue;
          const now = after.find((r) => r.name === locked.name);
          if (now?.url === locked.url) continue;
          if (!now) {
            expect(isRequired(after, locked.name), `${locked.name} dropped though required`).toBe(false);
            continue;
          }
          expect(
            environmentProblems(after.map((r) => (r.name === locked.name ? locked : r))),
            `${locked.name} could have kept its record`,
          ).not.toEqual([]);
        }
        // The diff says the same as the two locks.
        const listed = changes.find((c) => c.environment === environment)!.platforms.find((p) => p.platform === platform)!.changes;
        const moved = before.filter((r) => after.find((a) => a.name === r.name)?.url !== r.url).map((r) => r.name);
        const added = after.filter((a) => !before.some((r) => r.name === a.name)).map((r) => r.name);
        expect(listed.map((c) => c.name).sort()).toEqual([...moved, ...added].sort());
      }
    }
    // setuptools did move somewhere: the default environment is no longer held below 60.
    expect(recordsOf(fresh, 'default', 'linux-64').find((r) => r.name === 'setuptools')!.version).not.toBe(
      recordsOf(old, 'default', 'linux-64').find((r) => r.name === 'setuptools')!.version,
    );
  });

  it('-e NAME -o pixi.lock writes that one environment under its name; bad environments and manifests are clear errors', async () => {
    const sub = join(dir, 'one');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'pixi.toml'), manifest());
    expect((await runCli(['-q', '-f', 'pixi.toml', '-e', 'test', '-o', 'pixi.lock'], { cwd: sub })).code).toBe(0);
    const one = yaml.load(readFileSync(join(sub, 'pixi.lock'), 'utf8')) as PixiLock;
    expect(Object.keys(one.environments)).toEqual(['test']);
    expect(one.environments.test).toEqual(lock.environments.test);

    const unknown = await runCli(['-q', '-f', 'pixi.toml', '-e', 'lint'], { cwd: sub });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Cannot use environment "lint" of "pixi.toml": it defines only "default", "test"');
    writeFileSync(join(sub, 'pixi.toml'), manifest().replace('python = "3.9.*"', 'python = 3.9'));
    const shape = await runCli(['-q', '-f', 'pixi.toml'], { cwd: sub });
    expect(shape.code).toBe(2);
    expect(shape.stderr).toBe(
      'conda-resolve: error: Cannot read pixi manifest "pixi.toml": dependencies.python must be a version string or a table\n',
    );
  });
});
