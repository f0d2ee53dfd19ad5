/**
 * `serve --redis`: a mixed conda+PyPI answer solved by one replica is served to another from the
 * shared cache (the second fetches no metadata), and an entry whose PyPI record names a file the
 * index does not list is a miss.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisLink } from '../../src/cluster/redis-link.js';
import { simpleProject, startIndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';
import { call, injectTestServer } from '../http/helpers/test-server.js';
import { REDIS_SERVER, startRedis, until } from './helpers.js';

const describeRedis = REDIS_SERVER ? describe : describe.skip;

describeRedis('serve --redis: mixed answers in the shared cache', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  });

  it('shares a mixed answer between two replicas, and never serves a tampered one', async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const index = await startIndexServer([simpleProject('toplib', ['1.0'], ['leaflib']), simpleProject('leaflib', ['1.0', '2.0'])], {
      cacheControl: 'no-cache',
    });
    closers.push(() => index.close());
    const dir = mkdtempSync(join(tmpdir(), 'cr-cluster-pypi-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const channel = pathToFileURL(writePythonChannel(join(dir, 'channel'), ['linux-64'])).href;
    const link = new RedisLink(redis.url, { failFast: false });
    closers.push(() => link.close());
    const flags = { redis: redis.url, 'solve-cache': '0', 'allow-index': [index.indexUrl], 'allow-channel': [channel] };
    const body = { specs: ['python 3.12.*'], pypi: ['toplib'], index_url: index.indexUrl, channels: [channel], platforms: ['linux-64'] };
    const pins = (text: string) =>
      (JSON.parse(text) as { packages: { name: string; version: string; manager: string }[] }[])[0]!.packages
        .filter((p) => p.manager === 'pip')
        .map((p) => `${p.name}==${p.version}`);
    const files = () => index.requests.filter((r) => r.path.startsWith('/files/')).length;

    const first = await injectTestServer(flags);
    closers.push(() => first.close());
    await until(async () => (await call(first.app, 'GET', '/health')).status === 200, 10_000, 'the first replica to reach Redis');
    const answer = await call(first.app, 'POST', '/resolve', { json: body });
    expect(answer.status).toBe(200);
    expect(pins(answer.text)).toEqual(['leaflib==2.0', 'toplib==1.0']);
    const keys = await link.client.keys('conda-resolve:cache:*');
    expect(keys).toHaveLength(1);

    // A second replica (its own PyPI cache directory) gets the answer without reading any metadata.
    const second = await injectTestServer(flags);
    closers.push(() => second.close());
    await until(async () => (await call(second.app, 'GET', '/health')).status === 200, 10_000, 'the second replica to reach Redis');
    const fetched = files();
    const shared = await call(second.app, 'POST', '/resolve', { json: body });
    expect(shared.status).toBe(200);
    expect(shared.text).toBe(answer.text);
    expect(files()).toBe(fetched);
    expect((await call(second.app, 'GET', '/metrics')).text).toMatch(/result="hit"[^\n]* 1/);

    // Someone with access to Redis points leaflib at a file the index does not list: a miss, solved again.
    const entry = JSON.parse((await link.client.get(keys[0]!))!) as { outcome: { pypi: { name: string; url: string }[] } };
    entry.outcome.pypi.find((p) => p.name === 'leaflib')!.url = 'https://evil.example/leaflib-2.0-py3-none-any.whl';
    await link.client.set(keys[0]!, JSON.stringify(entry));
    const again = await call(second.app, 'POST', '/resolve', { json: body });
    expect(again.status).toBe(200);
    expect(again.text).not.toContain('evil.example');
    expect(pins(again.text)).toEqual(['leaflib==2.0', 'toplib==1.0']);
    expect(files()).toBeGreaterThan(fetched);
  });
});
