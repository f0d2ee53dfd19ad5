/**
 * SIGTERM under load (issue 11): every request a client had already sent on an open connection is
 * answered, with its normal answer or the documented 503 `shutting-down` (problem+json,
 * `Connection: close`); none is reset. Keep-alive connections that send another request during the
 * drain get that 503; idle ones are closed with a FIN; the process exits 0.
 *
 * Runs the built server (`dist/`, built by `npm test`), so the signal handling is the real one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../cli/run-cli.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { RawConnection, type RawResponse } from './helpers/raw-http.js';
import { holdChannel, startServe } from './helpers/serve-process.js';

let channels: ChannelServer;
const cacheDirs: string[] = [];
beforeAll(async () => {
  requireBuild();
  channels = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
});
afterAll(async () => {
  await channels?.close();
  for (const dir of cacheDirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh cache each time, so the first resolve always asks the channel (which the test holds). */
function serveArgs(): string[] {
  const demo = `${channels.url}/demo`;
  const cacheDir = mkdtempSync(join(tmpdir(), 'cr-http-drain-'));
  cacheDirs.push(cacheDir);
  return [
    '--port',
    '0',
    '--allow-channel',
    demo,
    '--default-channel',
    demo,
    '--rate-limit',
    '0',
    '--workers',
    '1',
    '--cache-dir',
    cacheDir,
  ];
}

const RESOLVE = '/resolve?spec=python=3.11&platform=linux-64';

/** What a request got: its answer, or how its connection failed. */
type Outcome = { response: RawResponse } | { error: string };

function describeOutcome(outcome: Outcome): string {
  if ('error' in outcome) return `error ${outcome.error}`;
  const { status, headers } = outcome.response;
  if (status === 200) return '200';
  if (status === 503 && headers['content-type'] === 'application/problem+json' && headers.connection === 'close') {
    const body = JSON.parse(outcome.response.body) as { type: string; status: number; title: string; detail: string };
    if (body.type === 'urn:conda-resolve:problem:shutting-down' && body.status === 503 && body.title && body.detail)
      return '503 shutting-down';
  }
  return `unexpected ${outcome.response.head.split('\r\n')[0]} ${headers['content-type']}`;
}

async function outcomeOf(connection: RawConnection): Promise<Outcome> {
  try {
    return { response: await connection.next() };
  } catch (error) {
    return { error: String((error as { code?: string }).code ?? error) };
  }
}

describe('conda-resolve serve: SIGTERM drains without resetting a request', () => {
  it('answers every request already sent (1,000 over keep-alive and new connections) with 200 or 503, then exits 0', async () => {
    const serve = startServe(serveArgs());
    const url = await serve.url;
    try {
      // Keep-alive connections the server has accepted and answered once.
      const kept = await Promise.all(Array.from({ length: 400 }, () => RawConnection.open(url)));
      await Promise.all(kept.map((c) => c.get('/health')));
      const first = await Promise.all(kept.map((c) => c.next()));
      expect(first.every((r) => r.status === 200)).toBe(true);

      // A resolve held in flight, so the drain lasts until it is released.
      const hold = holdChannel(channels);
      const inFlight = kept[0]!;
      await inFlight.get(RESOLVE);
      await hold.arrived;

      // The burst: 600 new connections, each writing its request as soon as it is connected, and
      // another request on every kept connection, half written just before SIGTERM and half just
      // after (the server handles the signal somewhere in between).
      const send = (c: RawConnection, i: number) => void c.get(i % 2 === 0 ? RESOLVE : '/health').catch(() => undefined);
      const fresh = await Promise.all(
        Array.from({ length: 600 }, async (_, i) => {
          const c = await RawConnection.open(url);
          send(c, i);
          return c;
        }),
      );
      const burst = kept.slice(1);
      burst.slice(0, 200).forEach(send);
      serve.child.kill('SIGTERM');
      burst.slice(200).forEach(send);
      const outcomes = [...burst, ...fresh].map((c) => outcomeOf(c));

      // Released once the server is draining, so the burst meets the drain with the resolve in flight.
      await serve.logLine('shutting down');
      hold.release();
      const results = [await outcomeOf(inFlight), ...(await Promise.all(outcomes))].map(describeOutcome);
      const tally: Record<string, number> = {};
      for (const result of results) tally[result] = (tally[result] ?? 0) + 1;
      expect(Object.entries(tally).filter(([k]) => k !== '200' && k !== '503 shutting-down')).toEqual([]);
      expect(results).toHaveLength(1000);
      expect(results[0]).toBe('200');

      expect(await serve.exit).toBe(0);
      expect(serve.stderr.join('\n')).toContain('"msg":"stopped"');
      // Every connection was closed by the server with a FIN, none reset.
      const closings = await Promise.all([...kept, ...fresh].map((c) => c.closed));
      expect(closings.filter((e) => e !== null).map((e) => e!.code)).toEqual([]);
    } finally {
      channels.intercept = undefined;
      serve.child.kill('SIGKILL');
    }
  }, 60_000);

  it('a keep-alive connection that sends a request during the drain gets the 503; idle ones get a FIN', async () => {
    const serve = startServe(serveArgs());
    const url = await serve.url;
    try {
      const busy = await RawConnection.open(url);
      const keepAlive = await RawConnection.open(url);
      const idle = await RawConnection.open(url);
      const silent = await RawConnection.open(url); // connected, never sends anything
      for (const c of [keepAlive, idle]) {
        await c.get('/health');
        expect((await c.next()).status).toBe(200);
      }

      const hold = holdChannel(channels);
      await busy.get(RESOLVE);
      await hold.arrived;
      serve.child.kill('SIGTERM');
      await serve.logLine('shutting down');

      // During the drain: still connected, and a new request is answered with the 503.
      expect(keepAlive.ended).toBe(false);
      await keepAlive.get('/health');
      const answer = await keepAlive.next();
      expect(describeOutcome({ response: answer })).toBe('503 shutting-down');
      expect(answer.headers['retry-after']).toBe('1');
      expect(await keepAlive.closed).toBeNull();

      hold.release();
      expect((await busy.next()).status).toBe(200);
      expect(await serve.exit).toBe(0);
      expect(await busy.closed).toBeNull();
      expect(await idle.closed).toBeNull();
      expect(idle.ended).toBe(true);
      expect(await silent.closed).toBeNull();
      expect(silent.ended).toBe(true);
    } finally {
      channels.intercept = undefined;
      serve.child.kill('SIGKILL');
    }
  }, 60_000);
});
