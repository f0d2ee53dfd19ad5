/**
 * `conda-resolve worker` fetches under the replica's channel policy (issue 32, item 2). A channel
 * that answers the replica normally but the worker otherwise (a redirect to a host the allowlist
 * refuses, or a `base_url` there) must not make the worker fetch from that host, must not become a
 * smaller index (a solve without noarch), and must leave nothing in the shared solve cache.
 *
 * A replica (the real server through inject()) and a worker in this process, one private
 * redis-server. Skipped, with a message, when redis-server is not installed.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaPolicies } from '../../src/cli/commands/worker.js';
import { startSolveWorker, type RunningSolveWorker } from '../../src/cluster/worker.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { call, injectTestServer, type InjectedServer } from '../http/helpers/test-server.js';
import { REDIS_SERVER, startRedis, type RedisProcess } from './helpers.js';

const describeRedis = REDIS_SERVER ? describe : describe.skip;
if (!REDIS_SERVER)
  console.warn(
    '[conda-resolve tests] redis-server is not installed: the worker channel-policy tests are skipped (apt-get install redis-server)',
  );

const DEMO = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');

describeRedis("a worker applies the replica's channel policy", () => {
  let redis: RedisProcess;
  let channel: ChannelServer;
  let canary: Server;
  let canaryUrl = '';
  const canaryHits: string[] = [];
  let replica: InjectedServer;
  let worker: RunningSolveWorker;

  beforeAll(async () => {
    redis = await startRedis();
    canary = createServer((req, res) => {
      canaryHits.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    // Two copies of the demo channel, one per way of answering the worker otherwise than the replica.
    const root = mkdtempSync(join(tmpdir(), 'cr-two-faced-'));
    for (const name of ['redirect', 'base_url']) cpSync(DEMO, join(root, name), { recursive: true });
    channel = await startChannelServer({ root });
    const seen = new Map<string, number>();
    // The first request for a noarch file is the replica's, answered normally; the next, the worker's.
    channel.intercept = (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const kind = /^\/(redirect|base_url)\/noarch\/repodata/.exec(path)?.[1];
      if (!kind) return false;
      const count = (seen.get(path) ?? 0) + 1;
      seen.set(path, count);
      if (count === 1) return false;
      if (kind === 'redirect') {
        res.writeHead(302, { location: `${canaryUrl}${path}` }).end();
        return true;
      }
      if (!path.endsWith('/repodata.json')) {
        res.writeHead(404).end();
        return true;
      }
      const repodata = JSON.parse(readFileSync(join(root, kind, 'noarch', 'repodata.json'), 'utf8')) as { info?: Record<string, unknown> };
      repodata.info = { ...repodata.info, base_url: `${canaryUrl}/packages/` };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(repodata));
      return true;
    };
    replica = await injectTestServer({ redis: redis.url, 'allow-channel': [`${channel.url}/redirect`, `${channel.url}/base_url`] });
    worker = (await startSolveWorker({
      redisUrl: redis.url,
      cacheDir: mkdtempSync(join(tmpdir(), 'cr-worker-')),
      threads: 1,
      logger: pino({ level: 'silent' }),
      policyFor: await replicaPolicies(PROJECT_ROOT),
    }))!;
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await replica?.close();
    await channel?.close();
    canary?.close();
    await redis?.stop();
  });

  async function cachedSolves(): Promise<number> {
    const client = new Redis(redis.url);
    try {
      return (await client.keys('conda-resolve:cache:*')).length;
    } finally {
      client.disconnect();
    }
  }

  it.each(['redirect', 'base_url'] as const)(
    'a channel that answers the worker with a %s to a refused host: an error, no fetch there, nothing cached',
    async (kind) => {
      canaryHits.length = 0;
      // `tzdata` lives in noarch only: a worker that lost noarch could not have solved it.
      const answer = await call(replica.app, 'POST', '/resolve', {
        json: { specs: ['python', 'tzdata'], channels: [`${channel.url}/${kind}`], platforms: ['linux-64'] },
      });
      expect(canaryHits).toEqual([]);
      // The platform's error names the refused URL; no packages (never a solve without noarch).
      const [platform] = answer.json<{ platform: string; packages: unknown[]; error: string | null }[]>();
      expect(platform!.packages).toEqual([]);
      expect(platform!.error).toContain(canaryUrl);
      expect(await cachedSolves()).toBe(0);
    },
    60_000,
  );
});
