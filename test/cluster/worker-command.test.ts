/**
 * `conda-resolve worker` and `serve --redis` settings: what a user gets for a missing or bad Redis
 * URL and a bad thread count (in process, through `main`).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuild, runCli, tempDir } from '../cli/run-cli.js';
import { request } from 'undici';
import { startServe } from '../http/helpers/serve-process.js';
import { freePort } from './helpers.js';
import { loadConfig } from '../../src/http/config.js';

describe('conda-resolve worker', () => {
  it('--help describes the command', async () => {
    const result = await runCli(['worker', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: conda-resolve worker --redis URL/);
  });

  it('needs a Redis URL', async () => {
    const result = await runCli(['worker'], { env: { CONDA_RESOLVE_REDIS_URL: undefined } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('conda-resolve worker needs --redis URL (or CONDA_RESOLVE_REDIS_URL)');
  });

  it('names a URL that is not redis:// and where it came from', async () => {
    const flag = await runCli(['worker', '--redis', 'http://127.0.0.1:6379']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('Cannot use --redis: expected a redis:// or rediss:// URL');
    const variable = await runCli(['worker'], { env: { CONDA_RESOLVE_REDIS_URL: 'localhost:6379' } });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain('Cannot use CONDA_RESOLVE_REDIS_URL');
  });

  it('refuses at start a cache folder it cannot write in (issue 32)', async () => {
    const proc = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--cache-dir', '/proc/self']);
    expect(proc.code).toBe(2);
    expect(proc.stderr).toMatch(
      /^conda-resolve: error: Cannot use --cache-dir "\/proc\/self" as the repodata cache: cannot write in it \(.+\)\n$/,
    );
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const variable = await runCli(['worker', '--redis', 'redis://127.0.0.1:1'], { env: { CONDA_RESOLVE_CACHE_DIR: file } });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain(
      `Cannot use CONDA_RESOLVE_CACHE_DIR "${file}" as the repodata cache: cannot write in it (it is not a folder)`,
    );
  }, 15_000);

  it('refuses a bad thread count and an unknown flag', async () => {
    const threads = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--workers', 'two']);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toContain('Cannot use --workers "two": expected a whole number from 1 to 256');
    const ttl = await runCli(['worker', '--redis', 'redis://127.0.0.1:1'], { env: { CONDA_RESOLVE_SOLVE_CACHE_TTL: '0' } });
    expect(ttl.code).toBe(2);
    expect(ttl.stderr).toContain('Cannot use CONDA_RESOLVE_SOLVE_CACHE_TTL "0": expected a whole number from 1 to 31536000');
    const entries = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--solve-cache-entries', '1e3']);
    expect(entries.code).toBe(2);
    expect(entries.stderr).toContain('Cannot use --solve-cache-entries "1e3"');
    const unknown = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--port', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--port'");
  });
});

describe('conda-resolve worker as a process', () => {
  it('waits for a Redis that is not there, saying so once, and stops on SIGTERM with status 0', async () => {
    requireBuild();
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [CLI, 'worker', '--redis', `redis://:s3cret@127.0.0.1:${port}`, '--workers', '1', '--cache-dir', tempDir()],
      {
        env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (stderr.includes('Redis unreachable: waiting for it to come back')) resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr).toContain('stopped before Redis answered');
    expect(stderr.match(/Redis unreachable/g)).toHaveLength(1);
    expect(stderr).not.toContain('s3cret');
  });
});

describe('serve --redis as a process', () => {
  it('starts without Redis (health says so) and stops on SIGTERM with status 0', async () => {
    requireBuild();
    const port = await freePort();
    const server = startServe(['--port', '0', '--redis', `redis://127.0.0.1:${port}`, '--cache-dir', tempDir()]);
    const url = await server.url;
    const health = await request(`${url}/health`);
    expect(health.statusCode).toBe(503);
    expect(await health.body.json()).toMatchObject({ status: 'degraded', redis: { status: 'unreachable' } });
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
  });
});

describe('serve --redis settings', () => {
  it('takes the flag over the variable, and refuses a URL that is not redis://', () => {
    expect(loadConfig({ CONDA_RESOLVE_REDIS_URL: 'redis://a:6379' }, { redis: 'rediss://b:6380/1' }).redisUrl).toBe('rediss://b:6380/1');
    expect(loadConfig({ CONDA_RESOLVE_REDIS_URL: 'redis://a:6379' }).redisUrl).toBe('redis://a:6379');
    expect(loadConfig({}).redisUrl).toBe(null);
    expect(() => loadConfig({}, { redis: 'a:6379' })).toThrow(/Cannot use --redis: expected a redis:\/\/ or rediss:\/\/ URL/);
  });
});
