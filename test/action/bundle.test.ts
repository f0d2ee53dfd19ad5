/**
 * The action's committed one-file CLI (action/conda-resolve.mjs, issue 17 scope 2): CI fails when
 * it is not exactly what the sources build now, and it runs with nothing beside it but
 * package.json (for its version): no node_modules, no dist/, as on a cold runner after checkout.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { tempDir } from '../cli/run-cli.js';
import { startChannelServer } from '../helpers/channel-server.js';
import { shardChannel } from '../tools/shard-channel.js';

const run = promisify(execFile);
const BUNDLE = join(PROJECT_ROOT, 'action', 'conda-resolve.mjs');
const DEMO = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');

describe('action/conda-resolve.mjs', () => {
  it('is what the sources build now (else: npm run build:action, and commit it)', async () => {
    const check = await run(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-action.mjs'), '--check'], { cwd: PROJECT_ROOT }).catch(
      (error: { stderr: string; code: number }) => ({ stdout: '', stderr: error.stderr, code: error.code }),
    );
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/is up to date \(\d+ bytes\)\n$/);
  }, 120_000);

  it('runs alone in a checkout without node_modules: version, a resolve on worker-capable platforms, an export', async () => {
    const checkout = tempDir('cr-checkout-');
    mkdirSync(join(checkout, 'action'));
    copyFileSync(BUNDLE, join(checkout, 'action', 'conda-resolve.mjs'));
    copyFileSync(join(PROJECT_ROOT, 'package.json'), join(checkout, 'package.json'));
    const bin = join(checkout, 'action', 'conda-resolve.mjs');
    const env = { ...process.env, CONDA_RESOLVE_CACHE_DIR: tempDir('cr-cache-'), NODE_PATH: '' };
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect((await run(process.execPath, [bin, '--version'], { cwd: checkout, env })).stdout).toBe(`conda-resolve ${version}\n`);
    const solved = await run(
      process.execPath,
      [bin, '-c', DEMO, '-p', 'linux-64', '-p', 'osx-arm64', '-p', 'win-64', 'python=3.12', 'numpy', '--format', 'pixi-lock-v6'],
      {
        cwd: checkout,
        env,
      },
    );
    expect(solved.stdout).toMatch(/^version: 6\n/);
    for (const platform of ['linux-64', 'osx-arm64', 'win-64']) expect(solved.stdout).toContain(`/${platform}/numpy-`);
    const formats = await run(process.execPath, [bin, 'formats', '--json'], { cwd: checkout, env });
    expect((JSON.parse(formats.stdout) as { formats: string[] }).formats).toContain('conda-lock-v1');
  }, 60_000);

  it('reads repodata.json.zst and CEP 16 shards over HTTP without node_modules (zstd in WebAssembly)', async () => {
    // conda-forge serves both: the bundle must decode zstd with what it carries.
    const checkout = tempDir('cr-checkout-');
    mkdirSync(join(checkout, 'action'));
    copyFileSync(BUNDLE, join(checkout, 'action', 'conda-resolve.mjs'));
    copyFileSync(join(PROJECT_ROOT, 'package.json'), join(checkout, 'package.json'));
    const root = tempDir('cr-zst-channels-');
    await shardChannel({ source: DEMO, out: join(root, 'zst'), shards: false, zst: true });
    await shardChannel({ source: DEMO, out: join(root, 'sharded') });
    const server = await startChannelServer({ root, maxAge: 0 });
    try {
      const env = { ...process.env, CONDA_RESOLVE_CACHE_DIR: tempDir('cr-cache-'), NODE_PATH: '' };
      for (const layout of ['zst', 'sharded']) {
        const bin = join(checkout, 'action', 'conda-resolve.mjs');
        const solved = await run(
          process.execPath,
          [bin, '-c', `${server.url}/${layout}`, '-p', 'linux-64', 'python=3.12', '--format', 'explicit'],
          { cwd: checkout, env },
        );
        expect(solved.stdout, layout).toMatch(/\/linux-64\/python-3\.12\./);
      }
      const fetched = server.log.filter((entry) => entry.status === 200).map((entry) => entry.path.split('/').pop()!);
      expect(fetched).toContain('repodata.json.zst');
      expect(fetched.some((name) => name.endsWith('.msgpack.zst') && name !== 'repodata_shards.msgpack.zst')).toBe(true);
    } finally {
      await server.close();
    }
  }, 60_000);
});
