/**
 * The resolve pipeline with PyPI requirements: a local conda channel with pythons and the local
 * simple index (test/helpers/pypi-index.ts), through the library API: discovery, the mixed solve,
 * native records, markers and wheels per platform.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEnvironments, toNative } from '../../src/index.js';
import { buildWheel, metadataText, startIndexServer, type IndexFile, type IndexProject, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';

function wheel(name: string, version: string, requires: string[] = [], options: { tag?: string; requiresPython?: string } = {}): IndexFile {
  const text = metadataText(name, version, requires, options.requiresPython ? `Requires-Python: ${options.requiresPython}\n` : '');
  const built = buildWheel(name, version, text, { tag: options.tag });
  return { ...built, metadata: text, ...(options.requiresPython ? { requiresPython: options.requiresPython } : {}) };
}

const PROJECTS: IndexProject[] = [
  { name: 'app', files: [wheel('app', '1.0', ['helper>=1', 'winonly; sys_platform == "win32"', 'tomli; python_version < "3.11"'])] },
  { name: 'helper', files: [wheel('helper', '1.0'), wheel('helper', '1.2')] },
  { name: 'winonly', files: [wheel('winonly', '0.1')] },
  { name: 'tomli', files: [wheel('tomli', '2.0.1')] },
  {
    name: 'fastcore',
    files: [
      wheel('fastcore', '3.0', [], { tag: 'cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64' }),
      wheel('fastcore', '3.0', [], { tag: 'cp312-cp312-win_amd64' }),
      wheel('fastcore', '3.0', [], { tag: 'cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64' }),
    ],
  },
  { name: 'needs312', files: [wheel('needs312', '1.0', [], { requiresPython: '>=3.12' })] },
  { name: 'requests', files: [wheel('requests', '2.32.3', ['idna'])] },
  { name: 'idna', files: [wheel('idna', '3.7')] },
];

let server: IndexServer;
let dir: string;
let channel: string;

beforeAll(async () => {
  server = await startIndexServer(PROJECTS);
  dir = mkdtempSync(join(tmpdir(), 'cr-pypi-resolve-'));
  channel = writePythonChannel(
    join(dir, 'channel'),
    ['linux-64', 'win-64', 'osx-arm64'],
    [
      { name: 'requests', version: '2.31.0', noarch: 'python', depends: ['python >=3.8'] },
      { name: 'py-idna', version: '3.6', noarch: 'python', depends: ['python >=3.8'] },
    ],
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function resolve(specs: string[], pypi: string[], platforms: string[], extra: Record<string, unknown> = {}) {
  return resolveEnvironments(
    { specs, pypi, platforms, channels: [channel], pypiOptions: { indexUrl: server.indexUrl }, ...extra },
    { cacheDir: join(dir, 'cache'), env: {} },
  );
}

const names = (packages: readonly { name: string; version: string | null; manager: string }[]): string[] =>
  packages.map((p) => `${p.manager === 'pip' ? 'pypi:' : ''}${p.name}==${p.version}`);

describe('resolving conda and PyPI requirements together', () => {
  it('gives each platform its markers, wheels and native PyPI records', async () => {
    const resolution = await resolve(['python 3.12.*'], ['app', 'fastcore'], ['linux-64', 'win-64', 'osx-arm64']);
    const [linux, win, osx] = toNative(resolution);
    expect(linux!.error).toBeNull();
    expect(names(linux!.packages)).toEqual([
      'python==3.12.7',
      'python_abi==3.12',
      'pypi:app==1.0',
      'pypi:fastcore==3.0',
      'pypi:helper==1.2',
    ]);
    expect(names(win!.packages)).toEqual([
      'python==3.12.7',
      'python_abi==3.12',
      'pypi:app==1.0',
      'pypi:fastcore==3.0',
      'pypi:helper==1.2',
      'pypi:winonly==0.1',
    ]);
    const fast = linux!.packages.find((p) => p.name === 'fastcore')!;
    expect(fast).toMatchObject({
      manager: 'pip',
      filename: 'fastcore-3.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
      index: server.indexUrl,
      yanked: false,
    });
    expect(win!.packages.find((p) => p.name === 'fastcore')).toMatchObject({ filename: 'fastcore-3.0-cp312-cp312-win_amd64.whl' });
    // osx-arm64 has no fastcore wheel: the platform fails, naming it.
    expect(osx!.error).toContain('fastcore');
    const app = linux!.packages.find((p) => p.name === 'app')!;
    expect(app).toMatchObject({
      requires_dist: ['helper>=1', 'winonly; sys_platform == "win32"', 'tomli; python_version < "3.11"'],
      depends: ['helper'],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      size: expect.any(Number),
    });
  });

  it('moves python for a PyPI requirement (Requires-Python, wheel tags) and applies python markers', async () => {
    const [linux] = toNative(await resolve(['python <3.13'], ['needs312'], ['linux-64'], { resolution: 'lowest' }));
    expect(names(linux!.packages)).toEqual(['python==3.12.7', 'python_abi==3.12', 'pypi:needs312==1.0']);
    const [old] = toNative(await resolve(['python 3.10.*'], ['app'], ['linux-64']));
    expect(names(old!.packages)).toContain('pypi:tomli==2.0.1');
  });

  it('installs nothing from PyPI for a requirement the conda package satisfies', async () => {
    const [linux] = toNative(await resolve(['python 3.12.*', 'requests'], ['requests>=2.30'], ['linux-64']));
    expect(names(linux!.packages)).toEqual(['python==3.12.7', 'python_abi==3.12', 'requests==2.31.0']);
    const [pypiOnly] = toNative(await resolve(['python 3.12.*'], ['requests>=2.32'], ['linux-64']));
    expect(names(pypiOnly!.packages)).toEqual(['python==3.12.7', 'python_abi==3.12', 'pypi:idna==3.7', 'pypi:requests==2.32.3']);
  });

  it('follows a conda-to-PyPI map given with the request (pixi conda-pypi-map, --pypi-mapping)', async () => {
    const map = { condaPypiMap: { '*': { 'py-idna': 'idna' } } };
    const [linux] = toNative(await resolve(['python 3.12.*', 'py-idna'], ['requests>=2.32'], ['linux-64'], map));
    expect(names(linux!.packages)).toEqual(['py-idna==3.6', 'python==3.12.7', 'python_abi==3.12', 'pypi:requests==2.32.3']);
  });

  it('explains an unsatisfiable mix naming both parts', async () => {
    const [linux] = toNative(await resolve(['python 3.11.*'], ['needs312'], ['linux-64']));
    expect(linux!.error).toContain('needs312 (PyPI)');
    expect(linux!.error).toContain('python 3.11');
  });

  it('applies --resolution to a conda-only request too', async () => {
    const [lowest] = toNative(await resolve(['python'], [], ['linux-64'], { resolution: 'lowest' }));
    expect(names(lowest!.packages)).toEqual(['python==3.10.14', 'python_abi==3.10']);
    await expect(resolve(['python'], [], ['linux-64'], { resolution: 'newest' })).rejects.toMatchObject({ code: 'CR_ERR_INPUT_OPTION' });
  });

  it('refuses a bad PyPI requirement before fetching anything', async () => {
    await expect(resolve(['python'], ['app >>> 1'], ['linux-64'])).rejects.toMatchObject({ code: 'CR_ERR_INPUT_SPEC' });
  });
});
