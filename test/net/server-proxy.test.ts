/**
 * The server behind a proxy: `serve --condarc FILE` whose `proxy_servers` reaches a channel on a
 * made-up host; the channel allowlist still judges every target URL (a channel not on it is
 * refused before the proxy sees anything).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { call, injectTestServer, type InjectedServer, type ProblemBody } from '../http/helpers/test-server.js';
import { DEMO, tempDir } from '../cli/run-cli.js';

let channels: ChannelServer;
let proxy: ForwardProxy;
let server: InjectedServer;
let allowed: string;

beforeAll(async () => {
  channels = await startChannelServer({ root: join(DEMO, '..') });
  proxy = await startForwardProxy({ 'conda.internal.test': '127.0.0.1', 'other.internal.test': '127.0.0.1' });
  allowed = `http://conda.internal.test:${channels.port}/demo`;
  const condarc = join(tempDir(), 'server.condarc');
  writeFileSync(condarc, `proxy_servers:\n  http: ${proxy.url}\nremote_max_retries: 0\n`);
  server = await injectTestServer({ condarc, 'default-channel': [allowed], 'allow-local-channels': false });
});
afterAll(async () => {
  await server.close();
  await proxy.close();
  await channels.close();
});

describe('serve --condarc with a proxy', () => {
  it('fetches an allowlisted channel through the proxy', async () => {
    const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['python=3.9'], platforms: ['linux-64'] } });
    expect(answer.status).toBe(200);
    expect(proxy.log).toContain(`GET ${allowed}/linux-64/repodata.json`);
  });

  it('refuses a channel off the allowlist before the proxy is asked', async () => {
    const other = `http://other.internal.test:${channels.port}/demo`;
    const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['python'], platforms: ['linux-64'], channels: [other] } });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>().detail).toContain('allowlist');
    expect(proxy.log.some((line) => line.includes('other.internal.test'))).toBe(false);
  });
});
