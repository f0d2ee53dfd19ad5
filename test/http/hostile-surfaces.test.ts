/**
 * Issue 32 (never fall over, round two), the HTTP service's medium and low items: bodies of the
 * wrong media type on the inspect and diff routes, cross-site simple POSTs, Origin and Host on
 * `/mcp` (DNS rebinding), JSON-RPC batches on `/mcp` against the rate limit, `DELETE /mcp`.
 * Everything goes through `inject()` on the app `serve` builds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChannelServer } from '../helpers/channel-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { writePigeonChannel } from './helpers/pigeon-channel.js';
import { call, DEMO_CHANNEL, DEMO_CHANNEL_DIR, injectTestServer, type InjectedServer, type ProblemBody } from './helpers/test-server.js';

let server: InjectedServer;
beforeAll(async () => {
  server = await injectTestServer();
});
afterAll(async () => {
  await server?.close();
});

const demo = { channels: [DEMO_CHANNEL], platforms: ['linux-64'] };
const MCP_HEADERS = { accept: 'application/json, text/event-stream', host: '127.0.0.1:8000' };

function toolCall(id: number, specs: string[] = ['python=3.12']) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'resolve', arguments: { ...demo, specs } } };
}

describe('bodies a route cannot read', () => {
  it.each(['/diff', '/why-not', '/tree', '/why'])('POST %s with text/plain is a 415 naming application/json', async (path) => {
    const answer = await call(server.app, 'POST', path, { body: 'python=3.12', headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(415);
    expect(answer.type).toBe('application/problem+json');
    const problem = answer.json<ProblemBody & { supported_media_types: string[] }>();
    expect(problem.supported_media_types).toEqual(['application/json']);
    expect(problem.detail).toContain(path);
  });

  it('the same routes still take JSON', async () => {
    const answer = await call(server.app, 'POST', '/why', { json: { ...demo, specs: ['python=3.12'], name: 'python' } });
    expect(answer.status).toBe(200);
  });
});

describe('cross-site simple POSTs', () => {
  it('refuses a text/plain POST /resolve from another origin, which a browser sends without asking', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      body: 'python=3.12',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example', host: '127.0.0.1:8000' },
    });
    expect(answer.status).toBe(403);
    expect(answer.json<ProblemBody>().detail).toContain('https://evil.example');
  });

  it('refuses a form POST and a body-less POST from another origin too', async () => {
    for (const headers of [{ 'content-type': 'application/x-www-form-urlencoded' }, {} as Record<string, string>]) {
      const answer = await call(server.app, 'POST', '/resolve?specs=python', {
        body: headers['content-type'] ? 'a=b' : undefined,
        headers: { ...headers, origin: 'http://attacker.test', host: '127.0.0.1:8000' },
      });
      expect(answer.status).toBe(403);
    }
  });

  it('still takes text/plain uploads without an Origin (curl, the action) and from the same origin (the UI)', async () => {
    const plain = await call(server.app, 'POST', `/resolve?channels=${encodeURIComponent(DEMO_CHANNEL)}&platforms=linux-64`, {
      body: 'python=3.12\n',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(200);
    const sameOrigin = await call(server.app, 'POST', '/resolve', {
      json: { ...demo, specs: ['python=3.12'] },
      headers: { origin: 'http://127.0.0.1:8000', host: '127.0.0.1:8000' },
    });
    expect(sameOrigin.status).toBe(200);
  });

  it('takes a JSON POST from another origin as before (the browser preflights it, and CORS decides)', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { ...demo, specs: ['python=3.12'] },
      headers: { origin: 'https://other.example' },
    });
    expect(answer.status).toBe(200);
  });
});

describe('/mcp Origin and Host (DNS rebinding)', () => {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  it('refuses a page on another origin', async () => {
    const answer = await call(server.app, 'POST', '/mcp', { json: list, headers: { ...MCP_HEADERS, origin: 'https://evil.example' } });
    expect(answer.status).toBe(403);
    expect(answer.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:forbidden-origin');
  });

  it('refuses a rebound DNS name in Host, even with a matching Origin, on a loopback server', async () => {
    const answer = await call(server.app, 'POST', '/mcp', {
      json: list,
      headers: { ...MCP_HEADERS, host: 'rebind.attacker.test:8000', origin: 'http://rebind.attacker.test:8000' },
    });
    expect(answer.status).toBe(403);
    expect(answer.json<ProblemBody>().detail).toContain('rebind.attacker.test');
  });

  it('takes the public name a reverse proxy forwards with --trust-proxy, or the host of a --cors-origin', async () => {
    for (const flags of [{ 'trust-proxy': true }, { 'cors-origin': ['https://resolve.example.org'] }]) {
      const proxied = await injectTestServer(flags);
      try {
        const answer = await call(proxied.app, 'POST', '/mcp', { json: list, headers: { ...MCP_HEADERS, host: 'resolve.example.org' } });
        expect(answer.status).toBe(200);
      } finally {
        await proxied.close();
      }
    }
  });

  it('answers clients without an Origin, and pages on its own origin', async () => {
    for (const headers of [MCP_HEADERS, { ...MCP_HEADERS, host: 'localhost:8000', origin: 'http://localhost:8000' }]) {
      const answer = await call(server.app, 'POST', '/mcp', { json: list, headers });
      expect(answer.status).toBe(200);
    }
  });

  it('answers DELETE /mcp (a session end, which a stateless server has none of) with 405', async () => {
    // With a JSON content type and no body, as a client ending its session sends it.
    const answer = await call(server.app, 'DELETE', '/mcp', { headers: { ...MCP_HEADERS, 'content-type': 'application/json' } });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });
});

describe('/mcp batches', () => {
  it('refuses a JSON-RPC batch of tool calls with a 400 before running any', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => toolCall(i + 1));
    const answer = await call(server.app, 'POST', '/mcp', { json: batch, headers: MCP_HEADERS });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>().detail).toMatch(/one JSON-RPC message per request/);
  });

  it('keeps one client from filling the solve queue: beyond its share in flight, a 429', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cr-pigeons-'));
    // A quarter of a queue of 8: two requests at once per address.
    const limited = await injectTestServer({ 'rate-limit': '1000', 'max-queue': '8', workers: '1', timeout: '2', 'solve-cache': '0' });
    try {
      const { specs } = writePigeonChannel(dir, 12);
      const hard = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'resolve', arguments: { specs, channels: [pathToFileURL(dir).href], platforms: ['linux-64'] } },
      };
      const answers = await Promise.all([
        call(limited.app, 'POST', '/mcp', { json: hard, headers: MCP_HEADERS }),
        call(limited.app, 'POST', '/resolve', { json: { specs, channels: [pathToFileURL(dir).href], platforms: ['linux-64'] } }),
        call(limited.app, 'POST', '/mcp', { json: hard, headers: MCP_HEADERS }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 504, 429]);
      expect(answers[2]!.headers['retry-after']).toBe('1');
      expect(answers[2]!.json<ProblemBody>().detail).toContain('2 requests from this address are being answered');
      // Once they are done, the client may ask again.
      expect((await call(limited.app, 'POST', '/mcp', { json: toolCall(9), headers: MCP_HEADERS })).status).toBe(200);
    } finally {
      await limited.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts each call against the rate limit: 10 single calls pass, the 11th is a 429', async () => {
    const limited = await injectTestServer({ 'rate-limit': '10' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push((await call(limited.app, 'POST', '/mcp', { json: toolCall(i), headers: MCP_HEADERS })).status);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
      expect(statuses[10]).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('/metrics label cardinality', () => {
  it('labels repodata by the allowlist entry, not by each sub-path a client names', async () => {
    // A channel server that answers any path with the demo channel's repodata.
    const channels = await startChannelServer({ root: DEMO_CHANNEL_DIR });
    channels.intercept = (req, res) => {
      const subdir = /\/(linux-64|noarch)\/repodata\.json$/.exec(req.url ?? '')?.[1];
      if (!subdir) return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end(readFileSync(join(DEMO_CHANNEL_DIR, subdir, 'repodata.json')));
      return true;
    };
    const allowed = `${channels.url}/allowed`;
    const local = await injectTestServer({ 'allow-channel': [allowed] });
    try {
      for (let i = 0; i < 6; i++) {
        const answer = await call(local.app, 'POST', '/resolve', {
          json: { specs: ['python=3.12'], channels: [`${allowed}/sub${i}/x`], platforms: ['linux-64'] },
        });
        expect(answer.status).toBe(200);
      }
      const text = (await call(local.app, 'GET', '/metrics')).text;
      const labels = new Set([...text.matchAll(/^conda_resolve_repodata_bytes_total\{channel="([^"]*)"/gm)].map((m) => m[1]));
      expect([...labels]).toEqual([allowed]);
    } finally {
      await local.close();
      await channels.close();
    }
  });
});

describe('/why-not and credentials', () => {
  it("redacts the password and token of the tried spec's channel", async () => {
    const spec = 'https://user:s3cret@repo.example.invalid/t/tk-123456/private::numpy<1.25';
    const answer = await call(server.app, 'POST', '/why-not', { json: { ...demo, specs: ['python=3.12'], spec } });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('repo.example.invalid');
    expect(answer.text).not.toContain('s3cret');
    expect(answer.text).not.toContain('tk-123456');
  });
});

describe('exporter plugins in serve', () => {
  it('logs each plugin it loads', async () => {
    const plugin = join(PROJECT_ROOT, 'fixtures', 'plugins', 'conda-resolve-exporter-toml');
    const withPlugin = await injectTestServer({}, { CONDA_RESOLVE_PLUGINS: plugin });
    try {
      const line = await withPlugin.logged((l) => l.includes('loaded exporter plugin'));
      expect(JSON.parse(line)).toMatchObject({
        level: 30,
        plugin: 'conda-resolve-exporter-toml',
        version: '1.4.0',
        location: plugin,
        formats: ['toml'],
      });
    } finally {
      await withPlugin.close();
    }
  });
});
