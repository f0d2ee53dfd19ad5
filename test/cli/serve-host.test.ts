/**
 * `conda-resolve serve` with a host it cannot listen on says so, naming the flag (or variable) and
 * the value, and exits 2 as for any bad setting, before starting workers or prewarming channels;
 * a port already in use is named too (exit 1: the server cannot start). Before, every one of these
 * read "Internal error: the solve failed unexpectedly".
 */
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { requireBuild, spawnCli, tempDir, TextSink } from './run-cli.js';

async function serve(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const io: CliIO = { stdout, stderr, env: { CONDA_RESOLVE_CACHE_DIR: tempDir('cr-serve-cache-'), ...env }, cwd: process.cwd() };
  const code = await main(['serve', '--log-level', 'silent', ...args], io);
  return { code, stderr: stderr.text, stdout: stdout.text };
}

const servers: Pick<Server, 'close'>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('serve --host it cannot listen on', () => {
  const bad = 'not an address this machine can listen on';
  it.each([
    ['999.1.1.1', 'not an IPv4 address: each number is 0 to 255'],
    ['192.0.2.1', 'EADDRNOTAVAIL: no network interface of this machine has that address'],
    ['no-such-host.invalid', /^(ENOTFOUND: not an IP address, and no host has that name|EAI_AGAIN: the name could not be looked up)$/],
    ['[::1]', 'write an IPv6 address without brackets: ::1'],
    ['http://localhost', 'give an IP address or a host name, such as 127.0.0.1, ::1 or 0.0.0.0'],
  ])('--host %s: exit 2 and an error naming the flag and the value', async (host, why) => {
    const { code, stderr, stdout } = await serve(['--host', host, '--port', '0']);
    expect(stdout).toBe('');
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/solve failed|Internal error/);
    const prefix = `conda-resolve: error: --host ${host}: ${bad} (`;
    expect(stderr.startsWith(prefix)).toBe(true);
    expect(stderr.endsWith(')\n')).toBe(true);
    const reason = stderr.slice(prefix.length, -2);
    if (typeof why === 'string') expect(reason).toBe(why);
    else expect(reason).toMatch(why);
  });

  it('names CONDA_RESOLVE_HOST when the host came from it', async () => {
    const { code, stderr } = await serve(['--port', '0'], { CONDA_RESOLVE_HOST: '999.1.1.1' });
    expect(code).toBe(2);
    expect(stderr).toBe(`conda-resolve: error: CONDA_RESOLVE_HOST=999.1.1.1: ${bad} (not an IPv4 address: each number is 0 to 255)\n`);
  });

  it('is refused at once, before --prewarm loads any channel', async () => {
    // A channel that records every request and answers none: a prewarm before the check would
    // show here (and hang the command).
    const asked: IncomingMessage[] = [];
    const channel = createHttpServer((req) => asked.push(req));
    servers.push(channel);
    await new Promise<void>((resolve) => channel.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const url = `http://127.0.0.1:${(channel.address() as { port: number }).port}/never`;
    const { code, stderr } = await serve(['--host', '192.0.2.1', '--port', '0', '--prewarm', `${url}/linux-64`, '--allow-channel', url]);
    expect(stderr).toContain(`--host 192.0.2.1: ${bad} (EADDRNOTAVAIL`);
    expect(code).toBe(2);
    expect(asked).toEqual([]);
  });
});

describe('serve --port already in use', () => {
  async function occupied(): Promise<number> {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
    return (server.address() as { port: number }).port;
  }

  it('names the port, the flag and EADDRINUSE, and exits 1', async () => {
    const port = await occupied();
    const { code, stderr } = await serve(['--host', '127.0.0.1', '--port', String(port)]);
    expect(stderr).toBe(
      `conda-resolve: error: --port ${port}: already in use on 127.0.0.1 (EADDRINUSE); stop what listens there or choose another port (--port 0 picks a free one)\n`,
    );
    expect(code).toBe(1);
  });

  it('names CONDA_RESOLVE_PORT when the port came from it', async () => {
    const port = await occupied();
    const { code, stderr } = await serve(['--host', '127.0.0.1'], { CONDA_RESOLVE_PORT: String(port) });
    expect(stderr).toMatch(
      new RegExp(`^conda-resolve: error: CONDA_RESOLVE_PORT=${port}: already in use on 127\\.0\\.0\\.1 \\(EADDRINUSE\\)`),
    );
    expect(code).toBe(1);
  });
});

describe('conda-resolve serve --host 999.1.1.1 (the built CLI)', () => {
  it('exits 2 with the host named', async () => {
    requireBuild();
    const { code, stdout, stderr } = await spawnCli(['serve', '--host', '999.1.1.1', '--port', '0']);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'conda-resolve: error: --host 999.1.1.1: not an address this machine can listen on (not an IPv4 address: each number is 0 to 255)\n',
    );
    expect(code).toBe(2);
  });
});
