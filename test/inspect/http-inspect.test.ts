/**
 * `POST /tree`, `/why`, `/why-not` through `inject()`: answers checked against the snapshot's own
 * files and against the OpenAPI document's schemas; the `/resolve` limits and channel policy apply.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphEdge, TreeNode, WhyAnswer, WhyNotAnswer } from '../../src/inspect/index.js';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer, type ProblemBody } from '../http/helpers/test-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { channelFiles, expectRealEdge, selectedRecords, type RawRecord } from './channel-files.js';

let server: InjectedServer;
let validate: (name: string, data: unknown) => void;
beforeAll(async () => {
  server = await injectTestServer({ 'max-specs': '4' });
  const document = (await call(server.app, 'GET', '/openapi.json')).json<Record<string, unknown>>();
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema(document, 'openapi');
  validate = (name, data) => {
    const check = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
    expect(check(data), JSON.stringify(check.errors)).toBe(true);
  };
});
afterAll(async () => {
  await server?.close();
});

describeShared('on conda-forge-py39', () => {
  const channels = [pathToFileURL(join(CHANNELS_DIR, 'conda-forge-py39')).href];
  const request = { specs: ['python=3.9', 'pip'], channels, platforms: ['linux-64'] };
  let selected: Map<string, RawRecord>;
  beforeAll(async () => {
    const [result] = (await call(server.app, 'POST', '/resolve', { json: request })).json<
      { packages: { name: string; subdir: string; url: string }[] }[]
    >();
    selected = selectedRecords(channelFiles('conda-forge-py39', ['linux-64', 'noarch']), result!.packages);
  });

  it('POST /tree: every edge is a depends entry of the selected record; the answer fits its schema', async () => {
    const answer = await call(server.app, 'POST', '/tree', { json: { ...request, depth: 2 } });
    expect(answer.status).toBe(200);
    const body = answer.json<{ platform: string; roots: TreeNode[]; text: string }[]>();
    validate('TreeResult', body);
    let edges = 0;
    const walk = (node: TreeNode, level: number): void => {
      expect(level).toBeLessThanOrEqual(2);
      for (const child of node.children) {
        expectRealEdge(selected, node.name, child.spec, child.name);
        edges++;
        walk(child, level + 1);
      }
    };
    body[0]!.roots.forEach((root) => walk(root, 0));
    expect(edges).toBeGreaterThan(10);
    expect(body[0]!.text.split('\n')[0]).toMatch(/^python 3\.9\.19 \S+ \[python=3\.9\]$/);
  });

  it('POST /why: paths from the request down real edges, shortest first', async () => {
    const answer = await call(server.app, 'POST', '/why', { json: { ...request, name: 'libzlib', limit: 3 } });
    expect(answer.status).toBe(200);
    const body = answer.json<{ answer: WhyAnswer }[]>();
    validate('WhyResult', body);
    const { paths, truncated } = body[0]!.answer;
    expect(paths).toHaveLength(3);
    expect(truncated).toBe(true);
    for (const path of paths as GraphEdge[][]) {
      expect(path[0]!.from).toBeNull();
      for (const edge of path.slice(1)) expectRealEdge(selected, edge.from!, edge.spec, edge.to);
      expect(path.at(-1)!.to).toBe('libzlib');
    }
  });

  it('POST /why-not: the diff and the deciding preference, or the conflict', async () => {
    const possible = await call(server.app, 'POST', '/why-not', { json: { ...request, spec: 'openssl<3' } });
    const [answer] = possible.json<WhyNotAnswer[]>();
    validate('WhyNotResult', [answer]);
    expect(answer).toMatchObject({ kind: 'possible', preference: { name: 'python', criterion: 'version', requested: true } });
    const none = (await call(server.app, 'POST', '/why-not', { json: { ...request, spec: 'python>=3.10' } })).json<WhyNotAnswer[]>();
    validate('WhyNotResult', none);
    expect(none[0]).toMatchObject({ kind: 'unsatisfiable', explanation: { spec: 'python >=3.10' } });
  });
});

describe('limits, policy and bad input are those of /resolve', () => {
  const demo = { channels: [DEMO_CHANNEL], platforms: ['linux-64'] };

  it('a failed platform carries its error; a package not there has no version', async () => {
    const tree = (
      await call(server.app, 'POST', '/tree', { json: { ...demo, specs: ['linux-only-tool'], platforms: ['linux-64', 'osx-arm64'] } })
    ).json<{ platform: string; error: string | null }[]>();
    expect(tree.map((t) => [t.platform, t.error === null])).toEqual([
      ['linux-64', true],
      ['osx-arm64', false],
    ]);
    validate('TreeResult', tree);
    const why = (await call(server.app, 'POST', '/why', { json: { ...demo, specs: ['linux-only-tool'], name: 'absent' } })).json<
      { answer: WhyAnswer; text: string }[]
    >();
    expect(why[0]).toMatchObject({ answer: { version: null, paths: [] }, text: 'absent is not in the environment' });
  });

  it('400 naming the field: the spec to try, a missing name, too many specs', async () => {
    const bad = await call(server.app, 'POST', '/why-not', { json: { ...demo, specs: ['linux-only-tool'], spec: 'numpy>>=2' } });
    expect([bad.status, bad.json<ProblemBody>().field]).toEqual([400, 'spec']);
    const missing = await call(server.app, 'POST', '/why', { json: { ...demo, specs: ['linux-only-tool'] } });
    expect(missing.status).toBe(400);
    expect(missing.json<ProblemBody>().detail).toContain('name');
    const many = await call(server.app, 'POST', '/tree', { json: { ...demo, specs: ['a', 'b', 'c', 'd', 'e'] } });
    expect([many.status, many.json<ProblemBody>().field, many.json<ProblemBody>().limit]).toEqual([400, 'specs', 4]);
  });

  it('a channel the policy refuses is refused before anything is fetched', async () => {
    const strict = await injectTestServer({ 'allow-local-channels': false, 'default-channel': ['conda-forge'] });
    try {
      const refused = await call(strict.app, 'POST', '/tree', { json: { ...demo, specs: ['linux-only-tool'] } });
      expect(refused.status).toBe(400);
      expect(refused.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:channel-refused');
    } finally {
      await strict.close();
    }
  });
});
