/**
 * Remote mode against a real `conda-resolve serve` (started here on 127.0.0.1, port 0, local
 * channels allowed, serving the demo channel as a file:// URL), plain, through a plain front on
 * ::1 and behind a TLS front with the test certificate. Needs `npm run build` first (`npm test`
 * does).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { cleanupRun, runAction, type ActionRun } from './action-runner.js';
import {
  ACTION_ROOT,
  CLI_ENTRY,
  DEMO_CHANNEL_URL,
  makeToolBox,
  startResolveServer,
  startHttpFront,
  startTlsFront,
  TLS_CA_FILE,
  type Front,
  type ResolveServer,
  type TlsFront,
  type ToolBox,
} from './helpers.js';

const ENV_FILE = await readFile(join(PROJECT_ROOT, 'fixtures', 'action', 'environment.yml'), 'utf8');

let tools: ToolBox;
let v4: ResolveServer;
let v6: Front;
let front: TlsFront;
const runs: ActionRun[] = [];

beforeAll(async () => {
  tools = await makeToolBox();
  v4 = await startResolveServer({ host: '127.0.0.1', cacheDir: join(tools.dir, 'server-cache-4') });
  // The IPv6 case is about the action (an [::1] endpoint: loopback, no proxy, curl's URL), so the
  // same server answers it through a front on ::1: a second server's start-up was ~2.5 s of CPU.
  [v6, front] = await Promise.all([startHttpFront(v4.url, { host: '::1' }), startTlsFront(v4.url)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([v4?.close(), v6?.close(), front?.close()]);
  await tools?.cleanup();
});
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => cleanupRun(run)));
});

async function remote(
  inputs: Record<string, string>,
  files: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<ActionRun> {
  const workspace = await mkdtemp(join(tmpdir(), 'cr-action-ws-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  const run = await runAction({
    inputs: { mode: 'remote', channels: DEMO_CHANNEL_URL, ...inputs },
    actionPath: ACTION_ROOT,
    workspace,
    env: { ...tools.env, ...env },
  });
  runs.push(run);
  return run;
}

type NativeResult = Array<{ platform: string; packages: Array<{ name: string; version: string; url: string }>; error: string | null }>;
const names = (result: NativeResult, i = 0) => result[i].packages.map((p) => p.name).sort();
const errors = (run: ActionRun) => run.annotations.filter((a) => a.level === 'error').map((a) => a.message);

describe('action remote mode against conda-resolve serve', () => {
  it('resolves specs (native JSON) and returns what the CLI returns for the same request', async () => {
    const run = await remote({ endpoint: `${v4.url}/`, specs: 'python=3.12,numpy', platforms: 'linux-64,osx-arm64' });
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.solved).toBe('true');
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(result.map((r) => [r.platform, r.error])).toEqual([
      ['linux-64', null],
      ['osx-arm64', null],
    ]);
    expect(names(result)).toEqual(expect.arrayContaining(['numpy', 'python', 'python_abi']));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        CLI_ENTRY,
        '-c',
        DEMO_CHANNEL_URL,
        '-p',
        'linux-64',
        '-p',
        'osx-arm64',
        'python=3.12',
        'numpy',
        '--cache-dir',
        join(tools.dir, 'cli-cache'),
      ],
      { env: { ...process.env, CI: 'true' } },
    );
    expect(result).toEqual(JSON.parse(stdout));
  });

  it('resolves an environment file sent whole', async () => {
    const run = await remote({ endpoint: v4.url, file: 'env/environment.yml', platforms: 'linux-64' }, { 'env/environment.yml': ENV_FILE });
    expect(run.failed, run.log).toBe(false);
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(names(result)).toEqual(expect.arrayContaining(['python', 'requests', 'certifi', 'idna']));
    expect(result[0].packages.find((p) => p.name === 'python')?.version).toBe('3.11.9');
  });

  it('combines a file and specs', async () => {
    const run = await remote(
      { endpoint: v4.url, file: 'environment.yml', specs: 'pip', platforms: 'linux-64' },
      { 'environment.yml': ENV_FILE },
    );
    expect(run.failed, run.log).toBe(false);
    expect(names(JSON.parse(run.outputs.result) as NativeResult)).toEqual(expect.arrayContaining(['pip', 'python', 'requests', 'wheel']));
  });

  it('reports a native partial failure with solved=false and succeeds', async () => {
    const run = await remote({ endpoint: v4.url, specs: 'linux-only-tool', platforms: 'linux-64,osx-arm64', output: 'partial.json' });
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.solved).toBe('false');
    const result = JSON.parse(await readFile(join(run.workspace, 'partial.json'), 'utf8')) as NativeResult;
    expect(result[0]).toMatchObject({ platform: 'linux-64', error: null });
    expect(result[1]).toMatchObject({ platform: 'osx-arm64', packages: [], error: expect.any(String) });
    expect(run.outputs.result).toBe(await readFile(join(run.workspace, 'partial.json'), 'utf8'));
  });

  it('exports with a format', async () => {
    const run = await remote({
      endpoint: v4.url,
      specs: 'python=3.12',
      platforms: 'linux-64,osx-arm64',
      format: 'pixi-lock-v6',
      output: 'pixi.lock',
    });
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.solved).toBe('true');
    expect(run.outputs.result).toMatch(/^version: 6\n/);
    expect(await readFile(join(run.workspace, 'pixi.lock'), 'utf8')).toBe(run.outputs.result);
  });

  it.each([
    ['a platform fails to solve', { specs: 'linux-only-tool', platforms: 'linux-64,osx-arm64', format: 'explicit' }, '500'],
    ['the requirements exporter on a solved environment', { specs: 'python', platforms: 'linux-64', format: 'requirements' }, '500'],
    ['an unknown format', { specs: 'python', platforms: 'linux-64', format: 'no-such-format' }, '400'],
    ['an unparsable spec', { specs: 'python=3.12,$(touch pwned)>>', platforms: 'linux-64' }, '400'],
  ])('fails when %s', async (_what, inputs, status) => {
    const run = await remote({ endpoint: v4.url, output: 'out.txt', ...inputs });
    expect(run.failed).toBe(true);
    expect(run.outputs).toEqual({ solved: 'false', result: '', changed: '', diff: '' });
    expect(errors(run)[0]).toContain(`answered HTTP ${status}`);
  });

  it('works over IPv6 loopback ([::1])', async () => {
    expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const run = await remote({ endpoint: `${v6.url}/`, specs: 'python=3.11', platforms: 'win-64' });
    expect(run.failed, run.log).toBe(false);
    expect(JSON.parse(run.outputs.result)[0]).toMatchObject({ platform: 'win-64', error: null });
  });

  it('works over HTTPS with a certificate curl trusts', async () => {
    const run = await remote(
      { endpoint: front.url, specs: 'python=3.12', platforms: 'linux-64', format: 'explicit' },
      {},
      { CURL_CA_BUNDLE: TLS_CA_FILE },
    );
    expect(run.failed, run.log).toBe(false);
    expect(run.outputs.result).toContain('@EXPLICIT');
  });

  it('sends unusual characters in specs and file content intact', async () => {
    const file = 'name: \'ünïcode $(touch pwned) `id` "q"\'\r\ndependencies:\n  # ${{ github.token }} \\ ;|&\n  - tzdata\n';
    const run = await remote(
      { endpoint: v4.url, file: "odd dir/it's environment.yml", specs: "python 3.11.*,requests[version='>=2.32']", platforms: 'linux-64' },
      { "odd dir/it's environment.yml": file },
    );
    expect(run.failed, run.log).toBe(false);
    const result = JSON.parse(run.outputs.result) as NativeResult;
    expect(names(result)).toEqual(expect.arrayContaining(['python', 'requests', 'tzdata']));
    expect(result[0].packages.find((p) => p.name === 'python')?.version).toBe('3.11.9');
  });
});
