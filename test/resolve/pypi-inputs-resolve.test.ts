/**
 * Input files with PyPI sections solved end to end through the library, offline: the README's
 * mixed environment.yml (fixtures/pypi, against the demo conda channel and a `file://` index of
 * wheels with real METADATA), and real environment.yml / pixi.toml files from public
 * repositories (their source and commit in fixtures/real) against the local test index; only
 * their channel is pointed at a local one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinExporters, resolveEnvironments, toNative, treeOf, whyOf } from '../../src/index.js';
import { exportEnvironments } from '../../src/resolve.js';
import { CONTEXT } from '../exporters/reference-records.js';
import { buildWheel, metadataText, startIndexServer, type IndexFile, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';
import { thirdPartyPath, thirdPartyText } from '../helpers/third-party.js';

const ROOT = resolvePath(new URL('../..', import.meta.url).pathname);
// Real files from conda/conda-lock and prefix-dev/pixi (test/THIRD-PARTY-DATA.md), in ../shared/third-party: absent, their tests skip.
const REAL: Record<string, string> = {
  'conda-lock-test-git.yml': 'conda-lock/tests/test-git/environment.yml',
  'conda-lock-test-local-pip.yml': 'conda-lock/tests/test-local-pip/environment.yml',
  'conda-lock-test-pip-full-url.yml': 'conda-lock/tests/test-pip-full-url/environment.yml',
  'conda-lock-test-pip-hash-checking.yml': 'conda-lock/tests/test-pip-hash-checking/environment.yml',
  'conda-lock-test-pip-repositories.yml': 'conda-lock/tests/test-pip-repositories/environment.yaml',
  'conda-lock-test-pypi-resolve-gh449.yml': 'conda-lock/tests/test-pypi-resolve-gh449/environment.yml',
  'pixi-pypi-custom-registry.toml': 'pixi/examples/pypi-custom-registry/pixi.toml',
  'pixi-pypi-find-links.toml': 'pixi/examples/pypi-find-links/pixi.toml',
  'pixi-pypi-source-deps.toml': 'pixi/examples/pypi-source-deps/pixi.toml',
  'pixi-pypi.toml': 'pixi/examples/pypi/pixi.toml',
  'pyproject-docker.toml': 'pixi/examples/docker/pyproject.toml',
};
const real = (name: string): string => thirdPartyText(REAL[name]!) ?? '';
const haveReal = (...names: string[]): boolean => names.every((name) => thirdPartyPath(REAL[name]!) !== undefined);

function wheel(name: string, version: string, requires: string[] = [], extra = ''): IndexFile {
  const text = metadataText(name, version, requires, extra);
  return { ...buildWheel(name, version, text), metadata: text };
}

let server: IndexServer;
let dir: string;
let channel: string;

beforeAll(async () => {
  // Requires-Dist as the real releases declare them (pydantic 1.10.10, email-validator 2.0.0, requests 2.31.0).
  server = await startIndexServer([
    {
      name: 'pydantic',
      files: [
        wheel(
          'pydantic',
          '1.10.10',
          ['typing-extensions>=4.2.0', 'python-dotenv>=0.10.4; extra == "dotenv"', 'email-validator>=1.0.3; extra == "email"'],
          'Requires-Python: >=3.7\nProvides-Extra: dotenv\nProvides-Extra: email\n',
        ),
      ],
    },
    { name: 'typing-extensions', files: [wheel('typing_extensions', '4.7.1')] },
    { name: 'python-dotenv', files: [wheel('python-dotenv', '1.0.0')] },
    { name: 'email-validator', files: [wheel('email_validator', '2.0.0', ['dnspython>=2.0.0', 'idna>=2.0.0'])] },
    { name: 'dnspython', files: [wheel('dnspython', '2.4.0')] },
    { name: 'idna', files: [wheel('idna', '3.4')] },
    {
      name: 'requests',
      files: [
        wheel(
          'requests',
          '2.31.0',
          [
            'charset-normalizer<4,>=2',
            'idna<4,>=2.5',
            'urllib3<3,>=1.21.1',
            'certifi>=2017.4.17',
            'PySocks!=1.5.7,>=1.5.6; extra == "socks"',
          ],
          'Requires-Python: >=3.7\n',
        ),
        wheel('requests', '2.32.3', ['idna']),
      ],
    },
    { name: 'charset-normalizer', files: [wheel('charset-normalizer', '3.2.0')] },
    { name: 'urllib3', files: [wheel('urllib3', '2.0.4')] },
    { name: 'certifi', files: [wheel('certifi', '2023.7.22')] },
  ]);
  dir = mkdtempSync(join(tmpdir(), 'cr-pypi-inputs-'));
  channel = writePythonChannel(
    join(dir, 'channel'),
    ['linux-64', 'osx-arm64', 'win-64'],
    [{ name: 'pip', version: '23.2.1', noarch: 'python', depends: ['python >=3.7'] }],
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const pins = (packages: readonly { name: string; version: string | null; manager: string }[]) =>
  packages.filter((p) => p.manager === 'pip').map((p) => `${p.name}==${p.version}`);

describe('input files with PyPI sections, solved', () => {
  it("the README's mixed environment.yml: three platforms, colorama on Windows only, pip: pins and pylock.toml", async () => {
    const resolution = await resolveEnvironments(
      {
        files: [{ filename: 'fixtures/pypi/environment.yml', content: readFileSync(join(ROOT, 'fixtures/pypi/environment.yml'), 'utf8') }],
        platforms: ['linux-64', 'osx-arm64', 'win-64'],
        pypiOptions: { indexUrl: pathToFileURL(join(ROOT, 'fixtures/pypi/simple')).href },
      },
      { cacheDir: join(dir, 'cache'), env: {}, cwd: ROOT },
    );
    const [linux, osx, win] = toNative(resolution);
    const flask = [
      'blinker==1.9.0',
      'click==8.4.0',
      'Flask==3.1.3',
      'itsdangerous==2.2.0',
      'Jinja2==3.1.6',
      'MarkupSafe==3.0.3',
      'Werkzeug==3.1.8',
    ];
    expect(pins(linux!.packages).sort()).toEqual([...flask].sort());
    expect(pins(osx!.packages).sort()).toEqual([...flask].sort());
    expect(pins(win!.packages).sort()).toEqual([...flask, 'colorama==0.4.6'].sort());
    const registry = registerBuiltinExporters();
    const yaml = registry.get('environment-yaml').export!(exportEnvironments(resolution)[2]!, CONTEXT);
    expect(yaml).toContain('  - pip:\n      - blinker==1.9.0\n      - click==8.4.0\n      - colorama==0.4.6\n      - Flask==3.1.3\n');
    const lock = parse(registry.get('pylock').exportMultiplatform!(exportEnvironments(resolution), CONTEXT)) as {
      environments: string[];
      packages: { name: string; marker?: string; wheels: { hashes: { sha256: string } }[] }[];
    };
    expect(lock.environments).toHaveLength(3);
    expect(lock.packages.find((p) => p.name === 'colorama')!.marker).toBe("sys_platform == 'win32' and platform_machine == 'AMD64'");
    expect(lock.packages.every((p) => p.wheels.every((w) => /^[0-9a-f]{64}$/.test(w.hashes.sha256)))).toBe(true);

    // tree and why follow PyPI edges (Requires-Dist that hold on the platform), from the pip: requirement.
    expect(treeOf(resolution)[2]!.text).toContain(
      'Flask 3.1.3 pypi [flask>=3.1]\n├─ blinker 1.9.0 pypi [blinker>=1.9.0]\n├─ click 8.4.0 pypi [click>=8.1.3]\n│  └─ colorama 0.4.6 pypi [colorama; platform_system == "Windows"]',
    );
    expect(treeOf(resolution)[0]!.text).not.toContain('colorama');
    expect(whyOf(resolution, 'colorama')[2]!.text.split('\n')).toEqual([
      'colorama 0.4.6 pypi is needed by 1 path:',
      '1. requested flask>=3.1',
      '   -> Flask 3.1.3 pypi  (requested flask>=3.1)',
      '   -> click 8.4.0 pypi  (flask depends on click>=8.1.3)',
      '   -> colorama 0.4.6 pypi  (click depends on colorama; platform_system == "Windows")',
    ]);
    expect(whyOf(resolution, 'colorama')[0]!.text).toBe('colorama is not in the environment');
  });

  it.skipIf(!haveReal('conda-lock-test-pypi-resolve-gh449.yml'))(
    'conda-lock test-pypi-resolve-gh449: extras of a pinned requirement (python 3.10)',
    async () => {
      const content = real('conda-lock-test-pypi-resolve-gh449.yml').replace('  - defaults', `  - ${channel}`);
      const resolution = await resolveEnvironments(
        { files: [{ filename: 'environment.yml', content }], platforms: ['linux-64'], pypiOptions: { indexUrl: server.indexUrl } },
        { cacheDir: join(dir, 'cache'), env: {} },
      );
      const [linux] = toNative(resolution);
      expect(linux!.error).toBeNull();
      expect(linux!.packages.find((p) => p.name === 'python')!.version).toBe('3.10.14');
      expect(pins(linux!.packages)).toEqual([
        'dnspython==2.4.0',
        'email_validator==2.0.0',
        'idna==3.4',
        'pydantic==1.10.10',
        'python-dotenv==1.0.0',
        'typing_extensions==4.7.1',
      ]);
    },
  );

  it.skipIf(!haveReal('pixi-pypi-find-links.toml'))(
    'pixi examples/pypi-find-links: requests==2.31.0 with python 3.12.* on the three platforms the local channel has',
    async () => {
      const content = real('pixi-pypi-find-links.toml')
        .replace('channels = ["conda-forge"]', `channels = [${JSON.stringify(channel)}]`)
        .replace('find-links = [{ path = "./links" }]', '')
        .replace('"osx-64", ', '');
      const resolution = await resolveEnvironments(
        { files: [{ filename: 'pixi.toml', content }], pypiOptions: { indexUrl: server.indexUrl } },
        { cacheDir: join(dir, 'cache'), env: {} },
      );
      for (const platform of toNative(resolution)) {
        expect(platform.error).toBeNull();
        expect(pins(platform.packages)).toEqual([
          'certifi==2023.7.22',
          'charset-normalizer==3.2.0',
          'idna==3.4',
          'requests==2.31.0',
          'urllib3==2.0.4',
        ]);
      }
      expect(toNative(resolution).map((p) => p.platform)).toEqual(['osx-arm64', 'linux-64', 'win-64']);
    },
  );
});
