/**
 * Mixed conda+PyPI answers in the server's solve cache: a repeated request is served from it (the
 * index sees page revalidations only, no metadata fetches), and a changed project page is solved
 * again.
 */
import { describe, expect, it } from 'vitest';
import { simpleProject, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';
import { usePypiServer } from './helpers/pypi-server.js';
import { call, injectTestServer, type InjectedServer } from './helpers/test-server.js';

let index: IndexServer;
let server: InjectedServer;
let channel: string;

usePypiServer(
  () => {
    // Pages are revalidated on every use (no max-age), as a lookup must see a changed page.
    return startIndexServer([simpleProject('toplib', ['1.0'], ['leaflib>=1']), simpleProject('leaflib', ['1.0', '1.1'])], {
      cacheControl: 'no-cache',
    });
  },
  (suite) => ({ index, server, channel } = suite),
);

const body = () => ({
  specs: ['python 3.12.*'],
  pypi: ['toplib'],
  index_url: index.indexUrl,
  channels: [channel],
  platforms: ['linux-64'],
});

async function resolve(): Promise<string[]> {
  const answer = await call(server.app, 'POST', '/resolve', { json: body() });
  expect(answer.status).toBe(200);
  const [result] = answer.json<{ packages: { name: string; version: string; manager: string }[]; error: string | null }[]>();
  expect(result!.error).toBeNull();
  return result!.packages.filter((p) => p.manager === 'pip').map((p) => `${p.name}==${p.version}`);
}

async function cacheStats(): Promise<{ hits: number; misses: number }> {
  return (await call(server.app, 'GET', '/health')).json<{ solve_cache: { hits: number; misses: number } }>().solve_cache;
}

const fileFetches = () => index.requests.filter((r) => r.path.startsWith('/files/')).length;

describe('mixed answers in the solve cache', () => {
  it('serves the same mixed request a second time from the cache, fetching no metadata', async () => {
    const before = await cacheStats();
    expect(await resolve()).toEqual(['leaflib==1.1', 'toplib==1.0']);
    const fetched = fileFetches();
    expect(fetched).toBeGreaterThan(0);
    const pages = index.requests.length;
    expect(await resolve()).toEqual(['leaflib==1.1', 'toplib==1.0']);
    const after = await cacheStats();
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(1);
    // The second request only asked whether the two pages changed.
    expect(fileFetches()).toBe(fetched);
    expect(index.requests.slice(pages).every((r) => r.path.startsWith('/simple/') && r.status === 304)).toBe(true);
  });

  it('solves again when a project page the answer read has changed', async () => {
    await resolve();
    index.setProject(simpleProject('leaflib', ['1.0', '1.1', '1.2']));
    const before = await cacheStats();
    expect(await resolve()).toEqual(['leaflib==1.2', 'toplib==1.0']);
    expect((await cacheStats()).misses - before.misses).toBeGreaterThanOrEqual(1);
  });
});

describe('the per-request bound on PyPI projects', () => {
  it('refuses a request that reaches more projects than --max-pypi-projects', async () => {
    const small = await injectTestServer({ 'allow-index': [index.indexUrl], 'allow-channel': [channel], 'max-pypi-projects': '1' });
    try {
      const answer = await call(small.app, 'POST', '/resolve', { json: body() });
      const [result] = answer.json<{ error: string | null; error_code?: string }[]>();
      expect(result!.error).toMatch(/more than 1 projects/);
    } finally {
      await small.close();
    }
  });
});
