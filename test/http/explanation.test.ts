/**
 * A failed platform's `explanation` over HTTP: present after `error` on the unsatisfiable platform
 * only, and valid against the schema the OpenAPI document publishes.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer } from './helpers/test-server.js';

let server: InjectedServer;
beforeAll(async () => {
  server = await injectTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('POST /resolve on an unsatisfiable platform', () => {
  it('carries the explanation as data after error, as the OpenAPI document describes it', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['numpy>=2', 'python=3.9'], channels: [DEMO_CHANNEL], platforms: ['linux-64'] },
    });
    expect(answer.status).toBe(200);
    const [result] = answer.json<Record<string, unknown>[]>();
    expect(Object.keys(result!)).toEqual(['platform', 'packages', 'error', 'explanation']);
    expect(result!.explanation).toMatchObject({
      spec: 'python 3.9.*',
      requested: ['python 3.9.*', 'numpy >=2'],
      complete: true,
      tree: { specIndex: 1 },
    });

    const document = (await call(server.app, 'GET', '/openapi.json')).json<{ components: { schemas: Record<string, unknown> } }>();
    const schema = document.components.schemas['SolveResult'] as { properties: Record<string, unknown> };
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    expect(validate(result), JSON.stringify(validate.errors)).toBe(true);
    expect(schema.properties['explanation']).toMatchObject({ title: 'Explanation' });
  });

  it('leaves it out of a solved platform', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['linux-only-tool'], channels: [DEMO_CHANNEL], platforms: ['linux-64', 'osx-arm64'] },
    });
    const [linux, osx] = answer.json<Record<string, unknown>[]>();
    expect(Object.keys(linux!)).toEqual(['platform', 'packages', 'error']);
    expect(osx!.explanation).toMatchObject({ spec: 'linux-only-tool', conflicts: [{ kind: 'missing', specs: ['linux-only-tool'] }] });
  });
});
