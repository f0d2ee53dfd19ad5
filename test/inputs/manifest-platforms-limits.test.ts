/**
 * pixi manifests as people write them now and as an attacker would: `workspace.platforms` entries
 * as tables (named platforms with their own virtual packages; issue 37), a workspace parsed once
 * however many environments it has, and environments, features and targets bounded with an error
 * that names the limit, over HTTP (400) and the CLI (issue 32, item 3).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputFileError } from '../../src/errors.js';
import { MANIFEST_LIMITS, parsePixiManifest } from '../../src/inputs/pixi-manifest.js';
import { prepareWorkspace } from '../../src/lock/workspace.js';
import { prepareRequest, virtualPackagesOn } from '../../src/request.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import {
  call,
  DEMO_CHANNEL,
  injectTestServer,
  type InjectedServer,
  type NativeBody,
  type ProblemBody,
} from '../http/helpers/test-server.js';

const PREPARE = { env: {}, cwd: '/', hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] };

const named = (channel = 'conda-forge') => `[workspace]
name = "rich"
channels = ["${channel}"]
platforms = [
  "osx-arm64",
  { name = "gpu", platform = "linux-64", cuda = "12.0", glibc = "2.34" },
  { platform = "linux-aarch64", cuda = { driver = "12.8", arch = "8.7" }, __custom = "1=abc" },
  { name = "win-64" },
]

[system-requirements]
cuda = "11.8"
macos = "13.0"

[dependencies]
python = "3.12.*"

[target.gpu.dependencies]
gpu-only = "*"

[target."linux-*".dependencies]
wild = "*"

[feature.cuda]
platforms = ["gpu"]

[environments]
cuda = ["cuda"]
`;

describe('workspace.platforms as tables (named platforms with their own virtual packages)', () => {
  it('each entry solves for its subdir with its virtual packages, which win over system-requirements', () => {
    const manifest = parsePixiManifest('pixi.toml', named());
    const all = manifest.environments.get('default')!;
    expect(all.platforms).toEqual(['osx-arm64', 'linux-64', 'linux-aarch64', 'win-64']);
    expect(all.virtualPackages.get('linux-64')).toEqual(['__cuda=12.0', '__glibc=2.34']);
    expect(all.virtualPackages.get('linux-aarch64')).toEqual(['__cuda=12.8', '__cuda_arch=8.7', '__custom=1=abc']);
    expect(all.virtualPackages.get('osx-arm64')).toEqual(['__osx=13.0']);
    // pixi's synthesised name: the subdir, then each declared value that is not the subdir's default.
    expect(all.platformNames).toEqual(
      new Map([
        ['linux-64', 'gpu'],
        ['linux-aarch64', 'linux-aarch64-cuda-12-8-custom-1-abc'],
      ]),
    );
    // Targets select by the platform's name, and by `*` patterns over names (not subdirs: "gpu" is no "linux-*").
    expect(all.platformSpecs.get('linux-64')!.map((s) => s.spec)).toEqual(['python 3.12.*', 'gpu-only']);
    expect(all.platformSpecs.get('linux-aarch64')!.map((s) => s.spec)).toEqual(['python 3.12.*', 'wild']);
    // A feature's platforms name the platform.
    expect(manifest.environments.get('cuda')!.platforms).toEqual(['linux-64']);
  });

  it("a request from such a manifest carries each platform's virtual packages", () => {
    const request = prepareRequest({ files: [{ filename: 'pixi.toml', content: named() }], environment: 'cuda' }, PREPARE);
    expect(request.platforms).toEqual(['linux-64']);
    expect(virtualPackagesOn(request, 'linux-64')).toEqual(['__cuda=12.0', '__glibc=2.34']);
  });

  it('bad entries are errors naming the entry', () => {
    const bad = (platforms: string) => () => parsePixiManifest('pixi.toml', `[workspace]\nchannels = ["c"]\nplatforms = ${platforms}\n`);
    expect(bad('[{ name = "jetson" }]')).toThrow(/workspace\.platforms\[0\]: "jetson" is not a conda subdir; set "platform"/);
    expect(bad('[{ platform = "linux-64", color = "red" }]')).toThrow(/workspace\.platforms\[0\]\.color is not a platform field/);
    expect(bad('[{ platform = "osx-64", macos = "13", osx = "14" }]')).toThrow(/"osx" is another name for "macos"/);
    expect(bad('[{ name = "a", platform = "linux-64" }, { name = "b", platform = "linux-64" }]')).toThrow(
      /two platforms for linux-64 \("a" and "b"\)/,
    );
  });
});

describe('a workspace with many environments', () => {
  const manyEnvironments = (count: number) =>
    `[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n[dependencies]\npython = "*"\n[feature.f.dependencies]\nnumpy = "*"\n[environments]\n${Array.from({ length: count }, (_, i) => `e${i} = ["f"]`).join('\n')}\n`;

  it('is parsed once for all its environments, not once per environment', () => {
    // (Not a mock of the TOML parser: the suite shares one module cache, isolate: false.)
    const content = `${manyEnvironments(40)}# parsed once\n`;
    const workspace = prepareWorkspace({ files: [{ filename: 'pixi.toml', content }] }, PREPARE);
    expect(workspace.environments).toHaveLength(41);
    // The manifest read for the workspace is the one every environment used: the same object again.
    expect(parsePixiManifest('pixi.toml', content)).toBe(parsePixiManifest('pixi.toml', content));
  });

  it('more environments, features or targets than the limit: an error naming the limit', () => {
    const over = MANIFEST_LIMITS.environments + 1;
    expect(() => parsePixiManifest('pixi.toml', manyEnvironments(over))).toThrow(
      new RegExp(
        `environments has ${over} entries, more than the ${MANIFEST_LIMITS.environments} a manifest may have \\(the limit on environments\\)`,
      ),
    );
    const features = `[workspace]\nchannels = ["c"]\nplatforms = ["linux-64"]\n${Array.from({ length: MANIFEST_LIMITS.features + 1 }, (_, i) => `[feature.f${i}.dependencies]\nx = "*"`).join('\n')}\n`;
    expect(() => parsePixiManifest('pixi.toml', features)).toThrow(/the limit on features/);
    const targets = `[workspace]\nchannels = ["c"]\nplatforms = ["linux-64"]\n${Array.from({ length: MANIFEST_LIMITS.targets + 1 }, (_, i) => `[target."x${i}-*".dependencies]\nx = "*"`).join('\n')}\n`;
    expect(() => parsePixiManifest('pixi.toml', targets)).toThrow(
      /target has 65 entries, more than the 64 a manifest may have \(the limit on targets\)/,
    );
    // The whole file is bounded before it is parsed (a parse of 1 MiB of tables holds the loop for seconds).
    expect(() => parsePixiManifest('pixi.toml', `${manyEnvironments(1)}${'#'.repeat(MANIFEST_LIMITS.bytes)}\n`)).toThrow(
      /more than the 262144 a manifest may have \(the limit on bytes\)/,
    );
    try {
      parsePixiManifest('pixi.toml', manyEnvironments(over));
    } catch (error) {
      expect(error).toBeInstanceOf(InputFileError);
      expect((error as InputFileError).code).toBe('CR_ERR_INPUT_MANIFEST');
    }
  });

  it('the CLI says so and exits with a usage status', async () => {
    const dir = tempDir('cr-manifest-');
    const file = join(dir, 'pixi.toml');
    writeFileSync(file, manyEnvironments(MANIFEST_LIMITS.environments + 1));
    const { code, stderr } = await runCli(['-f', file, '--format', 'pixi'], { cwd: dir });
    expect(code).not.toBe(0);
    expect(stderr).toContain('the limit on environments');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('over HTTP', () => {
  let server: InjectedServer;
  beforeAll(async () => {
    server = await injectTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('`?format=pixi` with more environments than the limit is a 400 naming the limit', async () => {
    const body = `[workspace]\nchannels = ["${DEMO_CHANNEL}"]\nplatforms = ["linux-64"]\n[dependencies]\npython = "*"\n[environments]\n${Array.from({ length: 2000 }, (_, i) => `e${i} = []`).join('\n')}\n`;
    const answer = await call(server.app, 'POST', '/resolve?format=pixi', { json: { file: body, filename: 'pixi.toml' } });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>()).toMatchObject({ field: 'file' });
    expect(answer.json<ProblemBody>().detail).toContain('the limit on environments');
  });

  it('a manifest with named platforms resolves each for its subdir', async () => {
    const manifest = `[workspace]\nchannels = ["${DEMO_CHANNEL}"]\nplatforms = [{ name = "gpu", platform = "linux-64", cuda = "12.0" }, "osx-arm64"]\n[dependencies]\npython = "3.12.*"\n`;
    const answer = await call(server.app, 'POST', '/resolve', { json: { file: manifest, filename: 'pixi.toml' } });
    expect(answer.status).toBe(200);
    expect(answer.json<NativeBody[]>().map((r) => r.platform)).toEqual(['linux-64', 'osx-arm64']);
  });
});
