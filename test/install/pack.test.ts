/**
 * The package as a user installs it (issue 17, scope 1): `npm pack` of this checkout (dist/ as
 * `npm test` built it), installed into an empty folder with `--engine-strict` from the npm
 * registry, then its `conda-resolve` binary run and the library imported. Only runtime
 * dependencies may arrive. Runs in CI (.ci/run has the registry); `--prefer-offline` takes what npm ci
 * already cached instead of asking the registry about every package again. `--omit=optional` leaves
 * out zstd-napi, whose native build here would be most of the test's time (npm ci built it once
 * already): the package must work without it, as it does where that build fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { requireBuild, tempDir } from '../cli/run-cli.js';

const run = promisify(execFile);
const DEMO = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');
const DEV_ONLY = ['vitest', 'typescript', 'eslint', 'esbuild', 'tsx', 'fast-check', '@conda-org/rattler', 'playwright-core'];

/**
 * npm without this checkout's own npm settings leaking in (vitest runs under `npm test`), with the
 * CA bundle the machine gave Node, which the test run keeps from its other processes
 * (test/helpers/global-setup.ts): npm may reach the registry through a proxy that needs it.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  const extraCaCerts = process.env.CONDA_RESOLVE_TEST_NODE_EXTRA_CA_CERTS;
  if (extraCaCerts !== undefined) env.NODE_EXTRA_CA_CERTS = extraCaCerts;
  return env;
}

/** The installed copy keeps its own code cache: in the test run's shared folder it would replace the checkout's bundle's. */
function packedEnv(): NodeJS.ProcessEnv {
  const cache = tempDir('cr-cache-');
  return { ...process.env, CONDA_RESOLVE_CACHE_DIR: cache, CONDA_RESOLVE_CODE_CACHE_DIR: join(cache, 'code-cache') };
}

describe('npm pack, then npm install --engine-strict into an empty folder', () => {
  let app: string;
  let installLog: string;

  beforeAll(async () => {
    requireBuild();
    const packs = tempDir('cr-pack-');
    // dist/ is already built (npm test builds first): pack it as it is.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], {
      cwd: PROJECT_ROOT,
      env: npmEnv(),
    });
    const [{ filename }] = JSON.parse(stdout) as Array<{ filename: string }>;
    app = tempDir('cr-app-');
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const installed = await run(
      'npm',
      [
        'install',
        '--engine-strict',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--omit=dev',
        '--omit=optional',
        join(packs, filename!),
      ],
      {
        cwd: app,
        env: npmEnv(),
      },
    );
    installLog = installed.stdout + installed.stderr;
  }, 240_000);

  it('installs without an engine warning and brings no development tool', () => {
    expect(installLog).not.toContain('EBADENGINE');
    const top = readdirSync(join(app, 'node_modules'));
    for (const dev of DEV_ONLY) expect(existsSync(join(app, 'node_modules', dev)), `${dev} was installed`).toBe(false);
    expect(top).toContain('conda-resolve');
    expect(existsSync(join(app, 'node_modules', 'zstd-napi')), 'the optional native zstd was installed').toBe(false);
  });

  it('links a conda-resolve binary that resolves', async () => {
    const bin = join(app, 'node_modules', '.bin', 'conda-resolve');
    const version = await run(bin, ['--version'], { cwd: app });
    expect(version.stdout).toMatch(/^conda-resolve \d+\.\d+\.\d+\n$/);
    const solved = await run(bin, ['-c', DEMO, '-p', 'linux-64', 'python=3.9', '--format', 'explicit'], {
      cwd: app,
      env: packedEnv(),
    });
    expect(solved.stdout).toContain('/linux-64/python-3.9.19-');
  });

  it('can be imported as a library', async () => {
    const script = `import { resolveEnvironments, toNative } from 'conda-resolve';
const resolution = await resolveEnvironments({ specs: ['python=3.9'], channels: [${JSON.stringify(DEMO)}], platforms: ['osx-arm64'] });
console.log(JSON.stringify(toNative(resolution).map((p) => [p.platform, p.error, p.packages.length])));`;
    writeFileSync(join(app, 'use.mjs'), script);
    const { stdout } = await run(process.execPath, ['use.mjs'], {
      cwd: app,
      env: packedEnv(),
    });
    expect(JSON.parse(stdout)).toEqual([['osx-arm64', null, expect.any(Number)]]);
  });
});
