/**
 * Decompression across many platforms from a hostile (allowed) channel (issue 32, item 5): every
 * subdir's `repodata.json.zst` decodes to one gigantic JSON string. Each subdir fails as soon as
 * that one value passes the scanner's bound (never held whole, nine times over), each platform
 * says so, and no temp file is left. A load whose request gave up (the 504 of its time limit)
 * stops, instead of decoding on for nobody.
 */
import { readdirSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { until } from '../cluster/helpers.js';
import { zstdStringBomb as stringBomb } from '../helpers/hostile-kinds.js';
import { call, injectTestServer, type InjectedServer } from './helpers/test-server.js';

const PLATFORMS = ['linux-64', 'linux-aarch64', 'linux-ppc64le', 'osx-64', 'osx-arm64', 'win-64', 'win-arm64', 'linux-s390x'];

const RECORD_HEAD =
  '{"info":{},"packages":{"app-1-0.tar.bz2":{"name":"app","version":"1","build":"0","build_number":0,"depends":[],"junk":"';

function tempFiles(dir: string): string[] {
  const found: string[] = [];
  for (const part of ['repodata', 'local']) {
    try {
      found.push(...readdirSync(join(dir, part)).filter((name) => name.endsWith('.tmp')));
    } catch {
      // not made
    }
  }
  return found;
}

/**
 * A `repodata.json.zst` body that decodes 3 MiB and then waits: a zstd frame's header, a whole
 * document as its first (raw, not last) block, 3 MiB of spaces in RLE blocks. Returns what ends it.
 */
function writeHeldBody(res: ServerResponse): () => void {
  const doc = Buffer.from('{"info":{},"packages":{}}');
  const raw = doc.length << 3;
  res.writeHead(200);
  res.write(Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, raw & 0xff, (raw >> 8) & 0xff, (raw >> 16) & 0xff]), doc]));
  for (let i = 0; i < 24; i++) res.write(Buffer.from([0x02, 0x00, 0x10, 0x20]));
  return () => res.end(Buffer.from([0x03, 0x00, 0x10, 0x20]));
}

let server: InjectedServer | undefined;
let channel: ChannelServer | undefined;
afterEach(async () => {
  await server?.close();
  await channel?.close();
  server = channel = undefined;
});

describe('a channel whose every subdir decodes to one gigantic JSON string', () => {
  it('8 platforms and noarch: each platform fails naming the value, no temp file is left', async () => {
    const bomb = stringBomb(RECORD_HEAD, 256);
    channel = await startChannelServer({ root: '/nonexistent' });
    channel.intercept = (req, res) => {
      if (!(req.url ?? '').endsWith('/repodata.json.zst')) res.writeHead(404).end();
      else res.writeHead(200, { 'content-length': bomb.length }).end(bomb);
      return true;
    };
    server = await injectTestServer({ 'allow-channel': [`${channel.url}/bomb`] });
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/bomb`], platforms: PLATFORMS },
    });
    expect(answer.status).toBe(200);
    const platforms = answer.json<{ platform: string; error: string | null }[]>();
    expect(platforms.map((p) => p.platform)).toEqual(PLATFORMS);
    for (const p of platforms) expect(p.error).toMatch(/a single JSON value at byte \d+ is larger than 16 MiB/);
    // The loads of other platforms' subdirs that were still running stop too, and clean up.
    await until(async () => tempFiles(server!.config.cacheDir!).length === 0, 30_000, 'no temp file left');
  }, 120_000);
});

describe('a load nobody waits for any more', () => {
  it('stops after the 504 of its time limit, and leaves no temp file', async () => {
    let open = 0;
    let closed = 0;
    channel = await startChannelServer({ root: '/nonexistent' });
    channel.intercept = (req, res) => {
      if (!(req.url ?? '').endsWith('/linux-64/repodata.json.zst')) {
        res.writeHead(404).end();
        return true;
      }
      // A body that trickles forever: its load ends only when the server stops reading.
      open++;
      res.writeHead(200);
      res.write(stringBomb(RECORD_HEAD, 1).subarray(0, 64));
      const timer = setInterval(() => res.write(Buffer.from([0x02, 0x00, 0x00, 0x61])), 200);
      res.once('close', () => {
        clearInterval(timer);
        closed++;
      });
      return true;
    };
    server = await injectTestServer({ 'allow-channel': [`${channel.url}/slow`], timeout: '1' });
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/slow`], platforms: ['linux-64'] },
    });
    expect(answer.status).toBe(504);
    // The load reached the trickling body (or a loaded machine gave up before it did: nothing open).
    expect(open).toBeLessThanOrEqual(1);
    // Not a duration: a load that went on would hold the connection until its download limit (60 s).
    await until(async () => closed === open, 20_000, 'the abandoned load to close its connection');
    await until(async () => tempFiles(server!.config.cacheDir!).length === 0, 20_000, 'the temp file to go');
  }, 60_000);
});

describe('the global decoding budget', () => {
  it('subdirs decoding at once past it fail saying so; the budget is given back when they end', async () => {
    const held: (() => void)[] = [];
    let holding = true;
    let dropped = 0;
    channel = await startChannelServer({ root: '/nonexistent' });
    channel.intercept = (req, res) => {
      const url = req.url ?? '';
      if (!url.endsWith('/repodata.json.zst')) {
        res.writeHead(404).end();
        return true;
      }
      // The body waits (holding its share) until released.
      const end = writeHeldBody(res);
      if (holding) {
        held.push(end);
        // A subdir refused by the budget drops its download before the body ends.
        res.once('close', () => {
          if (!res.writableEnded) dropped++;
        });
      } else end();
      return true;
    };
    // A 4 MiB size cap: a budget of 16 MiB, which nine subdirs holding 3 MiB each pass (the request's
    // own budget as large as the global one, which is then the one passed).
    server = await injectTestServer({
      'allow-channel': [`${channel.url}/wide`],
      'max-repodata-size': '4MiB',
      'max-request-decoding': '16MiB',
    });
    const answering = call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/wide`], platforms: PLATFORMS },
    });
    // Once one subdir has been refused, the held bodies end (rather than wait for the stalled-download rule).
    await until(async () => held.length >= 6 && dropped >= 1, 30_000, 'six subdirs to hold their share, and one refused');
    holding = false;
    for (const release of held) release();
    const answer = await answering;
    const errors = answer.json<{ error: string | null }[]>().map((p) => p.error ?? '');
    expect(
      errors.some((e) => /more than 16 MiB of repodata is being decoded at once here, this server's decoding budget/.test(e)),
      errors.join('\n'),
    ).toBe(true);
    // Given back: the same channel, its bodies no longer held, loads within the budget.
    const again = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/wide`], platforms: ['linux-64', 'osx-arm64'] },
    });
    for (const p of again.json<{ error: string | null }[]>()) expect(p.error ?? '').not.toContain('decoding budget');
  }, 60_000);
});

describe("a request's own decoding budget", () => {
  it('one request for 8 platforms of a hostile channel spends its own budget; a concurrent normal request is answered', async () => {
    // Hostile: each platform subdir's repodata.json.zst decodes 3 MiB, then the body waits, holding
    // what it decoded (noarch is missing, so no one load fails them all).
    const held: (() => void)[] = [];
    let hostileClosed = 0;
    // Normal: one small package, then (once the gate opens) 2 MiB of spaces before the document ends.
    let openGate: (() => void) | undefined;
    channel = await startChannelServer({ root: '/nonexistent' });
    channel.intercept = (req, res) => {
      const url = req.url ?? '';
      if (url === '/fine/linux-64/repodata.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(
          '{"info":{"subdir":"linux-64"},"packages":{"app-1-0.tar.bz2":{"name":"app","version":"1","build":"0","build_number":0,"depends":[]}}',
        );
        openGate = () => res.end(`${' '.repeat(2 * 1024 * 1024)}}`);
        return true;
      }
      if (!url.startsWith('/wide/') || url.startsWith('/wide/noarch/') || !url.endsWith('/repodata.json.zst')) {
        res.writeHead(404).end();
        return true;
      }
      res.once('close', () => hostileClosed++);
      held.push(writeHeldBody(res));
      return true;
    };
    // A 4 MiB size cap: a global budget of 16 MiB, and 8 MiB for each request (the default, 2 x the cap).
    server = await injectTestServer({ 'allow-channel': [`${channel.url}/wide`, `${channel.url}/fine`], 'max-repodata-size': '4MiB' });
    const normal = call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/fine`], platforms: ['linux-64'] },
    });
    await until(async () => openGate !== undefined, 30_000, 'the normal request to be loading');
    let hostileAnswered = false;
    const hostile = call(server.app, 'POST', '/resolve', {
      json: { specs: ['app'], channels: [`${channel.url}/wide`], platforms: PLATFORMS },
    }).finally(() => {
      hostileAnswered = true;
    });
    // With only the global budget, five hostile bodies hold 15 MiB of it and three fail; with the
    // request's own, all of its loads stop at 8 MiB and it is answered.
    await until(async () => hostileAnswered || hostileClosed >= 3, 30_000, 'the hostile request to take what it can');
    openGate!();
    const answer = await normal;
    for (const release of held) release();
    expect(answer.status).toBe(200);
    const [platform] = answer.json<{ platform: string; error: string | null; packages: { name: string }[] }[]>();
    expect(platform!.error).toBeNull();
    expect(platform!.packages.map((p) => p.name)).toEqual(['app']);
    const errors = (await hostile).json<{ platform: string; error: string | null }[]>();
    expect(errors.map((p) => p.platform)).toEqual(PLATFORMS);
    for (const p of errors) {
      expect(p.error).toMatch(
        /this request's repodata decodes to more than 8 MiB at once, its decoding budget on this server \(--max-request-decoding\)/,
      );
      expect(p.error).toContain(`/wide/${p.platform}`);
    }
  }, 60_000);
});
