/**
 * `conda-resolve serve` as a real process (the built `dist/`): SIGTERM with a request in flight. The listening socket
 * closes once the kernel's queue of connections is taken (200 ms at least; then new connections are
 * refused), the request in flight still gets its answer, and the process exits with status 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { requireBuild } from '../cli/run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { holdChannel, startServe } from './helpers/serve-process.js';
import { call, type NativeBody } from './helpers/test-server.js';

let channels: ChannelServer;
let cacheDir: string;
beforeAll(async () => {
  requireBuild();
  channels = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
  cacheDir = mkdtempSync(join(tmpdir(), 'cr-http-sigterm-'));
});
afterAll(async () => {
  await channels?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('conda-resolve serve: graceful shutdown', () => {
  it('on SIGTERM refuses new connections, finishes the request in flight and exits 0', async () => {
    const demo = `${channels.url}/demo`;
    // Debug level: the server logs when its listening socket has closed.
    const serve = startServe(
      ['--port', '0', '--allow-channel', demo, '--default-channel', demo, '--rate-limit', '0', '--workers', '1', '--cache-dir', cacheDir],
      { logLevel: 'debug' },
    );
    const url = await serve.url;
    expect((await call(url, 'GET', '/health')).status).toBe(200);

    // Hold the channel's answers so the resolve stays in flight.
    const hold = holdChannel(channels);
    const inFlight = call(url, 'GET', '/resolve?spec=python=3.11&platform=linux-64');
    await hold.arrived;

    serve.child.kill('SIGTERM');
    await serve.logLine('listening socket closed');
    expect(await connectionRefused(url)).toBe(true);

    hold.release();
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const [result] = answer.json<NativeBody[]>();
    expect(result!.error).toBeNull();
    expect(result!.packages.map((p) => p.name)).toContain('python');

    expect(await serve.exit).toBe(0);
    const log = serve.stderr.join('\n');
    expect(log).toContain('shutting down');
    expect(log).toContain('"msg":"stopped"');
    channels.intercept = undefined;
  });

  it('a bad flag is a usage error (exit 2) naming it', async () => {
    const serve = startServe(['--port', 'many']);
    serve.url.catch(() => undefined);
    expect(await serve.exit).toBe(2);
    expect(serve.stderr.join('\n')).toContain('Cannot use --port "many"');
  });
});
