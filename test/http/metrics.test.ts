/**
 * GET /metrics on the real server's wiring (through `inject()`): Prometheus text that counts what
 * happened, per route and status, with solve durations, cache lookups, queue depth and repodata.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer } from './helpers/test-server.js';

let server: InjectedServer;
beforeAll(async () => {
  server = await injectTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** The value of one sample line, e.g. `name{a="b"} 3`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('counts requests by route and status, solves, cache lookups and repodata per channel', async () => {
    const body = { specs: ['numpy'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] };
    expect((await call(server.app, 'POST', '/resolve', { json: body })).status).toBe(200);
    expect((await call(server.app, 'POST', '/resolve', { json: body })).status).toBe(200);
    expect((await call(server.app, 'POST', '/resolve', { json: { specs: ['numpy'], platforms: ['nonsense-64'] } })).status).toBe(400);
    expect((await call(server.app, 'GET', '/nowhere')).status).toBe(404);

    const answer = await call(server.app, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = answer.text;
    expect(sample(text, 'conda_resolve_http_requests_total', { route: '/resolve', method: 'POST', status: '200' })).toBe(2);
    expect(sample(text, 'conda_resolve_http_requests_total', { route: '/resolve', method: 'POST', status: '400' })).toBe(1);
    expect(sample(text, 'conda_resolve_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    // The second resolve came from the in-memory cache: one solve timed, one hit in two lookups.
    expect(sample(text, 'conda_resolve_solve_duration_seconds_count', { outcome: 'solved' })).toBe(1);
    expect(sample(text, 'conda_resolve_solve_cache_lookups_total', { cache: 'memory', result: 'hit' })).toBe(1);
    expect(sample(text, 'conda_resolve_solve_cache_hit_ratio', { cache: 'memory' })).toBe(0.5);
    expect(sample(text, 'conda_resolve_queue_depth', { queue: 'local', state: 'waiting' })).toBe(0);
    // The demo channel is local: its bytes were read from disk, and each subdir's load timed.
    expect(sample(text, 'conda_resolve_repodata_bytes_total', { channel: DEMO_CHANNEL, source: 'cache' })).toBeGreaterThan(0);
    expect(sample(text, 'conda_resolve_repodata_load_seconds_count', { channel: DEMO_CHANNEL })).toBeGreaterThanOrEqual(2);
  });

  it('names channels without their credentials', async () => {
    const { Metrics } = await import('../../src/http/metrics.js');
    const metrics = new Metrics();
    metrics.repodata({ channel: 'https://user:s3cret@repo.example.com/private', subdir: 'linux-64', phase: 'fetch', bytes: 500 });
    metrics.repodata({ channel: 'https://user:s3cret@repo.example.com/private', subdir: 'linux-64', phase: 'fetch', bytes: 1200 });
    metrics.repodata({ channel: 'https://user:s3cret@repo.example.com/private', subdir: 'linux-64', phase: 'done', records: 3 });
    const text = await metrics.text();
    expect(text).not.toContain('s3cret');
    expect(sample(text, 'conda_resolve_repodata_bytes_total', { source: 'network' })).toBe(1200);
  });
});
