/**
 * Decompression across many platforms from a hostile (allowed) channel (issue 32, item 5): every
 * subdir's `repodata.json.zst` decodes to one gigantic JSON string. Each subdir fails as soon as
 * that one value passes the scanner's bound (never held whole, nine times over), each platform
 * says so, and no temp file is left. A load whose request gave up (the 504 of its time limit)
 * stops, instead of decoding on for nobody.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { until } from '../cluster/helpers.js';
import { zstdStringBomb as stringBomb } from '../helpers/hostile-kinds.js';
import { call, injectTestServer, type InjectedServer } from './helpers/test-server.js';

const PLATFORMS = ['linux-64', 'linux-aarch64', 'linux-ppc64le', 'osx-64', 'osx-arm64', 'win-64', 'win-arm64', 'linux-s390x'];

const RECORD_HEAD = '{"info":{},"packages":{"app-1-0.tar.bz2":{"name":"app","version":"1","build":"0","build_number":0,"depends":[],"junk":"';

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
    const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['app'], channels: [`${channel.url}/bomb`], platforms: PLATFORMS } });
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
    const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['app'], channels: [`${channel.url}/slow`], platforms: ['linux-64'] } });
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
    // A zstd frame's header and a whole document as its first (raw, not last) block.
    const doc = Buffer.from('{"info":{},"packages":{}}');
    const raw = doc.length << 3;
    const head = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38, raw & 0xff, (raw >> 8) & 0xff, (raw >> 16) & 0xff]), doc]);
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
      // 3 MiB of spaces after a whole document, then the body waits (holding its share) until released.
      res.writeHead(200);
      res.write(head);
      for (let i = 0; i < 24; i++) res.write(Buffer.from([0x02, 0x00, 0x10, 0x20]));
      const end = () => res.end(Buffer.from([0x03, 0x00, 0x10, 0x20]));
      if (holding) {
        held.push(end);
        // A subdir refused by the budget drops its download before the body ends.
        res.once('close', () => {
          if (!res.writableEnded) dropped++;
        });
      } else end();
      return true;
    };
    // A 4 MiB size cap: a budget of 16 MiB, which nine subdirs holding 3 MiB each pass.
    server = await injectTestServer({ 'allow-channel': [`${channel.url}/wide`], 'max-repodata-size': '4MiB' });
    const answering = call(server.app, 'POST', '/resolve', { json: { specs: ['app'], channels: [`${channel.url}/wide`], platforms: PLATFORMS } });
    // Once one subdir has been refused, the held bodies end (rather than wait for the stalled-download rule).
    await until(async () => held.length >= 6 && dropped >= 1, 30_000, 'six subdirs to hold their share, and one refused');
    holding = false;
    for (const release of held) release();
    const answer = await answering;
    const errors = answer.json<{ error: string | null }[]>().map((p) => p.error ?? '');
    expect(errors.some((e) => /more than 16 MiB of repodata is being decoded at once here, this server's decoding budget/.test(e)), errors.join('\n')).toBe(true);
    // Given back: the same channel, its bodies no longer held, loads within the budget.
    const again = await call(server.app, 'POST', '/resolve', { json: { specs: ['app'], channels: [`${channel.url}/wide`], platforms: ['linux-64', 'osx-arm64'] } });
    for (const p of again.json<{ error: string | null }[]>()) expect(p.error ?? '').not.toContain('decoding budget');
  }, 60_000);
});
