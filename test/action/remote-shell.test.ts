/**
 * Remote mode's shell logic, against a stand-in server that answers as the seed says (native array,
 * exporter text, problem details, errors), so every branch of the action's remote and output steps
 * can be driven: the request it builds, what it accepts and refuses, and the outputs it sets.
 * The same cases against a real `conda-resolve serve` are in remote-server.test.ts.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupRun, runAction, type ActionRun } from './action-runner.js';
import {
  makeToolBox,
  nativeReply,
  startStandInServer,
  startTlsFront,
  TLS_CA_FILE,
  type Call,
  type RecordedRequest,
  type StandInServer,
  type TlsFront,
  type ToolBox,
} from './helpers.js';

let tools: ToolBox;
let server: StandInServer;
const runs: ActionRun[] = [];

beforeAll(async () => {
  tools = await makeToolBox();
  server = await startStandInServer();
});
afterAll(async () => {
  await server.close();
  await tools.cleanup();
});
beforeEach(() => {
  server.requests.length = 0;
  server.reply = (request) => nativeReply(request);
});
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => cleanupRun(run)));
});

interface RemoteOptions {
  env?: Record<string, string | undefined>;
  files?: Record<string, string>;
}

async function remote(inputs: Record<string, string>, options: RemoteOptions = {}): Promise<ActionRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'cr-action-ws-'));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  const run = await runAction({ inputs: { mode: 'remote', ...inputs }, workspace, env: { ...tools.env, ...options.env } });
  runs.push(run);
  return run;
}

/** The log may say which inputs were given, never what they were. */
function expectLogFree(run: ActionRun, values: readonly string[]): void {
  for (const value of values) expect(run.log, `the log shows "${value}"`).not.toContain(value);
}

const errors = (run: ActionRun) => run.annotations.filter((a) => a.level === 'error').map((a) => a.message);

// Specs with characters a shell, a URL or JSON would treat specially.
const ODD_SPECS = [
  'numpy >=1.26',
  "python[version='>=3.11']",
  'a"b',
  '$(touch pwned)',
  '`id`',
  'x;y|z&',
  'naïve-ünï',
  'tab\there',
  ' lead',
  'trail ',
];
const ODD_FILE = 'name: odd\r\n# $(touch pwned) `id` ${{ github.token }} \\ "q" \'s\' ünïcode ✓\ndependencies:\n  - python=3.12\n\n\n';

describe('action remote mode: the request', () => {
  it('POSTs the specs, channels and platforms as JSON to <endpoint>/resolve, split on commas and not trimmed', async () => {
    const run = await remote({
      endpoint: server.url,
      specs: ODD_SPECS.join(','),
      channels: 'conda-forge, bioconda,,x',
      platforms: 'linux-64,osx-arm64',
    });
    expect(run.failed).toBe(false);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/resolve');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-from-curlrc']).toBeUndefined(); // curl -q: .curlrc is not read
    expect(Object.keys(JSON.parse(request.body))).toEqual(['specs', 'channels', 'platforms']);
    expect(JSON.parse(request.body)).toEqual({
      specs: ODD_SPECS,
      channels: ['conda-forge', ' bioconda', '', 'x'],
      platforms: ['linux-64', 'osx-arm64'],
    });
    expect(existsSync(join(run.workspace, 'pwned'))).toBe(false);
    expectLogFree(run, [...ODD_SPECS.filter((s) => s.trim().length > 3), 'bioconda', 'osx-arm64', server.url]);
    expect(run.log).toContain('specs: provided');
    expect(run.log).toContain('file: not provided');
  });

  it('sends a file whole, byte for byte, with its basename', async () => {
    const run = await remote(
      { endpoint: server.url, file: 'envs/dev/environment.yml', channels: '' },
      { files: { 'envs/dev/environment.yml': ODD_FILE } },
    );
    expect(run.failed).toBe(false);
    const body = JSON.parse(server.requests[0].body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['file', 'filename']);
    expect(body.file).toBe(ODD_FILE);
    expect(body.filename).toBe('environment.yml');
    expectLogFree(run, ['envs/dev', 'ünïcode', 'touch pwned']);
  });

  it('sends both a file and specs (the server combines them)', async () => {
    const run = await remote(
      { endpoint: server.url, file: 'specs.txt', specs: 'numpy', platforms: 'linux-64' },
      { files: { 'specs.txt': 'python=3.12\n' } },
    );
    expect(run.failed).toBe(false);
    expect(JSON.parse(server.requests[0].body)).toEqual({
      file: 'python=3.12\n',
      filename: 'specs.txt',
      specs: ['numpy'],
      channels: ['conda-forge'],
      platforms: ['linux-64'],
    });
  });

  /**
   * One run serves three cases (each run starts some twenty processes): an endpoint with one
   * trailing slash, plain http to 127.0.0.1, and every proxy variable set to a dead proxy. Made by
   * the first case that needs it, with the requests and curl calls it made.
   */
  let loopbackRun: Promise<{ run: ActionRun; requests: RecordedRequest[]; curl: Call[] }> | undefined;
  const sharedLoopbackRun = () => {
    loopbackRun ??= (async () => {
      const before = (await tools.curlCalls()).length;
      const from = server.requests.length;
      const deadProxy = 'http://127.0.0.1:9';
      const run = await remote(
        { endpoint: `${server.url}/`, specs: 'numpy' },
        {
          env: {
            http_proxy: deadProxy,
            HTTP_PROXY: deadProxy,
            https_proxy: deadProxy,
            HTTPS_PROXY: deadProxy,
            ALL_PROXY: deadProxy,
            all_proxy: deadProxy,
            NO_PROXY: undefined,
            no_proxy: undefined,
          },
        },
      );
      // afterEach removes the runs' folders; this one is kept to the end of the describe.
      runs.splice(runs.indexOf(run), 1);
      return { run, requests: server.requests.slice(from), curl: (await tools.curlCalls()).slice(before) };
    })();
    return loopbackRun;
  };
  afterAll(async () => {
    if (loopbackRun) await cleanupRun((await loopbackRun).run);
  });

  it('removes exactly one trailing slash from the endpoint', async () => {
    const shared = await sharedLoopbackRun();
    const from = server.requests.length;
    await remote({ endpoint: `${server.url}/api//`, specs: 'numpy' });
    expect([...shared.requests, ...server.requests.slice(from)].map((r) => r.url)).toEqual(['/resolve', '/api//resolve']);
  });

  it('puts the format in the query, URL-encoded', async () => {
    server.reply = () => ({ status: 200, body: 'text' });
    await remote({ endpoint: server.url, specs: 'numpy', format: 'environment-yaml' });
    await remote({ endpoint: server.url, specs: 'numpy', format: 'a b&c=d/é+%' });
    expect(server.requests.map((r) => r.url)).toEqual(['/resolve?format=environment-yaml', '/resolve?format=a%20b%26c%3Dd%2F%C3%A9%2B%25']);
  });

  it('runs curl with -q first, http/https only, the time and size limits, and no proxy for loopback', async () => {
    const calls = (await sharedLoopbackRun()).curl;
    expect(calls).toHaveLength(1);
    const argv = calls[calls.length - 1].argv;
    expect(argv[0]).toBe('-q');
    const pairs = new Map<string, string>();
    for (let i = 0; i < argv.length - 1; i++) if (argv[i].startsWith('--')) pairs.set(argv[i], argv[i + 1]);
    expect(pairs.get('--proto')).toBe('=http,https');
    expect(pairs.get('--connect-timeout')).toBe('10');
    expect(pairs.get('--max-time')).toBe('300');
    expect(pairs.get('--max-filesize')).toBe(String(100 * 1024 * 1024));
    expect(pairs.get('--noproxy')).toBe('*');
    expect(pairs.get('--url')).toBe(`${server.url}/resolve`);
    expect(argv).not.toContain('--location');
    expect(argv).not.toContain('-L');
  });

  it('bypasses proxies for a loopback endpoint', async () => {
    const { run, requests } = await sharedLoopbackRun();
    expect(run.failed).toBe(false);
    expect(requests).toHaveLength(1);
  });
});

describe('action remote mode: endpoints it refuses before sending anything', () => {
  let other: StandInServer;
  beforeAll(async () => {
    // 127.0.0.2 is loopback on Linux but not one of the three hosts plain http is allowed for.
    other = await startStandInServer({ host: '127.0.0.2' });
  });
  afterAll(async () => other.close());

  it.each([
    ['plain http to another host', () => `http://127.0.0.2:${new URL(other.url).port}`],
    ['plain http with loopback as user info', () => `http://127.0.0.1@127.0.0.2:${new URL(other.url).port}`],
    ['plain http to a name that starts with localhost', () => `http://localhost.localdomain:${new URL(other.url).port}`],
    ['plain http to a public host', () => 'http://example.com'],
    ['plain http with a non-numeric port', () => 'http://127.0.0.1:80x'],
    ['another scheme', () => 'ftp://127.0.0.1/'],
    ['no scheme', () => `127.0.0.1:${new URL(other.url).port}`],
    ['a query string', () => `${server.url}/?next=1`],
    ['spaces', () => `${server.url} /x`],
    ['a backslash', () => `http://127.0.0.1\\@127.0.0.2:${new URL(other.url).port}`],
  ])('%s', async (_what, endpoint) => {
    const before = (await tools.curlCalls()).length;
    const run = await remote({ endpoint: endpoint(), specs: 'numpy' });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(run.outputs.result).toBe('');
    expect(errors(run)[0]).toMatch(/endpoint/);
    expect((await tools.curlCalls()).length).toBe(before);
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
    expectLogFree(run, [endpoint()]);
  });

  it.each(['http://LOCALHOST:{port}', 'http://127.0.0.1:{port}/', 'HTTP://127.0.0.1:{port}'])(
    'accepts plain http to loopback: %s',
    async (template) => {
      const run = await remote({ endpoint: template.replace('{port}', new URL(server.url).port), specs: 'numpy' });
      expect(run.failed).toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe('action remote mode: HTTPS', () => {
  let front: TlsFront;
  beforeAll(async () => {
    front = await startTlsFront(server.url);
  });
  afterAll(async () => front.close());

  it('accepts an https endpoint whose certificate curl trusts (CURL_CA_BUNDLE)', async () => {
    for (const endpoint of [front.url, front.url.replace('127.0.0.1', 'localhost')]) {
      const run = await remote(
        { endpoint: `${endpoint}/`, specs: 'numpy', platforms: 'linux-64' },
        { env: { CURL_CA_BUNDLE: TLS_CA_FILE } },
      );
      expect(run.failed, run.log).toBe(false);
      expect(run.outputs.solved).toBe('true');
    }
    expect(server.requests.map((r) => r.url)).toEqual(['/resolve', '/resolve']);
  });

  it('fails on a certificate curl does not trust', async () => {
    const run = await remote({ endpoint: front.url, specs: 'numpy' }, { env: { CURL_CA_BUNDLE: undefined, SSL_CERT_FILE: undefined } });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(errors(run)[0]).toMatch(/TLS connection to the endpoint failed/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('action remote mode: responses', () => {
  it('native success: solved=true and result is the body, unchanged', async () => {
    let body = '';
    server.reply = (request) => {
      const reply = nativeReply(request);
      body = `${JSON.stringify(JSON.parse(String(reply.body)), null, 2)}\n\n`;
      return { ...reply, body };
    };
    const run = await remote({ endpoint: server.url, specs: 'zlib', platforms: 'linux-64,win-64', output: 'out/native.json' });
    expect(run.failed).toBe(false);
    expect(run.outputs).toEqual({ solved: 'true', result: body, changed: '', diff: '' });
    expect(await readFile(join(run.workspace, 'out/native.json'), 'utf8')).toBe(body);
    expect(run.log).not.toContain('"zlib"'); // the body is not printed
    // Without the audit input, no audit request is made, and no file of the action is left behind.
    expect((await readdir(run.runnerTemp)).filter((name) => name.startsWith('conda-resolve-'))).toEqual([]);
  });

  it('native partial failure: the action succeeds with solved=false', async () => {
    server.reply = (request) => nativeReply(request, ['osx-arm64']);
    const run = await remote({ endpoint: server.url, specs: 'zlib', platforms: 'linux-64,osx-arm64' });
    expect(run.failed).toBe(false);
    expect(run.outputs.solved).toBe('false');
    expect(JSON.parse(run.outputs.result)[1]).toMatchObject({ platform: 'osx-arm64', packages: [], error: expect.any(String) });
    expect(run.annotations).toContainEqual({
      level: 'warning',
      message: '1 of 2 platforms failed to solve (each has a non-null error); solved is false',
    });
  });

  it('format success: the body is not parsed, solved=true, output written exactly', async () => {
    const text = 'not json {\nsolved=false\nresult<<EOF\nEOF\n%0A\n';
    server.reply = () => ({ status: 200, body: text, headers: { 'content-type': 'application/yaml' } });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'environment-yaml', output: 'env.yml' });
    expect(run.failed).toBe(false);
    expect(run.outputs).toEqual({ solved: 'true', result: text, changed: '', diff: '' });
    expect(await readFile(join(run.workspace, 'env.yml'), 'utf8')).toBe(text);
  });

  it('format failure (HTTP 500): the action fails, shows the problem title but not its detail', async () => {
    server.reply = () => ({
      status: 500,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ type: 'about:blank', title: 'Solve failed', status: 500, detail: 'osx-arm64: nothing provides secret-pkg' }),
    });
    const run = await remote({ endpoint: server.url, specs: 'secret-pkg', format: 'explicit', output: 'lock.txt' });
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toMatch(/answered HTTP 500 \(Solve failed\)/);
    expect(run.log).not.toContain('secret-pkg');
    expect(existsSync(join(run.workspace, 'lock.txt'))).toBe(false);
  });

  it.each([
    [400, 'application/problem+json', '{"title":"Unknown format","status":400}'],
    [404, 'text/plain', 'not found'],
    [301, 'text/plain', 'moved'],
    [503, 'text/html', '<h1>busy</h1>'],
    [418, 'text/plain', 'teapot'],
  ])('any status but 2xx fails the action (%i)', async (status, type, body) => {
    server.reply = () => ({ status, body, headers: { 'content-type': type, location: '/elsewhere' } });
    const run = await remote({ endpoint: server.url, specs: 'zlib' });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(errors(run)[0]).toContain(`HTTP ${status}`);
    expect(server.requests).toHaveLength(1); // redirects are not followed
  });

  it('accepts any 2xx status', async () => {
    server.reply = () => ({ status: 203, body: 'lock text\n' });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' });
    expect(run.failed).toBe(false);
    expect(run.outputs).toEqual({ solved: 'true', result: 'lock text\n', changed: '', diff: '' });
  });

  it.each([
    ['an object', '{"platform":"linux-64"}'],
    ['an array of non-objects', '[1,2]'],
    ['two arrays', '[] []'],
    ['an array then text', '[]\nconda-resolve: warning: x'],
    ['not JSON', 'hello'],
    ['nothing', ''],
  ])('native mode fails when the body is %s', async (_what, body) => {
    server.reply = () => ({ status: 200, body, headers: { 'content-type': 'application/json' } });
    const run = await remote({ endpoint: server.url, specs: 'zlib', output: 'out.json' });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(errors(run)[0]).toMatch(/not a native result/);
    expect(existsSync(join(run.workspace, 'out.json'))).toBe(false);
  });

  it('gives a placeholder result for a body over 100,000 characters, and the whole body in output', async () => {
    const big = `${'x'.repeat(100_000)}\n`;
    server.reply = () => ({ status: 200, body: big });
    const withOutput = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit', output: 'deep/dir/big.txt' });
    expect(withOutput.failed).toBe(false);
    expect(withOutput.outputs.solved).toBe('true');
    expect(withOutput.outputs.result).toMatch(
      /^\(response larger than 100000 characters; it was written to the file named by the 'output' input\)$/,
    );
    expect(await readFile(join(withOutput.workspace, 'deep/dir/big.txt'), 'utf8')).toBe(big);
    const without = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' });
    expect(without.outputs.result).toMatch(/set the 'output' input/);
  });

  it('picks another delimiter when the body contains the generated one', async () => {
    // An `od` ahead of the real one: the first "random" delimiter is one the body contains.
    const bin = await mkdtemp(join(tmpdir(), 'cr-action-od-'));
    const counter = join(bin, 'count');
    await writeFile(
      join(bin, 'od'),
      `#!/usr/bin/env bash\nn=$(cat "${counter}" 2>/dev/null || echo 0)\necho $((n + 1)) > "${counter}"\n` +
        `if [ "$n" = 0 ]; then echo ' 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff'; else echo ' 0f 0e 0d 0c 0b 0a 09 08 07 06 05 04 03 02 01 00'; fi\n`,
      { mode: 0o755 },
    );
    const body = 'first\nCONDA_RESOLVE_00112233445566778899aabbccddeeff\nsolved=false\n';
    server.reply = () => ({ status: 200, body });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' }, { env: { PATH: `${bin}:${tools.env.PATH}` } });
    expect(run.failed).toBe(false);
    expect(run.outputs).toEqual({ solved: 'true', result: body, changed: '', diff: '' });
    expect(await readFile(counter, 'utf8')).toBe('2\n');
  });

  it('keeps a body of exactly 100,000 characters in result', async () => {
    const exact = `${'y'.repeat(99_999)}\n`;
    server.reply = () => ({ status: 200, body: exact });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' });
    expect(run.outputs.result).toBe(exact);
  });

  it('counts shell characters, not bytes, in a UTF-8 locale', async () => {
    const accents = 'é'.repeat(60_000); // 60,000 characters, 120,000 bytes
    server.reply = () => ({ status: 200, body: accents });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' }, { env: { LC_ALL: 'C.UTF-8' } });
    expect(run.outputs.result).toBe(accents);
  });

  it('fails clearly on a response over 100 MiB without downloading it', async () => {
    server.reply = () => ({ status: 200, body: '', headers: { 'content-length': String(100 * 1024 * 1024 + 1) }, cutAfterHeaders: true });
    const run = await remote({ endpoint: server.url, specs: 'zlib', format: 'explicit' });
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toMatch(/larger than 100 MiB/);
  });

  it('fails clearly when nothing listens at the endpoint', async () => {
    const closed = await startStandInServer();
    await closed.close();
    const run = await remote({ endpoint: closed.url, specs: 'zlib' });
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toMatch(/could not connect/);
  });
});

describe('action remote mode: inputs it refuses', () => {
  it('needs an endpoint', async () => {
    const run = await remote({ specs: 'zlib' });
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toBe("The 'endpoint' input is required when mode is 'remote'");
  });

  it('needs specs or a file', async () => {
    const run = await remote({ endpoint: server.url });
    expect(run.failed).toBe(true);
    expect(errors(run)[0]).toMatch(/Nothing to resolve/);
    expect(server.requests).toHaveLength(0);
  });

  it('fails on a missing file without naming it', async () => {
    const run = await remote({ endpoint: server.url, file: 'no/such/environment.yml' });
    expect(run.failed).toBe(true);
    expect(run.outputs.solved).toBe('false');
    expect(errors(run)[0]).toMatch(/does not exist/);
    expectLogFree(run, ['no/such']);
    expect(server.requests).toHaveLength(0);
  });
});

describe('action mode input', () => {
  it.each(['Remote', 'REMOTE', 'remote ', 'ssh', ''])('fails on mode %j without a request', async (mode) => {
    const before = (await tools.curlCalls()).length;
    const run = await runAction({ inputs: { mode, endpoint: server.url, specs: 'zlib' }, env: tools.env });
    runs.push(run);
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toBe("Unsupported mode: the 'mode' input must be exactly 'local' or 'remote'");
    // GitHub's == ignores case, so 'Remote' would select the remote step: the check step stops it.
    expect(run.steps.filter((s) => s.ran).map((s) => s.id)).toEqual(['check', 'output']);
    expect((await tools.curlCalls()).length).toBe(before);
    expect(server.requests).toHaveLength(0);
  });
});
