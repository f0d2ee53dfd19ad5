/**
 * Bounds on what one request may send (issue 11, item 2): an over-long spec, a spec with too many
 * constraints and a file with too many specs are each a 400 problem that names the limit and the
 * field, answered before anything is solved (the solver here only counts its calls).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepodataStore } from '../../repodata/store.js';
import { loadConfig } from '../../src/http/config.js';
import type { PlatformSolver } from '../../src/solving/types.js';
import { MAX_SPEC_LENGTH, MAX_VERSION_CONSTRAINTS } from '../../vocabulary/version-spec.js';
import { buildTestApp, DEMO_CHANNEL, type ProblemBody } from './helpers/test-server.js';

let app: FastifyInstance;
let cacheDir: string;
let solves = 0;

beforeAll(async () => {
  const config = loadConfig({}, { 'rate-limit': '0', 'allow-local-channels': true, 'default-channel': [DEMO_CHANNEL] });
  cacheDir = mkdtempSync(join(tmpdir(), 'cr-input-bounds-'));
  const solver: PlatformSolver = {
    solve() {
      solves++;
      return Promise.reject(new Error('no solve is expected in these tests'));
    },
  };
  app = await buildTestApp(config, { store: new RepodataStore({ cacheDir, offline: true, refresh: false }), solver });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  rmSync(cacheDir, { recursive: true, force: true });
  expect(solves).toBe(0);
});

/** The spec: 25,000 comma-joined constraints, 189 KB, under the 1 MB body limit. */
const HUGE = `python ${Array.from({ length: 25_000 }, (_, i) => `>=${i}`).join(',')}`;

async function problemOf(request: InjectOptions): Promise<ProblemBody> {
  const answer = await app.inject(request);
  expect(answer.statusCode).toBe(400);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  const problem = answer.json<ProblemBody>();
  expect(problem.status).toBe(400);
  return problem;
}

describe('an over-long spec', () => {
  it("the issue's 189 KB spec as specs[3] of a JSON body: 400 naming specs[3] and the limit", async () => {
    expect(HUGE.length).toBeGreaterThan(180_000);
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { specs: ['numpy', 'scipy', 'pandas', HUGE, 'zlib'] } });
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'specs[3]', limit: MAX_SPEC_LENGTH });
    expect(problem.detail).toContain('longer than 4096 characters (the limit)');
    expect(problem.detail).toContain('specs[3]');
    expect(problem.detail.length).toBeLessThan(300);
  });

  it('as a comma-separated string, a GET query and a file line: 400 naming the limit (and the line)', async () => {
    const asString = await problemOf({ method: 'POST', url: '/resolve', payload: { specs: `numpy, ${HUGE}` } });
    expect(asString).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'specs', limit: MAX_SPEC_LENGTH });
    expect(asString.detail).toContain('longer than 4096 characters (the limit)');
    expect(asString.detail.length).toBeLessThan(400);

    const long = `python ${'1'.repeat(5000)}`;
    const query = await problemOf({ method: 'GET', url: `/resolve?spec=numpy&spec=${encodeURIComponent(long)}` });
    expect(query).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'specs', limit: MAX_SPEC_LENGTH });
    expect(query.detail).toContain('longer than 4096 characters (the limit)');

    for (const [filename, file, line] of [
      ['requirements.txt', `numpy\n# a comment\n${HUGE}\n`, 3],
      ['environment.yml', `name: x\ndependencies:\n  - numpy\n  - ${HUGE}\n`, 4],
    ] as const) {
      const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { file, filename } });
      expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'file', limit: MAX_SPEC_LENGTH });
      expect(problem.detail).toMatch(
        new RegExp(`^${filename.replace('.', '\\.')}, line ${line}: Cannot parse match spec "python >=0,>=1,`),
      );
      expect(problem.detail).toContain('longer than 4096 characters (the limit)');
      expect(problem.detail.length).toBeLessThan(400);
    }
  });

  it('a spec under 4096 characters with more than 64 constraints: 400 naming that limit', async () => {
    const spec = `python ${Array.from({ length: 300 }, (_, i) => `>=${i}`).join(',')}`;
    expect(spec.length).toBeLessThan(MAX_SPEC_LENGTH);
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { specs: ['numpy', spec] } });
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'specs', limit: MAX_VERSION_CONSTRAINTS });
    expect(problem.detail).toContain('more than 64 version constraints (the limit)');
  });

  it('the documented schema says how long a spec may be', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      components: { schemas: Record<string, { properties: Record<string, { anyOf: { items?: { maxLength?: number } }[] }> }> };
    }>();
    expect(doc.components.schemas['ResolveBody']!.properties['specs']!.anyOf[0]!.items!.maxLength).toBe(MAX_SPEC_LENGTH);
  });
});

describe('too many specs', () => {
  it('a 200 KB environment.yml of 20,000 distinct specs is refused by count, naming the file and the limit', async () => {
    // Looking up each spec's line was quadratic: 40,000 such items held the event loop for 48 s.
    const file = `dependencies:\n${Array.from({ length: 20_000 }, (_, i) => `  - p${i}`).join('\n')}\n`;
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { file, filename: 'environment.yml' } });
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:too-many-specs', field: 'file', limit: 200 });
    expect(problem.detail).toContain('20000 specs');
  });

  it('an environment.yml over 256 KiB is refused before it is parsed, naming the file and the limit', async () => {
    // js-yaml takes ~200 ms for 1 MB on the thread that answers every request.
    const file = `dependencies:\n${Array.from({ length: 40_000 }, (_, i) => `  - p${i}`).join('\n')}\n`;
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { file, filename: 'environment.yml' } });
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-file', field: 'file', limit: 256 * 1024 });
    expect(problem.detail).toContain('larger than 256 KiB (the limit)');
  });

  it('is counted before any spec is parsed: 201 distinct bad specs are too many, not a bad spec', async () => {
    const file = Array.from({ length: 201 }, (_, i) => `p${i} >=<1`).join('\n');
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { file, filename: 'requirements.txt' } });
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:too-many-specs', field: 'file', limit: 200 });
  });

  it('counts distinct specs: a file repeating one spec 50,000 times is one spec', async () => {
    const file = 'python >=<1\n'.repeat(50_000);
    const problem = await problemOf({ method: 'POST', url: '/resolve', payload: { file, filename: 'requirements.txt' } });
    // One spec, so it is parsed, and refused as the bad spec it is, at its first line.
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'file' });
    expect(problem.detail).toMatch(/^requirements\.txt, line 1: /);
  });
});
