/**
 * `serve --condarc FILE` applies the file's network settings to the server: retries (a channel
 * that answers 503 twice is still solved), mirrors (the first one down), and stored credentials
 * from the auth file its environment names (a channel behind basic auth). The allowlist stays the
 * authority: a mirror that is not on it is refused, and the file's `channels` change nothing.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { call, injectTestServer } from '../http/helpers/test-server.js';
import { DEMO, tempDir } from '../cli/run-cli.js';

const PASSWORD = 'srv-pa55-8812';
let channels: ChannelServer;
let deadUrl: string;
let failures = 0;

beforeAll(async () => {
  channels = await startChannelServer({ root: join(DEMO, '..'), auth: { basic: { user: 'ci', password: PASSWORD } } });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => channels.close());

function files(condarc: string): { condarc: string; auth: string } {
  const dir = tempDir('cr-serve-');
  const auth = join(dir, 'auth.json');
  writeFileSync(auth, JSON.stringify({ [`127.0.0.1:${channels.port}`]: { BasicHTTP: { username: 'ci', password: PASSWORD } } }));
  writeFileSync(join(dir, 'server.condarc'), condarc);
  return { condarc: join(dir, 'server.condarc'), auth };
}

describe('serve --condarc', () => {
  it('retries, falls back to the next mirror and sends the stored credentials', async () => {
    const canonical = `${deadUrl}/canonical`;
    const real = `${channels.url}/demo`;
    const { condarc, auth } = files(
      `remote_max_retries: 3\nremote_backoff_factor: 0\nchannels: [elsewhere]\nmirrors:\n  ${canonical}:\n    - ${deadUrl}/demo\n    - ${real}\n`,
    );
    failures = 0;
    channels.intercept = (_req, res) => {
      if (failures >= 2) return false;
      failures++;
      res.writeHead(503).end();
      return true;
    };
    const server = await injectTestServer(
      { condarc, 'allow-channel': [canonical, `${deadUrl}/demo`, real], 'default-channel': [canonical], 'allow-local-channels': false },
      { RATTLER_AUTH_FILE: auth },
    );
    try {
      const answer = await call(server.app, 'POST', '/resolve?format=explicit', {
        json: { specs: ['python=3.9'], platforms: ['linux-64'] },
      });
      expect(answer.status).toBe(200);
      // The canonical URL, never the mirror's, and no password.
      expect(answer.text).toContain(`${canonical}/linux-64/python-3.9`);
      expect(answer.text).not.toContain(PASSWORD);
      expect(failures).toBe(2);
      const served = channels.log.filter((e) => e.status === 200);
      expect(served.length).toBeGreaterThan(0);
      expect(served.every((e) => e.headers.authorization?.startsWith('Basic '))).toBe(true);
    } finally {
      channels.intercept = undefined;
      await server.close();
    }
  });

  it('refuses a mirror that is not on the allowlist', async () => {
    const canonical = `${deadUrl}/canonical`;
    const { condarc, auth } = files(`remote_max_retries: 0\nmirrors:\n  ${canonical}:\n    - ${channels.url}/demo\n`);
    const before = channels.log.length;
    const server = await injectTestServer(
      { condarc, 'allow-channel': [canonical], 'default-channel': [canonical], 'allow-local-channels': false },
      { RATTLER_AUTH_FILE: auth },
    );
    try {
      const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['python=3.9'], platforms: ['linux-64'] } });
      const [result] = answer.json<{ error: string | null }[]>();
      // linux-64 or noarch, whichever subdir's load reaches the mirror first.
      expect(result!.error).toMatch(new RegExp(`Cannot use channel URL "${channels.url.replace(/[.]/g, '\\.')}/demo/(linux-64|noarch)/`));
      expect(result!.error).toContain("it is not on this server's channel allowlist");
      expect(channels.log.length).toBe(before);
    } finally {
      await server.close();
    }
  });

  it('does not read credentials from the home directory', async () => {
    const home = tempDir('cr-home-');
    writeFileSync(join(home, '.netrc'), `machine 127.0.0.1 login ci password ${PASSWORD}\n`);
    const { condarc } = files('remote_max_retries: 0\n');
    const real = `${channels.url}/demo`;
    const server = await injectTestServer(
      { condarc, 'allow-channel': [real], 'default-channel': [real], 'allow-local-channels': false },
      { HOME: home },
    );
    try {
      const answer = await call(server.app, 'POST', '/resolve', { json: { specs: ['python=3.9'], platforms: ['linux-64'] } });
      const [result] = answer.json<{ error: string | null }[]>();
      expect(result!.error).toContain(`no credentials were sent for 127.0.0.1:${channels.port}`);
      expect(answer.text).not.toContain(PASSWORD);
    } finally {
      await server.close();
    }
  });

  it('names a --condarc file that does not exist', async () => {
    await expect(injectTestServer({ condarc: join(tempDir(), 'missing.condarc') })).rejects.toThrow(/missing\.condarc.*no such file/);
  });
});
