/**
 * `tree` and `why` on a mixed conda/PyPI solve, on the command line, over HTTP and through MCP:
 * PyPI distributions are nodes marked `pypi`, with an edge for each Requires-Dist that holds, and a
 * PyPI requirement the solve left to a conda package (the conda-to-PyPI mapping: here the name
 * rule, a `noarch: python` package provides its own name) is an edge to that conda package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexWheel, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';
import { writePythonChannel } from '../helpers/python-channel.js';
import { runCli } from '../cli/run-cli.js';
import { startTestServer, type TestServer } from '../http/helpers/test-server.js';

let index: IndexServer;
let dir: string;
let channel: string;

beforeAll(async () => {
  index = await startIndexServer([
    { name: 'webapp', files: [indexWheel('webapp', '2.0', ['helper>=1', 'requests>=2.30', 'winonly; sys_platform == "win32"'])] },
    { name: 'helper', files: [indexWheel('helper', '1.0'), indexWheel('helper', '1.2')] },
    { name: 'winonly', files: [indexWheel('winonly', '0.1')] },
    { name: 'dotted-name', files: [indexWheel('Dotted.Name', '1.0')] },
    { name: 'requests', files: [indexWheel('requests', '2.32.3')] },
  ]);
  dir = mkdtempSync(join(tmpdir(), 'cr-pypi-inspect-'));
  channel = pathToFileURL(
    writePythonChannel(
      join(dir, 'channel'),
      ['linux-64'],
      [{ name: 'requests', version: '2.31.0', noarch: 'python', depends: ['python >=3.8'] }],
    ),
  ).href;
});

afterAll(async () => {
  await index?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The index, channel and platform every command here runs against. */
const against = () => ['--index-url', index.indexUrl, '-c', channel, '-p', 'linux-64', '-q'];
const request = () => ['python 3.12.*', 'requests', '--pypi', 'webapp', ...against()];

describe('tree and why on a mixed solve (CLI)', () => {
  it('tree: PyPI nodes under their requirement, and the edge from a PyPI package to the conda package that provides what it requires', async () => {
    const { code, stdout, stderr } = await runCli(['tree', ...request()], { cwd: dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      'python 3.12.7 h0_0_cpython [python 3.12.*]',
      '└─ python_abi 3.12 5_cp312 [python_abi 3.12.* *_cp312]',
      'requests 2.31.0 h0_0 [requests]',
      '└─ python 3.12.7 h0_0_cpython [python >=3.8] (*)',
      'webapp 2.0 pypi [webapp]',
      '├─ helper 1.2 pypi [helper>=1]',
      '└─ requests 2.31.0 h0_0 [requests>=2.30] (*)',
      '',
    ]);
  });

  it('why: the paths to a conda package go through the PyPI requirement it satisfies', async () => {
    const { code, stdout } = await runCli(['why', 'requests', ...request()], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([
      'requests 2.31.0 h0_0 is needed by 2 paths:',
      '1. requested requests',
      '   -> requests 2.31.0 h0_0  (requested requests)',
      '2. requested webapp',
      '   -> webapp 2.0 pypi  (requested webapp)',
      '   -> requests 2.31.0 h0_0  (webapp depends on requests>=2.30)',
      '',
    ]);
  });

  it('why takes a PyPI name in any PEP 503 spelling', async () => {
    const { code, stdout } = await runCli(['why', 'dotted_NAME', 'python 3.12.*', '--pypi', 'Dotted.Name', ...against()], { cwd: dir });
    expect(stdout).toContain('dotted-name 1.0 pypi is needed by 1 path:');
    expect(code).toBe(0);
  });

  it('a root PyPI requirement that a conda package satisfies is a root edge to it', async () => {
    const { stdout } = await runCli(['why', 'requests', 'python 3.12.*', 'requests', '--pypi', 'requests>=2.30', ...against()], {
      cwd: dir,
    });
    expect(stdout).toContain('   -> requests 2.31.0 h0_0  (requested requests>=2.30)');
  });
});

describe('tree and why on a mixed solve (HTTP and MCP)', () => {
  let server: TestServer;
  let client: Client;
  const body = () => ({
    specs: ['python 3.12.*', 'requests'],
    pypi: ['webapp'],
    index_url: index.indexUrl,
    channels: [channel],
    platforms: ['linux-64'],
  });

  beforeAll(async () => {
    server = await startTestServer({ 'allow-index': [index.indexUrl], 'allow-channel': [channel] });
    client = new Client({ name: 'conda-resolve-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('POST /why names the PyPI step and the PyPI requirement a conda package satisfies', async () => {
    const ask = async (name: string) => {
      const answer = await fetch(`${server.url}/why`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body(), name }),
      });
      expect(answer.status).toBe(200);
      return (
        (await answer.json()) as {
          answer: { version: string; build: string; paths: { from: string | null; to: string; spec: string }[][] };
        }[]
      )[0]!.answer;
    };
    const helper = await ask('helper');
    expect(helper).toMatchObject({ version: '1.2', build: 'pypi' });
    expect(helper.paths).toEqual([
      [
        { from: null, to: 'webapp', spec: 'webapp' },
        { from: 'webapp', to: 'helper', spec: 'helper>=1' },
      ],
    ]);
    const requests = await ask('requests');
    expect(requests).toMatchObject({ version: '2.31.0', build: 'h0_0' });
    expect(requests.paths).toContainEqual([
      { from: null, to: 'webapp', spec: 'webapp' },
      { from: 'webapp', to: 'requests', spec: 'requests>=2.30' },
    ]);
  });

  it('the MCP tree tool carries the PyPI edges', async () => {
    const result = (await client.callTool({ name: 'tree', arguments: body() })) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBeUndefined();
    expect(result.content[0]!.text).toContain(
      'webapp 2.0 pypi [webapp]\n├─ helper 1.2 pypi [helper>=1]\n└─ requests 2.31.0 h0_0 [requests>=2.30] (*)',
    );
    const [data] = JSON.parse(result.content[1]!.text) as {
      roots: { name: string; build: string; children: { name: string; build: string; spec: string }[] }[];
    }[];
    const webapp = data!.roots.find((r) => r.name === 'webapp')!;
    expect(webapp.children.map((c) => `${c.name} ${c.build} ${c.spec}`)).toEqual(['helper pypi helper>=1', 'requests h0_0 requests>=2.30']);
  });
});

describe('why-not with PyPI (CLI)', () => {
  it('pypi:REQUIREMENT: already met, or what would change and the preference, or the conflict', async () => {
    const present = await runCli(['why-not', 'pypi:helper>=1', ...request()], { cwd: dir });
    expect(present.stdout).toBe('The solution already has pypi:helper>=1: helper 1.2 pypi\n');
    const byConda = await runCli(['why-not', 'pypi:requests>=2.31', ...request()], { cwd: dir });
    expect(byConda.stdout).toBe('The solution already has pypi:requests>=2.31: requests 2.31.0 h0_0\n');
    const older = await runCli(['why-not', 'pypi:helper<1.2', ...request()], { cwd: dir });
    expect(older.code).toBe(0);
    expect(older.stdout.split('\n')).toEqual([
      'The solution could have pypi:helper<1.2; 1 package would change:',
      '  ~ helper 1.2 pypi -> 1.0 pypi',
      'The solver chose the current one because, for helper (PyPI), it prefers the higher version: helper 1.2 over 1.0. Requested specs are settled first, in the order given, then their dependencies.',
      '',
    ]);
    const none = await runCli(['why-not', 'pypi:helper>=5', ...request()], { cwd: dir });
    expect(none.stdout).toMatch(/^The solution cannot have pypi:helper>=5 because /);
    const bad = await runCli(['why-not', 'pypi:helper>>1', ...request()], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Cannot parse PyPI requirement "helper>>1"');
  });

  it('pypi:REQUIREMENT on a request with no PyPI part asks the index the command line gave', async () => {
    const added = await runCli(['why-not', 'pypi:helper<1.2', 'python 3.12.*', ...against()], { cwd: dir });
    expect(added.stderr).not.toContain('pypi.org');
    expect(added.stdout.split('\n')[0]).toBe('The solution could have pypi:helper<1.2; 1 package would change:');
    expect(added.code).toBe(0);
  });
});
