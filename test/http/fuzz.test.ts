/**
 * Fuzz: 2,000 random and malformed requests (methods, paths, query strings, bodies, media types)
 * against the real server's app, through `inject()` (what Node's HTTP parser itself refuses is
 * hardening.test.ts's, over raw sockets). Every answer must be a status the server defines, every
 * error a problem-details body whose `status` matches, never an unexpected 500, and the server
 * stays up.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFINED_STATUSES, PROBLEM_MEDIA_TYPE } from '../../src/http/problem.js';
import { anyCodePoint } from '../helpers/code-points.js';
import { DEMO_CHANNEL, injectTestServer, type InjectedServer } from './helpers/test-server.js';

let server: InjectedServer;
beforeAll(async () => {
  // A small body limit so oversized bodies are cheap to produce.
  server = await injectTestServer({ 'body-limit': '4096', 'max-specs': '20' });
});
afterAll(async () => {
  await server?.close();
});

const QUERY_KEYS = [
  'spec',
  'specs',
  'channel',
  'channels',
  'platform',
  'platforms',
  'format',
  'channel_priority',
  'virtual_package',
  'virtual_packages',
  'exclude_newer',
  'filename',
];
const PLAUSIBLE = [
  'python',
  'python=3.11',
  'numpy>=1.26,<2',
  'linux-only-tool',
  'numpy[version=">=1.24"]',
  'requests',
  'conda-forge::numpy',
  'python 3.9.* *_cpython',
  'linux-64',
  'osx-arm64',
  'win-64',
  'noarch',
  'linux-65',
  DEMO_CHANNEL,
  'conda-forge',
  'https://127.0.0.1:9/x',
  'file:///etc',
  '/etc',
  'defaults',
  'explicit',
  'yml',
  'environment-json',
  'conda-lock-v1',
  'rattler-lock-v6',
  'requirements',
  'nope',
  'strict',
  'flexible',
  '2024-01-01',
  '__glibc=2.17',
  'environment.yml',
  'x.txt',
  '',
];

const text = fc.oneof(fc.constantFrom(...PLAUSIBLE), fc.string({ maxLength: 30 }), fc.string({ unit: anyCodePoint, maxLength: 20 }));
const queryPart = fc
  .tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })), text, fc.integer({ min: 0, max: 9 }))
  .map(([key, value, mode]) => {
    // Raw characters, as far as HTTP allows them in a request line (printable ASCII, no '#').
    if (mode === 0) return `${key}=${value}`.replace(/[^\x21-\x7e]|#/g, '');
    if (mode === 1) return `${encodeURIComponent(key)}=%${value.replace(/[^\x21-\x7e]|#/g, '').slice(0, 2)}`; // broken percent-encoding
    if (mode === 2) return encodeURIComponent(key); // no value
    return `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;
  });
const query = fc.array(queryPart, { maxLength: 6 }).map((parts) => (parts.length ? `?${parts.join('&')}` : ''));
const path = fc.oneof(
  { weight: 8, arbitrary: fc.constant('/resolve') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/formats',
      '/platforms',
      '/version',
      '/health',
      '/openapi.json',
      '/docs',
      '/',
      '/resolve/',
      '/RESOLVE',
      '/docs/app.js',
      '/%2e%2e/etc/passwd',
      '/resolve%00',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => `/${encodeURIComponent(s)}`) },
);
const bodyObject = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      'specs',
      'file',
      'filename',
      'channels',
      'platforms',
      'channel_priority',
      'virtual_packages',
      'exclude_newer',
      '__proto__',
      'constructor',
    ),
    fc.string({ maxLength: 8 }),
  ),
  fc.oneof(text, fc.array(text, { maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), fc.constant(null)),
  { maxKeys: 5 },
);
const body = fc.oneof(
  bodyObject.map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constant('{"specs": ["python"'),
  fc.constant('{"__proto__": {"polluted": true}, "specs": ["python"]}'),
  fc.constant(`{"specs": ["python"], "file": "${'y'.repeat(5000)}"}`),
  fc.constant(`dependencies:\n  - python=3.11\nchannels:\n  - ${DEMO_CHANNEL}\n`),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/yaml',
  'text/plain',
  'text/yaml',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'text/plain; charset=latin1',
  'garbage',
  '',
);
const method = fc.constantFrom('GET', 'GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH');

describe('fuzz', () => {
  it('answers 2,000 random requests with defined statuses and problem details, and stays up', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(method, path, query, body, contentType, async (m, p, q, b, type) => {
        const headers: Record<string, string> = {};
        if (type !== undefined) headers['content-type'] = type;
        const sendsBody = m === 'POST' || m === 'PUT' || m === 'PATCH';
        const response = await server.app.inject({ method: m as 'GET', url: `${p}${q}`, headers, ...(sendsBody ? { payload: b } : {}) });
        const raw = response.body;
        const status = response.statusCode;
        seen.set(status, (seen.get(status) ?? 0) + 1);
        expect(DEFINED_STATUSES, `${m} ${p}${q} -> ${status}: ${raw.slice(0, 200)}`).toContain(status);
        if (status >= 400 && m !== 'HEAD') {
          expect(String(response.headers['content-type'])).toBe(PROBLEM_MEDIA_TYPE);
          const problem = JSON.parse(raw) as { type: string; status: number; title: string; detail: string };
          expect(problem.status).toBe(status);
          expect(problem.type).toMatch(/^urn:conda-resolve:problem:[a-z-]+$/);
          expect(problem.type, `${m} ${p}${q} ${b.slice(0, 100)}: ${problem.detail}`).not.toBe('urn:conda-resolve:problem:internal-error');
          expect(problem.detail).not.toMatch(/\n\s+at |node_modules|\/work\//);
          if (status === 500) expect(problem.type).toMatch(/solve-failed|export-failed/);
        }
        if (status === 200 && p === '/resolve' && m !== 'HEAD' && !/format=/.test(q)) {
          expect(Array.isArray(JSON.parse(raw))).toBe(true);
        }
      }),
      { numRuns: 2000, seed: Number(process.env.FUZZ_SEED ?? 20261122), endOnFailure: true },
    );
    const health = await server.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    // The run must have reached the interesting places, not only 404s.
    expect(seen.get(200) ?? 0).toBeGreaterThan(20);
    expect(seen.get(400) ?? 0).toBeGreaterThan(100);
  }, 240_000);
});
