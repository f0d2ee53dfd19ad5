/**
 * Stored credentials: a channel behind basic auth served with the login from `~/.netrc` and from
 * the rattler/pixi auth file (`RATTLER_AUTH_FILE`), a token channel with a `CondaToken`, and a 401
 * that says which host refused. No password or token appears in any output, even with `-v`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialStore, parseAuthFile, parseNetrc } from '../../repodata/net/auth.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';

const PASSWORD = 'pa55-w0rd-xyz';
const TOKEN = 'tk-5ecret-0042';
let basic: ChannelServer;
let tokened: ChannelServer;

beforeAll(async () => {
  basic = await startChannelServer({ root: join(DEMO, '..'), auth: { basic: { user: 'alice', password: PASSWORD } } });
  tokened = await startChannelServer({ root: join(DEMO, '..'), auth: { token: TOKEN } });
});
afterAll(async () => {
  await basic.close();
  await tokened.close();
});

function env(home: string, more: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    HOME: home,
    CONDARC: undefined,
    NETRC: undefined,
    RATTLER_AUTH_FILE: undefined,
    HTTP_PROXY: undefined,
    http_proxy: undefined,
    ALL_PROXY: undefined,
    all_proxy: undefined,
    CONDA_REMOTE_MAX_RETRIES: '0',
    ...more,
  };
}

function expectNoSecrets(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(TOKEN);
  }
}

describe('a channel behind basic auth', () => {
  it('is served with the login of ~/.netrc', async () => {
    const home = tempDir('cr-home-');
    writeFileSync(join(home, '.netrc'), `machine 127.0.0.1\n  login alice\n  password ${PASSWORD}\n`);
    const run = await runCli(['-c', `${basic.url}/demo`, '-p', 'linux-64', '-q', '-v', '--format', 'explicit', 'python=3.9'], {
      env: env(home),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${basic.url}/demo/linux-64/python-3.9`);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('is served with a BasicHTTP entry of the auth file, keyed by host and port', async () => {
    const home = tempDir('cr-home-');
    const file = join(home, 'auth.json');
    writeFileSync(file, JSON.stringify({ [`127.0.0.1:${basic.port}`]: { BasicHTTP: { username: 'alice', password: PASSWORD } } }));
    const run = await runCli(['-c', `${basic.url}/demo`, '-p', 'linux-64', '-q', '-v', 'python=3.9'], {
      env: env(home, { RATTLER_AUTH_FILE: file }),
    });
    expect(run.code).toBe(0);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('without credentials: a 401 that says credentials are missing, for which host', async () => {
    const run = await runCli(['-c', `${basic.url}/demo`, '-p', 'linux-64', '-q', 'python=3.9'], { env: env(tempDir('cr-home-')) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`no credentials were sent for 127.0.0.1:${basic.port}`);
    expect(run.stderr).toMatch(/\.netrc|RATTLER_AUTH_FILE/);
  });

  it('with a wrong password: refused, and the password is not shown', async () => {
    const home = tempDir('cr-home-');
    writeFileSync(join(home, '.netrc'), `machine 127.0.0.1 login alice password wrong-${PASSWORD}\n`);
    const run = await runCli(['-c', `${basic.url}/demo`, '-p', 'linux-64', '-q', 'python=3.9'], { env: env(home) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the credentials for 127.0.0.1:${basic.port} were refused`);
    expectNoSecrets(run.stderr);
  });
});

describe('a token channel', () => {
  it('is served with a CondaToken entry of the auth file; -v shows the token redacted', async () => {
    const home = tempDir('cr-home-');
    const file = join(home, 'auth.json');
    writeFileSync(file, JSON.stringify({ '127.0.0.1': { CondaToken: TOKEN } }));
    const run = await runCli(['-c', `${tokened.url}/demo`, '-p', 'linux-64', '-q', '-v', '--format', 'explicit', 'python=3.9'], {
      env: env(home, { RATTLER_AUTH_FILE: file }),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`GET ${tokened.url}/t/<TOKEN>/demo/linux-64/repodata.json`);
    expect(run.stdout).toContain(`${tokened.url}/demo/linux-64/python-3.9`);
    expectNoSecrets(run.stdout, run.stderr);
  });

  it('a bad auth file is an error naming the file, not its contents', async () => {
    const home = tempDir('cr-home-');
    const file = join(home, 'auth.json');
    writeFileSync(file, JSON.stringify({ '127.0.0.1': { Token: TOKEN } }));
    const run = await runCli(['-c', `${tokened.url}/demo`, '-p', 'linux-64', '-q', 'python'], {
      env: env(home, { RATTLER_AUTH_FILE: file }),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Cannot read credentials file "${file}"`);
    expectNoSecrets(run.stderr);
  });
});

describe('lookups', () => {
  it('the auth file by host+path, host, then *.domain; .netrc by machine, then default', () => {
    const auth = parseAuthFile(
      JSON.stringify({
        'repo.example/private': { BearerToken: 'a' },
        'repo.example': { BearerToken: 'b' },
        '*.corp.example': { CondaToken: 'c' },
      }),
      'auth.json',
    );
    const store = new CredentialStore({
      authFile: auth,
      netrc: parseNetrc('machine other.example login u password p\ndefault login d password q\n'),
    });
    expect(store.lookup(new URL('https://repo.example/private/linux-64/x'))).toEqual({ kind: 'bearer', token: 'a' });
    expect(store.lookup(new URL('https://repo.example/public/x'))).toEqual({ kind: 'bearer', token: 'b' });
    expect(store.lookup(new URL('https://conda.corp.example/x'))).toEqual({ kind: 'conda-token', token: 'c' });
    expect(store.lookup(new URL('https://other.example/x'))).toEqual({ kind: 'basic', username: 'u', password: 'p' });
    expect(store.lookup(new URL('https://anything.example/x'))).toEqual({ kind: 'basic', username: 'd', password: 'q' });
  });
});
