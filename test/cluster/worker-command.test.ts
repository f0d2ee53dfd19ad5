/**
 * `conda-resolve worker` and `serve --redis` settings: what a user gets for a missing or bad Redis
 * URL and a bad thread count (in process, through `main`).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
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

  it('refuses a bad thread count and an unknown flag', async () => {
    const threads = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--workers', 'two']);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toContain('Cannot use --workers "two": expected a whole number from 1 to 256');
    const unknown = await runCli(['worker', '--redis', 'redis://127.0.0.1:1', '--port', '1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--port'");
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
