/**
 * `POST /mcp` with the SDK's own client (Streamable HTTP) against the real server on 127.0.0.1,
 * on the demo channel: the tools and their input schemas, each tool's answer, and the `/resolve`
 * limits and channel policy applied to tool calls.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CHANNEL, startTestServer, type TestServer } from '../http/helpers/test-server.js';

let server: TestServer;
let client: Client;
const demo = { channels: [DEMO_CHANNEL], platforms: ['linux-64'] };

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text: string }[];
}

async function callTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

beforeAll(async () => {
  server = await startTestServer({ 'max-specs': '4' });
  client = new Client({ name: 'conda-resolve-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('MCP at POST /mcp', () => {
  it('lists the six tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['list_formats', 'resolve', 'search_packages', 'tree', 'why', 'why_not']);
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema as { properties?: Record<string, unknown>; required?: string[] }]));
    expect(Object.keys(byName.get('resolve')!.properties!)).toEqual(expect.arrayContaining(['specs', 'channels', 'platforms', 'format']));
    expect(byName.get('why')!.required).toEqual(['name']);
    expect(byName.get('why_not')!.required).toEqual(['spec']);
    expect(byName.get('search_packages')!.required).toEqual(['query']);
    expect(Object.keys(byName.get('tree')!.properties!)).toEqual(expect.arrayContaining(['specs', 'depth', 'invert']));
  });

  it('resolve: native JSON, or an exporter text with format', async () => {
    const native = await callTool('resolve', { ...demo, specs: ['python=3.12'] });
    const [result] = JSON.parse(native.content[0]!.text) as { platform: string; packages: { name: string; version: string }[] }[];
    expect(result!.packages.find((p) => p.name === 'python')?.version).toBe('3.12.3');
    const explicit = await callTool('resolve', { ...demo, specs: ['python=3.12'], format: 'explicit' });
    expect(explicit.content[0]!.text).toMatch(/^# platform: linux-64$/m);
    expect(explicit.content[0]!.text).toContain('@EXPLICIT');
  });

  it('why: every path from the request, each step a depends entry of the demo channel', async () => {
    const answer = await callTool('why', { ...demo, specs: ['requests', 'python=3.11'], name: 'libzlib' });
    expect(answer.isError).toBeUndefined();
    const lines = answer.content[0]!.text.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'libzlib 1.3.1 h4bc722e_1 is needed by 4 paths:',
      '1. requested python=3.11',
      '   -> python 3.11.9 h4bc722e_0_cpython  (requested python=3.11)',
      '   -> libzlib 1.3.1 h4bc722e_1  (python depends on libzlib >=1.3.1,<2.0a0)',
    ]);
    // Then through requests directly, and through certifi and idna (each depends on python).
    expect(lines.filter((l) => /^\d\. /.test(l))).toEqual([
      '1. requested python=3.11',
      '2. requested requests',
      '3. requested requests',
      '4. requested requests',
    ]);
    expect(lines).toContain('   -> python 3.11.9 h4bc722e_0_cpython  (certifi depends on python >=3.7)');
    expect(lines).toContain('   -> python 3.11.9 h4bc722e_0_cpython  (idna depends on python >=3.6)');
  });

  it('tree and why_not', async () => {
    const tree = await callTool('tree', { ...demo, specs: ['pip', 'python=3.11'], depth: 1 });
    expect(tree.content[0]!.text.split('\n')[0]).toBe('pip 24.0 pyhd8ed1ab_0 [pip]');
    const [data] = JSON.parse(tree.content[1]!.text) as { roots: { name: string }[] }[];
    expect(data!.roots.map((r) => r.name)).toEqual(['pip', 'python']);
    const whyNot = await callTool('why_not', { ...demo, specs: ['python'], spec: 'python<3.10' });
    expect(whyNot.content[0]!.text).toContain('~ python 3.12.3 h4bc722e_0_cpython -> 3.9.19 h4bc722e_0_cpython');
    expect(whyNot.content[0]!.text).toContain('it prefers the higher version: python 3.12.3 over 3.9.19');
    const none = await callTool('why_not', { ...demo, specs: ['python=3.12'], spec: 'numpy<1.25' });
    expect(none.content[0]!.text).toBe(
      'The solution cannot have numpy<1.25 because numpy 1.24.4 requires python 3.9.19 .. 3.11.9, which conflicts with the requested python 3.12.*',
    );
  });

  it('list_formats and search_packages', async () => {
    const formats = JSON.parse((await callTool('list_formats', {})).content[0]!.text) as { formats: string[] };
    expect(formats.formats).toEqual(expect.arrayContaining(['explicit', 'environment-yaml']));
    const search = await callTool('search_packages', { query: 'num*>=1.26', channels: [DEMO_CHANNEL], platform: 'linux-64' });
    expect(search.content[0]!.text).toBe('numpy: 2.0.0, 1.26.4');
    const some = JSON.parse(
      (await callTool('search_packages', { query: 'lib*', channels: [DEMO_CHANNEL], platform: 'linux-64', limit: 2 })).content[1]!.text,
    ) as { packages: { name: string }[]; truncated: boolean };
    expect([some.packages.map((p) => p.name), some.truncated]).toEqual([['libcblas', 'libgcc'], true]);
  });

  it('refusals are tool errors with the problem text: limits, bad specs, the channel policy', async () => {
    const many = await callTool('tree', { ...demo, specs: ['a', 'b', 'c', 'd', 'e'] });
    expect(many.isError).toBe(true);
    const bad = await callTool('why_not', { ...demo, specs: ['python'], spec: 'numpy>>=2' });
    expect(bad).toMatchObject({ isError: true });
    expect(bad.content[0]!.text).toMatch(/numpy>>=2.*\(field: spec\)$/);
    const refused = await callTool('search_packages', { query: 'numpy', channels: ['https://127.0.0.1:9/chan'] });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain("not on this server's channel allowlist");
  });
});
