/** `POST /resolve` with PyPI requirements: the body fields, the index allowlist, native PyPI records. */
import { describe, expect, it } from 'vitest';
import { buildWheel, metadataText, startIndexServer, type IndexServer } from '../helpers/pypi-index.js';
import { usePypiServer } from './helpers/pypi-server.js';
import { call, type InjectedServer, type ProblemBody } from './helpers/test-server.js';

let index: IndexServer;
let server: InjectedServer;
let channel: string;

usePypiServer(
  () => {
    const text = metadataText('tinylib', '1.0', []);
    return startIndexServer([{ name: 'tinylib', files: [{ ...buildWheel('tinylib', '1.0', text), metadata: text }] }]);
  },
  (suite) => ({ index, server, channel } = suite),
);

describe('POST /resolve with pypi', () => {
  it('solves PyPI requirements from an allowed index into native records with manager pip', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python 3.12.*'], pypi: ['tinylib'], index_url: index.indexUrl, channels: [channel], platforms: ['linux-64'] },
    });
    expect(answer.status).toBe(200);
    const [result] = answer.json<{ packages: { name: string; manager: string; filename?: string }[]; error: string | null }[]>();
    expect(result!.error).toBeNull();
    expect(result!.packages.map((p) => `${p.manager}:${p.name}`)).toEqual(['conda:python', 'conda:python_abi', 'pip:tinylib']);
    expect(result!.packages[2]).toMatchObject({ filename: 'tinylib-1.0-py3-none-any.whl' });
  });

  it('refuses an index the server does not allow, naming the field', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python'], pypi: ['tinylib'], index_url: 'https://example.org/simple', channels: [channel] },
    });
    const problem = answer.json<ProblemBody>();
    expect(problem.type).toMatch(/channel-refused$/);
    expect(problem.detail).toContain('https://example.org/simple');
    expect(problem).toMatchObject({ field: 'index_url' });
  });

  it('describes the PyPI fields and the PyPI record in the OpenAPI document', async () => {
    const doc = (await call(server.app, 'GET', '/openapi.json')).json<{
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>();
    expect(Object.keys(doc.components.schemas.ResolveBody!.properties)).toEqual(
      expect.arrayContaining(['pypi', 'index_url', 'extra_index_urls', 'index_strategy', 'prerelease', 'resolution']),
    );
    expect(doc.components.schemas.PypiRecord!.properties.manager).toEqual(expect.objectContaining({ enum: ['pip'] }));
  });
});
