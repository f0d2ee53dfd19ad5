/**
 * The lock lifecycle over HTTP, through `inject()` on the real server and the demo channel:
 * pixi.lock, conda-lock.yml, pixi.toml and pyproject.toml as `file`; `lock` to stay close to
 * (byte-identical when nothing changed), `update`, `check` and `diff`; a pixi workspace into one
 * pixi.lock; `POST /diff`; the channel policy on a lock; errors naming the field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchemas } from '../../src/http/schemas.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import {
  call,
  DEMO_CHANNEL,
  DEMO_CHANNEL_DIR,
  injectTestServer,
  type InjectedServer,
  type NativeBody,
  type ProblemBody,
} from './helpers/test-server.js';

interface PixiLock {
  version: number;
  environments: Record<string, { channels: { url: string }[]; packages: Record<string, { conda: string }[]> }>;
  packages: { conda: string }[];
}

interface LockCheck {
  satisfied: boolean;
  lock: string;
  environments: string[];
  platforms: string[];
  reasons: { environment?: string; platform?: string; reason: string }[];
}

interface Change {
  name: string;
  kind: string;
  old?: { version: string; build: string };
  new?: { version: string; build: string };
}

interface LockDiff {
  changed: boolean;
  platforms?: { platform: string; changes: Change[] }[];
  environments?: { environment: string; platforms: { platform: string; changes: Change[] }[] }[];
  format?: string;
  media_type?: string;
  output?: string;
}

/** The newest version of `name` in the demo channel's repodata for `subdir` (and noarch). */
function newestInDemo(name: string, subdir: string, filter: (fn: string) => boolean = () => true): string {
  const versions: string[] = [];
  for (const dir of [subdir, 'noarch']) {
    const repodata = JSON.parse(readFileSync(join(DEMO_CHANNEL_DIR, dir, 'repodata.json'), 'utf8')) as Record<
      string,
      Record<string, { name: string; version: string }>
    >;
    for (const [fn, record] of Object.entries({ ...repodata['packages'], ...repodata['packages.conda'] }))
      if (record.name === name && filter(fn)) versions.push(record.version);
  }
  return versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1)!;
}

/** name -> version of a pixi.lock environment's packages on a platform. */
function versionsIn(text: string, environment: string, platform: string): Record<string, string> {
  const doc = yaml.load(text) as PixiLock;
  const urls = doc.environments[environment]!.packages[platform]!.map((p) => p.conda);
  return Object.fromEntries(
    urls.map((url) => {
      const match = /\/([^/]+)-([^-/]+)-([^-/]+)\.(conda|tar\.bz2)$/.exec(url)!;
      return [match[1]!, match[2]!];
    }),
  );
}

function nativeVersions(body: NativeBody[], platform: string): Record<string, string> {
  return Object.fromEntries(body.find((r) => r.platform === platform)!.packages.map((p) => [p.name, p.version]));
}

let server: InjectedServer;
const post = (json: unknown, query = '', headers: Record<string, string> = {}) =>
  call(server.app, 'POST', `/resolve${query}`, { json, headers });

beforeAll(async () => {
  server = await injectTestServer();
});
afterAll(async () => {
  await server.close();
});

const base = { specs: ['python=3.12', 'numpy'], platforms: ['linux-64', 'osx-arm64'], channels: [DEMO_CHANNEL] };
/** A lock made while only packages published before 2024-02-10 were considered. */
async function oldLock(format = 'pixi'): Promise<string> {
  const made = await post({ ...base, exclude_newer: '2024-02-10' }, `?format=${format}`);
  expect(made.status).toBe(200);
  return made.text;
}

describe('lock files as `file`: the locked records are the environment, no solve', () => {
  it.each([
    ['pixi', 'pixi.lock'],
    ['conda-lock', 'conda-lock.yml'],
  ])('resolve -> %s -> `file` with format explicit equals the direct explicit output', async (format, filename) => {
    const lock = await oldLock(format);
    const direct = await post({ ...base, exclude_newer: '2024-02-10' }, '?format=explicit');
    expect(direct.status).toBe(200);
    const named = await post({ file: lock, filename }, '?format=explicit');
    expect(named.status).toBe(200);
    expect(named.text).toBe(direct.text);
    // Without a filename, the lock is recognised by its content.
    const guessed = await post({ file: lock }, '?format=explicit');
    expect(guessed.text).toBe(direct.text);
    // One platform of it, as native JSON.
    const one = await post({ file: lock, filename, platforms: ['osx-arm64'] });
    expect(one.status).toBe(200);
    const body = one.json<NativeBody[]>();
    expect(body.map((r) => r.platform)).toEqual(['osx-arm64']);
    expect(nativeVersions(body, 'osx-arm64')).toMatchObject({ numpy: '1.26.4', python: '3.12.3' });
  });

  it('transcodes a pixi.lock to conda-lock.yml and back to the same explicit text', async () => {
    const lock = await oldLock('pixi');
    const condaLock = await post({ file: lock, filename: 'pixi.lock' }, '?format=conda-lock');
    expect(condaLock.status).toBe(200);
    expect(condaLock.text).toMatch(/^version: 1$/m);
    const a = await post({ file: lock, filename: 'pixi.lock' }, '?format=explicit');
    const b = await post({ file: condaLock.text, filename: 'conda-lock.yml' }, '?format=explicit');
    expect(b.text).toBe(a.text);
  });

  it("a lock's record URLs are never fetched: records on an unreachable host come back as they are", async () => {
    const lock = (await oldLock('pixi')).replaceAll(`${DEMO_CHANNEL}/`, 'http://127.0.0.1:9/elsewhere/');
    expect(lock).toContain('http://127.0.0.1:9/elsewhere/linux-64/numpy-1.26.4');
    const answer = await post({ file: lock, filename: 'pixi.lock', platforms: ['linux-64'] }, '?format=explicit');
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('http://127.0.0.1:9/elsewhere/linux-64/numpy-1.26.4-py312h4bc722e_0.conda');
  });

  it('a lock given as `file` with specs or channels is a 400 naming the field', async () => {
    const lock = await oldLock('pixi');
    const withSpecs = await post({ file: lock, filename: 'pixi.lock', specs: ['numpy'] });
    expect(withSpecs.status).toBe(400);
    expect(withSpecs.json<ProblemBody>()).toMatchObject({ field: 'specs' });
    expect(withSpecs.json<ProblemBody>().detail).toContain('send the request with the lock as "lock"');
    const withChannels = await post({ file: lock, filename: 'pixi.lock', channels: [DEMO_CHANNEL] });
    expect(withChannels.json<ProblemBody>()).toMatchObject({ status: 400, field: 'channels' });
    // A platform the lock does not lock, and an environment it does not have.
    const platform = await post({ file: lock, filename: 'pixi.lock', platforms: ['win-64'] });
    expect(platform.status).toBe(400);
    expect(platform.json<ProblemBody>().detail).toContain('locks only linux-64, osx-arm64');
    const environment = await post({ file: lock, filename: 'pixi.lock', environment: 'nope' });
    expect(environment.json<ProblemBody>()).toMatchObject({ status: 400, field: 'environment' });
    expect(environment.json<ProblemBody>().detail).toContain('Cannot use environment "nope" of "pixi.lock": it locks only "default"');
  });

  it('a file that is no lock is a 400 naming `file`', async () => {
    const answer = await post({ file: 'version: 6\nenvironments: [\n', filename: 'pixi.lock' });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-file', field: 'file' });
  });
});

describe('`lock`: stay close to a previous lock; `update` names what moves', () => {
  it("with nothing changed, the answer in the lock's format is the lock, byte for byte", async () => {
    // A comment no exporter writes: it survives only if the lock's own text is given back.
    const lock = `# kept as it was\n${await oldLock('pixi')}`;
    const again = await post({ ...base, lock, lock_filename: 'pixi.lock' }, '?format=pixi');
    expect(again.status).toBe(200);
    expect(again.text).toBe(lock);
    const condaLock = `# kept\n${await oldLock('conda-lock')}`;
    const sameConda = await post({ ...base, lock: condaLock }, '?format=conda-lock');
    expect(sameConda.text).toBe(condaLock);
  });

  it('without `update`, every locked package that still satisfies the request keeps its record', async () => {
    const lock = await oldLock('pixi');
    const answer = await post({ ...base, lock });
    expect(answer.status).toBe(200);
    for (const platform of base.platforms) {
      // Left alone, the solve would pick numpy 2 and openssl 3.3; the lock keeps both.
      expect(nativeVersions(answer.json<NativeBody[]>(), platform)).toMatchObject({ numpy: '1.26.4', openssl: '3.2.1' });
    }
  });

  it('`update: [numpy]` moves numpy to its newest version in the channel and keeps every other record', async () => {
    const lock = await oldLock('pixi');
    const answer = await post({ ...base, lock, lock_filename: 'pixi.lock', update: ['numpy'] }, '?format=pixi');
    expect(answer.status).toBe(200);
    for (const platform of base.platforms) {
      const before = versionsIn(lock, 'default', platform);
      const after = versionsIn(answer.text, 'default', platform);
      expect(after['numpy']).toBe(newestInDemo('numpy', platform, (fn) => fn.includes('py312')));
      expect(after['numpy']).not.toBe(before['numpy']);
      // openssl has a newer build in the channel, but was not asked to move.
      expect(newestInDemo('openssl', platform)).not.toBe(before['openssl']);
      for (const name of Object.keys(before).filter((n) => n !== 'numpy')) expect([name, after[name]]).toEqual([name, before[name]]);
    }
  });

  it('`update` as a comma-separated string works as the array does', async () => {
    const lock = await oldLock('pixi');
    const answer = await post({ ...base, lock, update: 'numpy, openssl' });
    expect(answer.status).toBe(200);
    expect(nativeVersions(answer.json<NativeBody[]>(), 'linux-64')).toMatchObject({ numpy: '2.0.0', openssl: '3.3.1' });
  });

  it('`update` without `lock`, a name the lock lacks, and an unreadable lock are 400s naming the field', async () => {
    const noLock = await post({ ...base, update: ['numpy'] });
    expect(noLock.status).toBe(400);
    expect(noLock.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-option', field: 'lock' });
    expect(noLock.json<ProblemBody>().detail).toBe(
      'Cannot use "update" without "lock": send the text of the previous pixi.lock or conda-lock.yml as "lock"',
    );
    const unknown = await post({ ...base, lock: await oldLock('pixi'), update: ['scipy'] });
    expect(unknown.status).toBe(400);
    expect(unknown.json<ProblemBody>()).toMatchObject({ field: 'update' });
    expect(unknown.json<ProblemBody>().detail).toContain('Cannot update "scipy"');
    const garbage = await post({ ...base, lock: 'hello: world\n', lock_filename: 'pixi.lock' });
    expect(garbage.status).toBe(400);
    expect(garbage.json<ProblemBody>().detail).toContain('pixi.lock');
    const notALock = await post({ ...base, lock: 'just some text\n' });
    expect(notALock.status).toBe(400);
    expect(notALock.json<ProblemBody>().detail).toContain('neither a pixi.lock nor a conda-lock.yml');
  });

  it('the lock named by `environment` is the one a solve stays close to', async () => {
    const lock = (await oldLock('pixi')).replace(/^ {2}default:$/m, '  ci:');
    const answer = await post({ ...base, lock, environment: 'ci' });
    expect(answer.status).toBe(200);
    expect(nativeVersions(answer.json<NativeBody[]>(), 'linux-64')).toMatchObject({ numpy: '1.26.4' });
    const missing = await post({ ...base, lock });
    expect(missing.json<ProblemBody>()).toMatchObject({ status: 400, field: 'environment' });
  });
});

describe('`check: true`: whether the lock satisfies the request, without solving', () => {
  it('satisfied for the request it was made from, with no reasons', async () => {
    const lock = await oldLock('pixi');
    const answer = await post({ ...base, exclude_newer: '2024-02-10', lock, check: true });
    expect(answer.status).toBe(200);
    expect(answer.json<LockCheck>()).toEqual({
      satisfied: true,
      lock: 'pixi.lock',
      environments: ['default'],
      platforms: ['linux-64', 'osx-arm64'],
      reasons: [],
    });
  });

  it('not satisfied after a spec is added or a platform is added, with the reason per platform', async () => {
    const lock = await oldLock('conda-lock');
    const spec = await post({ ...base, specs: [...base.specs, 'openssl>=3.3'], lock, check: true });
    expect(spec.status).toBe(200);
    const body = spec.json<LockCheck>();
    expect(body.satisfied).toBe(false);
    expect(body.lock).toBe('conda-lock.yml');
    expect(body.reasons).toEqual([
      { environment: 'default', platform: 'linux-64', reason: 'the spec "openssl>=3.3" is not met by the locked openssl 3.2.1 h4bc722e_0' },
      {
        environment: 'default',
        platform: 'osx-arm64',
        reason: 'the spec "openssl>=3.3" is not met by the locked openssl 3.2.1 h99b78c6_0',
      },
    ]);
    const platform = await post({ ...base, platforms: [...base.platforms, 'win-64'], lock, check: true });
    expect(platform.json<LockCheck>().reasons).toEqual([
      { environment: 'default', reason: 'the lock has no win-64 (it locks linux-64, osx-arm64)' },
    ]);
  });

  it('nothing is fetched: a check against a channel served over HTTP leaves its request log untouched', async () => {
    const channels: ChannelServer = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
    const demo = `${channels.url}/demo`;
    const http = await injectTestServer({ 'allow-channel': [demo], 'default-channel': [demo] });
    try {
      const made = await call(http.app, 'POST', '/resolve?format=pixi', { json: { specs: ['python=3.12'], platforms: ['linux-64'] } });
      expect(made.status).toBe(200);
      const fresh = await injectTestServer({ 'allow-channel': [demo], 'default-channel': [demo] });
      try {
        const fetched = channels.log.length;
        const check = await call(fresh.app, 'POST', '/resolve', {
          json: { specs: ['python=3.12', 'numpy'], lock: made.text, check: true },
        });
        expect(check.status).toBe(200);
        expect(check.json<LockCheck>()).toMatchObject({
          satisfied: false,
          reasons: [{ platform: 'linux-64', reason: 'the spec "numpy" is not met: the lock has no numpy' }],
        });
        expect(channels.log.length).toBe(fetched);
      } finally {
        await fresh.close();
      }
    } finally {
      await http.close();
      await channels.close();
    }
  });

  it('`check` or `diff` without `lock`, and both at once, are 400s', async () => {
    for (const flag of ['check', 'diff']) {
      const answer = await post({ ...base, [flag]: true });
      expect(answer.status).toBe(400);
      expect(answer.json<ProblemBody>()).toMatchObject({
        field: 'lock',
        detail: `Cannot use "${flag}" without "lock": send the text of the previous pixi.lock or conda-lock.yml as "lock"`,
      });
    }
    const both = await post({ ...base, lock: await oldLock(), check: true, diff: true });
    expect(both.json<ProblemBody>()).toMatchObject({ status: 400, field: 'diff' });
  });
});

describe('the channel policy applies to a lock', () => {
  it('a lock naming a channel this server may not use is refused, as `lock` or as `file`, and nothing is solved', async () => {
    const lock = (await oldLock('pixi')).replace(/- url: .*$/m, '- url: https://conda.anaconda.org/not-allowed/');
    expect(lock).toContain('not-allowed');
    const asLock = await post({ ...base, lock });
    expect(asLock.status).toBe(400);
    expect(asLock.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:channel-refused', field: 'lock' });
    expect(asLock.json<ProblemBody>().detail).toContain('not-allowed');
    const check = await post({ ...base, lock, check: true });
    expect(check.json<ProblemBody>()).toMatchObject({ status: 400, field: 'lock' });
    const asFile = await post({ file: lock, filename: 'pixi.lock' });
    expect(asFile.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:channel-refused', field: 'file' });
  });
});

describe('`diff: true`: the changes against the lock', () => {
  it('answers the per-platform changes, with the new lock as `output` when a format is asked for', async () => {
    const lock = await oldLock('pixi');
    const request = { ...base, specs: [...base.specs, 'openssl>=3.3'], lock, diff: true };
    const answer = await post(request);
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json; charset=utf-8');
    const body = answer.json<LockDiff>();
    expect(body.changed).toBe(true);
    expect(body.output).toBeUndefined();
    expect(body.platforms!.map((p) => p.platform)).toEqual(['linux-64', 'osx-arm64']);
    for (const platform of body.platforms!) {
      expect(platform.changes).toEqual([
        expect.objectContaining({
          name: 'openssl',
          kind: 'upgraded',
          old: expect.objectContaining({ version: '3.2.1' }),
          new: expect.objectContaining({ version: '3.3.1' }),
        }),
      ]);
    }
    const withLock = (await post(request, '?format=pixi')).json<LockDiff>();
    expect(withLock).toMatchObject({ changed: true, format: 'rattler-lock-v6', media_type: 'application/yaml' });
    expect(versionsIn(withLock.output!, 'default', 'linux-64')).toMatchObject({ openssl: '3.3.1', numpy: '1.26.4' });
    expect(withLock.platforms).toEqual(body.platforms);
  });

  it('an unchanged solve says so, and `Accept: text/plain` gives the table', async () => {
    const lock = await oldLock('pixi');
    const same = await post({ ...base, lock, diff: true }, '?format=pixi');
    expect(same.json<LockDiff>()).toMatchObject({
      changed: false,
      platforms: [
        { platform: 'linux-64', changes: [] },
        { platform: 'osx-arm64', changes: [] },
      ],
    });
    expect(same.json<LockDiff>().output).toBe(lock);
    const table = await post({ ...base, lock, update: ['numpy'], diff: true }, '', { accept: 'text/plain' });
    expect(table.status).toBe(200);
    expect(table.type).toBe('text/plain; charset=utf-8');
    expect(table.text).toMatch(
      /^linux-64: 1 upgraded\n {2}upgraded {2}numpy {2}1\.26\.4 py312h4bc722e_0 {2}-> {2}2\.0\.0 py312h4bc722e_0\n/,
    );
    // JSON wins when the client weighs it higher.
    const json = await post({ ...base, lock, diff: true }, '', { accept: 'text/plain;q=0.5, application/json' });
    expect(json.type).toBe('application/json; charset=utf-8');
  });

  it('a platform that fails to solve makes a diff a 500 naming it', async () => {
    const answer = await post({ ...base, specs: [...base.specs, 'linux-only-tool'], lock: await oldLock('pixi'), diff: true });
    expect(answer.status).toBe(500);
    expect(answer.json<ProblemBody>()).toMatchObject({
      type: 'urn:conda-resolve:problem:solve-failed',
      platforms: [{ platform: 'osx-arm64' }],
    });
    expect(answer.json<ProblemBody>().detail).toMatch(/^Cannot compare with the lock: the solve failed for osx-arm64/);
  });
});

describe('pixi manifests as `file`', () => {
  const manifest = (extra = '') => `[workspace]
name = "demo"
channels = ["${DEMO_CHANNEL}"]
platforms = ["linux-64", "osx-arm64"]

[dependencies]
python = "3.12.*"

[target.linux-64.dependencies]
linux-only-tool = "*"

[feature.sci.dependencies]
numpy = "<2"
${extra}
[environments]
sci = ["sci"]
`;

  it('one environment (`environment`, default `default`) answers native JSON or a format', async () => {
    const plain = await post({ file: manifest(), filename: 'pixi.toml' });
    expect(plain.status).toBe(200);
    const body = plain.json<NativeBody[]>();
    expect(body.map((r) => r.platform)).toEqual(['linux-64', 'osx-arm64']);
    expect(nativeVersions(body, 'linux-64')).toHaveProperty('linux-only-tool');
    expect(nativeVersions(body, 'osx-arm64')).not.toHaveProperty('linux-only-tool');
    expect(nativeVersions(body, 'linux-64')).not.toHaveProperty('numpy');
    expect(body[0]!.warnings).toBeUndefined();
    const sci = await post({ file: manifest(), filename: 'pixi.toml', environment: 'sci' }, '?format=explicit');
    expect(sci.status).toBe(200);
    expect(sci.text).toContain('/numpy-1.26.4-');
    // A raw upload takes `environment` from the query.
    const raw = await call(server.app, 'POST', '/resolve?filename=pixi.toml&environment=sci', {
      body: manifest(),
      headers: { 'content-type': 'text/plain' },
    });
    expect(nativeVersions(raw.json<NativeBody[]>(), 'osx-arm64')).toMatchObject({ numpy: '1.26.4' });
    const unknown = await post({ file: manifest(), filename: 'pixi.toml', environment: 'gpu' });
    expect(unknown.json<ProblemBody>()).toMatchObject({ status: 400, field: 'environment' });
  });

  it('pyproject.toml with [tool.pixi], named or recognised by content', async () => {
    const pyproject = `[project]\nname = "demo"\n\n${manifest()
      .replace('[workspace]', '[tool.pixi.workspace]')
      .replace(/^\[(?!tool\.|workspace)/gm, '[tool.pixi.')}`;
    const named = await post({ file: pyproject, filename: 'pyproject.toml', environment: 'sci', platforms: ['linux-64'] });
    expect(named.status).toBe(200);
    expect(nativeVersions(named.json<NativeBody[]>(), 'linux-64')).toMatchObject({ numpy: '1.26.4', 'linux-only-tool': '1.0.0' });
    const guessed = await post({ file: pyproject, environment: 'sci', platforms: ['linux-64'] });
    expect(guessed.json<NativeBody[]>()).toEqual(named.json<NativeBody[]>());
  });

  it('a broken manifest is a 400 naming `file`', async () => {
    const answer = await post({ file: '[workspace\nname = 1', filename: 'pixi.toml' });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-file', field: 'file' });
  });

  it('format pixi without `environment` locks every environment into one pixi.lock; then re-lock, check, update and diff over the workspace', async () => {
    const made = await post({ file: manifest(), filename: 'pixi.toml', exclude_newer: '2024-02-20' }, '?format=pixi');
    expect(made.status).toBe(200);
    expect(made.type).toBe('application/yaml');
    const doc = yaml.load(made.text) as PixiLock;
    expect(Object.keys(doc.environments)).toEqual(['default', 'sci']);
    expect(versionsIn(made.text, 'default', 'linux-64')).toHaveProperty('linux-only-tool');
    expect(versionsIn(made.text, 'default', 'osx-arm64')).not.toHaveProperty('linux-only-tool');
    expect(versionsIn(made.text, 'default', 'linux-64')).not.toHaveProperty('numpy');
    for (const platform of ['linux-64', 'osx-arm64'])
      expect(versionsIn(made.text, 'sci', platform)).toMatchObject({ numpy: '1.26.4', python: '3.12.3' });

    // Re-lock with nothing changed: the lock itself.
    const lock = `# workspace lock\n${made.text}`;
    const again = await post({ file: manifest(), filename: 'pixi.toml', exclude_newer: '2024-02-20', lock }, '?format=pixi');
    expect(again.text).toBe(lock);

    // check: satisfied, then not once the sci feature asks for more.
    const ok = await post({ file: manifest(), filename: 'pixi.toml', exclude_newer: '2024-02-20', lock, check: true });
    expect(ok.json<LockCheck>()).toEqual({
      satisfied: true,
      lock: 'pixi.lock',
      environments: ['default', 'sci'],
      platforms: ['linux-64', 'osx-arm64'],
      reasons: [],
    });
    const stale = await post({ file: manifest('setuptools = "*"\n'), filename: 'pixi.toml', lock, check: true });
    const reasons = stale.json<LockCheck>().reasons;
    expect(stale.json<LockCheck>().satisfied).toBe(false);
    expect(reasons).toContainEqual({
      environment: 'sci',
      platform: 'linux-64',
      reason: 'the spec "setuptools" is not met: the lock has no setuptools',
    });
    expect(reasons.every((r) => r.environment === 'sci')).toBe(true);

    // update numpy across the workspace, with the diff per environment.
    const updated = await post(
      { file: manifest().replace('numpy = "<2"', 'numpy = "*"'), filename: 'pixi.toml', lock, update: ['numpy'], diff: true },
      '?format=pixi',
    );
    expect(updated.status).toBe(200);
    const diff = updated.json<LockDiff>();
    expect(diff.changed).toBe(true);
    expect(diff.environments!.map((e) => e.environment)).toEqual(['default', 'sci']);
    expect(diff.environments![0]!.platforms.every((p) => p.changes.length === 0)).toBe(true);
    for (const p of diff.environments![1]!.platforms)
      expect(p.changes).toEqual([
        expect.objectContaining({ name: 'numpy', kind: 'upgraded', new: expect.objectContaining({ version: '2.0.0' }) }),
      ]);
    expect(versionsIn(diff.output!, 'sci', 'linux-64')).toMatchObject({
      numpy: '2.0.0',
      openssl: versionsIn(made.text, 'sci', 'linux-64')['openssl'],
    });
    const table = await post(
      { file: manifest().replace('numpy = "<2"', 'numpy = "*"'), filename: 'pixi.toml', lock, update: ['numpy'], diff: true },
      '',
      { accept: 'text/plain' },
    );
    expect(table.text).toMatch(/^environment default:\n {2}No changes\nenvironment sci:\n {2}linux-64: 1 upgraded\n/);
  });
});

describe('POST /diff', () => {
  const diff = (json: unknown, headers: Record<string, string> = {}) => call(server.app, 'POST', '/diff', { json, headers });

  it('compares any two inputs with exact packages, per platform, as JSON or as the table', async () => {
    const before = await oldLock('pixi');
    const after = (await post({ ...base, lock: before, update: ['numpy'] }, '?format=conda-lock')).text;
    const answer = await diff({ old: { content: before, filename: 'pixi.lock' }, new: { content: after } });
    expect(answer.status).toBe(200);
    const body = answer.json<LockDiff>();
    expect(body.changed).toBe(true);
    expect(body.platforms!.map((p) => p.platform)).toEqual(['linux-64', 'osx-arm64']);
    for (const p of body.platforms!)
      expect(p.changes.map((c) => [c.name, c.kind, c.old?.version, c.new?.version])).toEqual([['numpy', 'upgraded', '1.26.4', '2.0.0']]);
    const onePlatform = await diff({ old: { content: before }, new: { content: after }, platforms: 'osx-arm64' });
    expect(onePlatform.json<LockDiff>().platforms!.map((p) => p.platform)).toEqual(['osx-arm64']);
    const table = await diff({ old: { content: before }, new: { content: after } }, { accept: 'text/plain' });
    expect(table.type).toBe('text/plain; charset=utf-8');
    expect(table.text).toContain('osx-arm64: 1 upgraded\n  upgraded  numpy  1.26.4 py312h99b78c6_0  ->  2.0.0 py312h99b78c6_0\n');
    // The native JSON result and an explicit file are inputs too.
    const native = (await post({ ...base, exclude_newer: '2024-02-10' })).text;
    const same = await diff({ old: { content: native, filename: 'result.json' }, new: { content: before } });
    expect(same.json<LockDiff>()).toMatchObject({ changed: false });
  });

  it('an input that carries no exact packages, an unknown environment and a missing side are 400s naming the field', async () => {
    const lock = await oldLock('pixi');
    const bad = await diff({ old: { content: lock }, new: { content: 'python=3.12\n', filename: 'env.txt' } });
    expect(bad.status).toBe(400);
    expect(bad.json<ProblemBody>()).toMatchObject({ field: 'new.content' });
    expect(bad.json<ProblemBody>().detail).toContain('Cannot read "env.txt" as exact packages');
    const env = await diff({ old: { content: lock }, new: { content: lock }, environment: 'nope' });
    expect(env.json<ProblemBody>()).toMatchObject({ status: 400, field: 'environment' });
    const missing = await diff({ old: { content: lock } });
    expect(missing.json<ProblemBody>()).toMatchObject({ status: 400, field: 'new' });
    const wrongType = await call(server.app, 'POST', '/diff', { body: lock, headers: { 'content-type': 'application/yaml' } });
    expect(wrongType.status).toBe(415);
  });
});

describe('the OpenAPI document', () => {
  it('describes the lock fields, the check and diff answers, and POST /diff, from the schemas that validate them', async () => {
    const doc = (await call(server.app, 'GET', '/openapi.json')).json<{
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>();
    const schemas = JSON.parse(JSON.stringify(buildSchemas(server.config))) as ReturnType<typeof buildSchemas>;
    expect(Object.keys(doc.components.schemas['ResolveBody']!.properties!)).toEqual(
      expect.arrayContaining(['environment', 'lock', 'lock_filename', 'update', 'check', 'diff']),
    );
    expect(doc.components.schemas['LockCheck']).toEqual(schemas.lockCheck);
    expect(doc.components.schemas['LockDiff']).toEqual(schemas.lockDiff);
    expect(doc.components.schemas['DiffBody']).toEqual(schemas.diffBody);
    expect(doc.paths['/diff']).toHaveProperty('post');
  });
});
