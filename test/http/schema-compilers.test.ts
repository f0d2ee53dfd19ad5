/**
 * The apps of one process share their compiled validators (src/http/schema-compilers.ts): an app
 * built after another with the same routes compiles nothing again, yet each validates with its own
 * limits, which are part of its schemas.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SHARED_COMPILERS } from '../../src/http/schema-compilers.js';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer, type ProblemBody } from './helpers/test-server.js';

const open: InjectedServer[] = [];
afterAll(async () => {
  await Promise.all(open.map((server) => server.close()));
});

async function server(maxSpecs: string): Promise<InjectedServer> {
  const started = await injectTestServer({ 'max-specs': maxSpecs });
  open.push(started);
  return started;
}

describe('validators shared between apps', () => {
  it('each app keeps its own max-specs, whichever was built first', async () => {
    const three = ['python', 'numpy', 'requests'];
    const body = { specs: three, channels: [DEMO_CHANNEL], platforms: ['linux-64'] };
    const small = await server('2');
    const large = await server('20');
    const smallAgain = await server('2');
    for (const [app, refused] of [
      [small, true],
      [large, false],
      [smallAgain, true],
    ] as const) {
      const answer = await call(app.app, 'POST', '/resolve?format=explicit', { json: body });
      if (refused) {
        expect(answer.status).toBe(400);
        expect(answer.json<ProblemBody>().detail).toMatch(/specs/);
      } else {
        expect(answer.status, answer.text).not.toBe(400);
      }
    }
  });

  it('a schema seen before, as the same object or an equal one, is not compiled again; another schema is', async () => {
    const build = SHARED_COMPILERS.buildValidator!({}, { customOptions: { coerceTypes: false } });
    const route = (schema: object, url: string) => ({ schema, method: 'GET', url, httpPart: 'querystring' });
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const first = build(route(schema, '/x'));
    expect(build(route(schema, '/x'))).toBe(first);
    expect(build(route(structuredClone(schema), '/y'))).toBe(first);
    const other = build(route({ ...schema, required: ['a'] }, '/x'));
    expect(other).not.toBe(first);
    expect([first({ a: 1 }), first({}), other({})]).toEqual([false, true, false]);
  });

  it('keeps a bounded number: past it, older schemas are compiled again', () => {
    const build = SHARED_COMPILERS.buildValidator!({}, { customOptions: { coerceTypes: false } });
    const route = (n: number) => ({ schema: { type: 'object', maxProperties: n }, method: 'GET', url: '/z', httpPart: 'querystring' });
    const first = build(route(0));
    expect(build(route(0))).toBe(first);
    for (let n = 1; n <= 1024; n++) build(route(n));
    const again = build(route(0));
    expect(again).not.toBe(first);
    expect([again({}), again({ a: 1 })]).toEqual([true, false]);
  });
});
