/**
 * `POST /audit` and the MCP `audit` tool on a server started with `--osv-db`: a lock sent as the
 * request's file is audited against our hand-written OSV records of fixtures/osv/own, with the same channel
 * policy as `/resolve`; SARIF is valid; a server without a database answers 404. conda-forge
 * packages are mapped to PyPI names by the operator's file (`--pypi-mapping`, our hand-made
 * fixture here): the server fetches none.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { pythonRecord } from './records.js';
import { call, injectTestServer, startTestServer, type InjectedServer, type TestServer } from '../http/helpers/test-server.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { MAPPING_FIXTURE } from './mapping-server.js';
import { sarifErrors } from './schemas.js';

const RECORDS = join(PROJECT_ROOT, 'fixtures', 'osv', 'own');

const record = pythonRecord;

const LOCK = registerBuiltinExporters().render(
  'pixi',
  [
    {
      platform: 'linux-64',
      records: [record('requests', '2.31.0'), record('setuptools', '69.5.1'), record('python', '3.12.3')],
      channels: ['conda-forge'],
    },
  ],
  {
    toolName: 'conda-resolve',
    toolVersion: '0',
    now: new Date('2026-01-01T00:00:00Z'),
  },
);
const body = { file: LOCK, filename: 'pixi.lock' };

let server: InjectedServer;
beforeAll(async () => {
  server = await injectTestServer({ 'osv-db': RECORDS, 'pypi-mapping': MAPPING_FIXTURE, 'allow-channel': ['conda-forge'] });
});
afterAll(async () => server?.close());

describe('POST /audit', () => {
  it('audits a lock: findings with severity, not covered packages, the database named but not its path', async () => {
    const answer = await call(server.app, 'POST', '/audit', { json: body });
    expect(answer.status).toBe(200);
    const report = answer.json<{
      platforms: { findings: { name: string; id: string; severity: string }[]; notCovered: { name: string }[] }[];
      database: { source: string };
      failed: unknown[];
    }>();
    expect(report.platforms[0]!.findings.map((f) => [f.name, f.id, f.severity])).toEqual([
      ['setuptools', 'CR-TEST-0005', 'HIGH'],
      ['requests', 'CR-TEST-0001', 'MODERATE'],
    ]);
    expect(report.platforms[0]!.notCovered.map((n) => n.name)).toEqual(['python']);
    expect(report.database.source).toBe('osv-db');
    expect(report.failed).toEqual([]);
  });

  it('answers SARIF 2.1.0 and, for Accept: text/plain, the table', async () => {
    const sarif = await call(server.app, 'POST', '/audit', { json: { ...body, report: 'sarif' } });
    expect(sarif.type).toMatch(/^application\/sarif\+json/);
    expect(sarifErrors(sarif.json())).toBeNull();
    const table = await call(server.app, 'POST', '/audit', { json: body, headers: { accept: 'text/plain' } });
    expect(table.text).toContain('linux-64: 2 of 3 packages checked, 2 advisories for 2 packages');
  });

  it('without a mapping file from the operator, reports conda-forge packages as not covered, fetching nothing', async () => {
    const bare = await injectTestServer({ 'osv-db': RECORDS, 'allow-channel': ['conda-forge'] });
    try {
      const report = (await call(bare.app, 'POST', '/audit', { json: body })).json<{
        platforms: { findings: unknown[]; notCovered: { name: string; reason: string }[] }[];
      }>();
      expect(report.platforms[0]!.findings).toEqual([]);
      expect(report.platforms[0]!.notCovered.map((n) => n.name)).toEqual(['python', 'requests', 'setuptools']);
      expect(report.platforms[0]!.notCovered[0]!.reason).toContain(
        'this server has none; its operator gives one with serve --pypi-mapping FILE',
      );
    } finally {
      await bare.close();
    }
  });

  it('applies the channel policy of /resolve', async () => {
    const other = await injectTestServer({ 'osv-db': RECORDS });
    try {
      const answer = await call(other.app, 'POST', '/audit', { json: body });
      expect(answer.status).toBe(400);
      expect(answer.json<{ type: string }>().type).toMatch(/channel-refused$/);
    } finally {
      await other.close();
    }
  });

  it('is a 404 on a server without a database', async () => {
    const bare = await injectTestServer();
    try {
      const answer = await call(bare.app, 'POST', '/audit', { json: body });
      expect(answer.status).toBe(404);
      expect(answer.json<{ detail: string }>().detail).toContain('--osv-db PATH or --osv-api URL');
    } finally {
      await bare.close();
    }
  });
});

describe('the MCP audit tool', () => {
  let listening: TestServer;
  let client: Client;
  beforeAll(async () => {
    listening = await startTestServer({ 'osv-db': RECORDS, 'pypi-mapping': MAPPING_FIXTURE, 'allow-channel': ['conda-forge'] });
    client = new Client({ name: 'conda-resolve-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listening.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await listening?.close();
  });

  it('is listed and answers the table and the JSON report', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('audit');
    const answer = (await client.callTool({ name: 'audit', arguments: { file: LOCK, filename: 'pixi.lock' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(answer.isError).toBeUndefined();
    expect(answer.content[0]!.text).toContain('CR-TEST-0005');
    expect(JSON.parse(answer.content[1]!.text).summary.findings).toBe(2);
  });
});
