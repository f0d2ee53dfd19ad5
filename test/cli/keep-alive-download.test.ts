/**
 * A repodata.json of several megabytes from a server that keeps its connections alive (as CDNs
 * and conda.anaconda.org do). The response queues while the download's reader gets ready (its temp
 * file is opened first), and past 4 MB the queue pauses it: the reader must resume it. It did not
 * for a while, and such a download stalled at 4 MB until the time limit (`bench/scale.ts` serves
 * with python's http.server, which does not keep connections alive, so it never paused).
 */
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateChannel } from '../../bench/generate-channel.js';
import { exchange } from '../../repodata/http-response.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { requireBuild, spawnCli, tempDir } from './run-cli.js';

let server: ChannelServer;
let root: string;
let size: number;

beforeAll(async () => {
  requireBuild();
  root = tempDir('cr-keepalive-');
  // ~12,000 records: a linux-64 repodata.json of ~7 MB.
  generateChannel({ out: join(root, 'big'), records: 12_000, names: 600, noarchRecords: 200, noarchNames: 40, seed: 3 });
  size = statSync(join(root, 'big', 'linux-64', 'repodata.json')).size;
  server = await startChannelServer({ root, maxAge: 3600 });
});
afterAll(() => server.close());

describe('a download from a keep-alive server', () => {
  it('is read to the end by a reader that starts after the queue paused it', async () => {
    expect(size).toBeGreaterThan(6 << 20);
    const agent = new Agent();
    try {
      const head = await exchange(agent, { url: new URL(`${server.url}/big/linux-64/repodata.json`), headers: {} });
      expect(head.status).toBe(200);
      expect(String(head.headers.connection).toLowerCase()).toBe('keep-alive');
      await sleep(300); // the whole body would have come by now: the queue paused the response at 4 MB
      let received = 0;
      const piped = head.body.pipeTo((chunk) => {
        received += chunk.length;
      });
      const stalled = sleep(10_000).then(() => 'stalled');
      expect(await Promise.race([piped.then(() => 'done'), stalled])).toBe('done');
      expect(received).toBe(size);
    } finally {
      await agent.close();
    }
  });

  it('gives the CLI the whole repodata.json, and a solve from it', async () => {
    const before = server.log.length;
    const result = await spawnCli(['-c', `${server.url}/big`, '-p', 'linux-64', 'python', '--format', 'explicit', '--timeout', '60'], {
      cacheDir: tempDir('cr-cache-'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\/python-3[^\s]*\.(conda|tar\.bz2)/);
    const served = server.log.slice(before).filter((entry) => entry.path.endsWith('/linux-64/repodata.json'));
    expect(served.map((entry) => entry.status)).toEqual([200]);
  });
});
