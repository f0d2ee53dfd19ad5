/**
 * The lock lifecycle with PyPI packages, against a local conda channel with pythons and the local
 * simple index (test/helpers/pypi-index.ts): a re-lock keeps the PyPI pins of the previous lock
 * while the index gains newer releases, `--update NAME` takes PyPI names, `--check` compares the
 * PyPI requirements and indexes, and the diff against the lock names the PyPI changes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportResolution, resolveEnvironments, toNative, type ResolveRequest } from '../../src/index.js';
import { lockStaleness } from '../../src/lock/check.js';
import { resolutionDiff } from '../../src/lock/answer.js';
import { renderDiff } from '../../src/lock/diff.js';
import { prepareRequest } from '../../src/request.js';
import { indexWheel, startIndexServer, type IndexProject, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';
import { runCli } from '../cli/run-cli.js';

const project = (name: string, versions: readonly string[], requires: string[] = []): IndexProject => ({
  name,
  files: versions.map((v) => indexWheel(name, v, requires)),
});

let server: IndexServer;
let dir: string;
let channel: string;

beforeAll(async () => {
  // Pages are not cached between solves, so a release added to the index is seen at once.
  server = await startIndexServer([project('Flask', ['3.0.0'], ['click>=8']), project('click', ['8.1.0']), project('rich', ['13.0.0'])], {
    cacheControl: 'max-age=0',
  });
  dir = mkdtempSync(join(tmpdir(), 'cr-pypi-lifecycle-'));
  channel = writePythonChannel(join(dir, 'channel'), ['linux-64']);
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = (extra: Partial<ResolveRequest> = {}): ResolveRequest => ({
  specs: ['python 3.12.*'],
  pypi: ['flask', 'rich'],
  platforms: ['linux-64'],
  channels: [channel],
  pypiOptions: { indexUrl: server.indexUrl },
  ...extra,
});

async function solve(request: ResolveRequest) {
  return resolveEnvironments(request, { cacheDir: join(dir, 'cache'), env: {} });
}

const pypiPins = (resolution: Awaited<ReturnType<typeof solve>>): string[] =>
  toNative(resolution)[0]!
    .packages.filter((p) => p.manager === 'pip')
    .map((p) => `${p.name}==${p.version}`);

describe('a re-lock with PyPI packages', () => {
  let lock: string;

  beforeAll(async () => {
    const first = await solve(base());
    expect(pypiPins(first)).toEqual(['click==8.1.0', 'Flask==3.0.0', 'rich==13.0.0']);
    lock = exportResolution(first, 'pixi-lock-v6');
    // The index gains newer releases of every project after the lock was made.
    server.setProject(project('Flask', ['3.0.0', '3.1.0'], ['click>=8']));
    server.setProject(project('click', ['8.1.0', '8.2.0']));
    server.setProject(project('rich', ['13.0.0', '14.0.0']));
  });

  it('keeps the locked PyPI versions although the index has newer ones, with no warning, and gives the lock back unchanged', async () => {
    const again = await solve(base({ lock: { filename: 'pixi.lock', content: lock } }));
    expect(again.request.warnings).toEqual([]);
    expect(pypiPins(again)).toEqual(['click==8.1.0', 'Flask==3.0.0', 'rich==13.0.0']);
    expect(exportResolution(again, 'pixi-lock-v6')).toBe(lock);
    // Without the lock the same request takes the newest.
    expect(pypiPins(await solve(base()))).toEqual(['click==8.2.0', 'Flask==3.1.0', 'rich==14.0.0']);
  });

  it('reads no metadata of the newer releases it keeps out (a fresh cache: the prefetch guesses the locked release)', async () => {
    const before = server.requests.length;
    const again = await resolveEnvironments(base({ lock: { filename: 'pixi.lock', content: lock } }), {
      cacheDir: join(dir, 'fresh-cache'),
      env: {},
    });
    expect(pypiPins(again)).toEqual(['click==8.1.0', 'Flask==3.0.0', 'rich==13.0.0']);
    const read = server.requests
      .slice(before)
      .map((r) => r.path)
      .filter((path) => !path.startsWith('/simple/'));
    expect(read.filter((path) => /3\.1\.0|8\.2\.0|14\.0\.0/.test(path))).toEqual([]);
  });

  it('moves a pin whose requirement changed, and keeps the others', async () => {
    const changed = await solve(base({ pypi: ['flask', 'rich>=14'], lock: { filename: 'pixi.lock', content: lock } }));
    expect(pypiPins(changed)).toEqual(['click==8.1.0', 'Flask==3.0.0', 'rich==14.0.0']);
  });

  it('--update takes a PyPI name, in any spelling PEP 503 normalises alike, and moves only it', async () => {
    const updated = await solve(base({ lock: { filename: 'pixi.lock', content: lock }, update: ['FLASK'] }));
    expect(pypiPins(updated)).toEqual(['click==8.1.0', 'Flask==3.1.0', 'rich==13.0.0']);
    const diff = resolutionDiff(updated.request.previousLock!, updated);
    expect(renderDiff(diff)).toBe('linux-64: 1 upgraded\n  upgraded  Flask (pypi)  3.0.0  ->  3.1.0\n');
    await expect(solve(base({ lock: { filename: 'pixi.lock', content: lock }, update: ['numpy'] }))).rejects.toMatchObject({
      code: 'CR_ERR_INPUT_LOCK_UPDATE',
      message: 'Cannot update "numpy": environment "default" of "pixi.lock" locks no package of that name',
    });
  });

  it('--check reports a changed PyPI requirement and a changed index, and passes when nothing changed', () => {
    const options = { env: {}, cwd: dir, hostPlatform: 'linux-64', defaultChannels: [] };
    const check = (extra: Partial<ResolveRequest>) => {
      const prepared = prepareRequest(base({ lock: { filename: 'pixi.lock', content: lock }, ...extra }), options);
      return lockStaleness(prepared, prepared.previousLock!, {});
    };
    expect(check({})).toEqual([]);
    expect(check({ pypi: ['flask', 'rich>=14'] })).toEqual([
      'linux-64: the PyPI requirement "rich>=14" is not met by the locked rich 13.0.0',
    ]);
    expect(check({ pypi: ['flask', 'rich', 'requests'] })).toEqual([
      'linux-64: the PyPI requirement "requests" is not met: the lock has no requests',
    ]);
    expect(check({ pypi: ['flask'] })).toEqual([
      'linux-64: the lock has rich 13.0.0 (pypi), which no PyPI requirement of the request needs',
    ]);
    // A locked distribution whose Requires-Dist the lock's other pin no longer meets.
    const edited = lock.replace('- click>=8', '- click>=9');
    expect(edited).not.toBe(lock);
    const prepared = prepareRequest(base({ lock: { filename: 'pixi.lock', content: edited } }), options);
    expect(lockStaleness(prepared, prepared.previousLock!, {})).toEqual([
      'linux-64: Flask 3.0.0 (pypi) requires "click>=9", but the lock has click 8.1.0',
    ]);
    expect(check({ pypiOptions: { indexUrl: 'https://mirror.example/simple/' } })).toEqual([
      `the PyPI indexes differ: the request has https://mirror.example/simple/, the lock ${server.indexUrl}`,
    ]);
  });
  it('on the command line: --update a PyPI name, diff the two locks (text and markdown), --check a changed requirement and index', async () => {
    mkdirSync(join(dir, 'old'), { recursive: true });
    mkdirSync(join(dir, 'new'), { recursive: true });
    writeFileSync(join(dir, 'old', 'pixi.lock'), lock);
    const cli = (args: string[]) => runCli(args, { cwd: dir, cacheDir: join(dir, 'cli-cache') });
    const requestArgs = (...pypi: string[]) => [
      'python 3.12.*',
      ...pypi.flatMap((r) => ['--pypi', r]),
      '--index-url',
      server.indexUrl,
      '-c',
      channel,
      '-p',
      'linux-64',
    ];
    const updated = await cli([
      ...requestArgs('flask', 'rich'),
      '--lock',
      'old/pixi.lock',
      '--update',
      'flask',
      '-o',
      'new/pixi.lock',
      '-q',
    ]);
    expect(updated.stderr).toBe('');
    expect(updated.code).toBe(0);

    const text = await cli(['diff', 'old/pixi.lock', 'new/pixi.lock']);
    expect(text.stdout).toBe('linux-64: 1 upgraded\n  upgraded  Flask (pypi)  3.0.0  ->  3.1.0\n');
    const json = JSON.parse((await cli(['diff', 'old/pixi.lock', 'new/pixi.lock', '--json'])).stdout) as {
      platforms: { changes: unknown[] }[];
    };
    expect(json.platforms[0]!.changes).toEqual([
      {
        name: 'Flask',
        kind: 'upgraded',
        manager: 'pip',
        old: expect.objectContaining({ version: '3.0.0', build: '' }),
        new: expect.objectContaining({ version: '3.1.0', build: '' }),
      },
    ]);
    const markdown = await cli(['diff', 'old/pixi.lock', 'new/pixi.lock', '--format', 'markdown']);
    expect(markdown.stdout).toBe(
      [
        '## Lock changes',
        '',
        '### linux-64: 1 upgraded',
        '',
        '**Requested (top-level)** (1 upgraded)',
        '',
        '| Package | Change | Before | After |',
        '|---|---|---|---|',
        '| Flask (PyPI) | upgraded | 3.0.0 | 3.1.0 |',
        '',
      ].join('\n'),
    );

    const fresh = await cli([...requestArgs('flask', 'rich'), '--lock', 'old/pixi.lock', '--check']);
    expect(fresh.code).toBe(0);
    const stale = await cli([...requestArgs('flask', 'rich>=14'), '--lock', 'old/pixi.lock', '--check']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'old/pixi.lock does not satisfy the request:\n  - linux-64: the PyPI requirement "rich>=14" is not met by the locked rich 13.0.0',
    );
    const moved = await cli([
      ...requestArgs('flask', 'rich'),
      '--extra-index-url',
      'https://mirror.example/simple/',
      '--lock',
      'old/pixi.lock',
      '--check',
    ]);
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain(
      `  - the PyPI indexes differ: the request has ${server.indexUrl}, https://mirror.example/simple/, the lock ${server.indexUrl}`,
    );
  });
});
