/**
 * Every route of the real server's app (the wiring `serve` runs, through `inject()`: nothing here
 * needs a socket), against the demo fixture channel (a file:// channel, with local channels
 * enabled): media types, GET and POST agreeing, partial failure, exporters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchemas } from '../../src/http/schemas.js';
import { call, DEMO_CHANNEL, injectTestServer, type InjectedServer, type NativeBody, type ProblemBody } from './helpers/test-server.js';

let server: InjectedServer;
beforeAll(async () => {
  server = await injectTestServer();
});
afterAll(async () => {
  await server?.close();
});

const PACKAGE_FIELDS = [
  'name',
  'version',
  'build',
  'build_number',
  'channel',
  'subdir',
  'url',
  'sha256',
  'md5',
  'size',
  'depends',
  'constrains',
  'manager',
];

describe('GET /health, /version, /platforms', () => {
  it('health reports the worker pool', async () => {
    const answer = await call(server.app, 'GET', '/health');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^application\/json/);
    const body = answer.json<{ status: string; solver: { workers: number; max_queue: number } }>();
    expect(body.status).toBe('ok');
    expect(body.solver).toMatchObject({ workers: 2, max_queue: 64 });
  });

  it('version names the tool', async () => {
    const answer = await call(server.app, 'GET', '/version');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ name: 'conda-resolve', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('platforms lists target subdirs and their virtual packages, not noarch', async () => {
    const body = (await call(server.app, 'GET', '/platforms')).json<{
      platforms: string[];
      default: string;
      virtual_packages: Record<string, string[]>;
    }>();
    expect(body.platforms).toEqual(expect.arrayContaining(['linux-64', 'linux-aarch64', 'osx-64', 'osx-arm64', 'win-64']));
    expect(body.platforms).not.toContain('noarch');
    expect(body.platforms).toContain(body.default);
    expect(body.virtual_packages['linux-64']).toEqual(
      expect.arrayContaining([expect.stringMatching(/^__glibc=2\.28=/), expect.stringMatching(/^__unix=/)]),
    );
    expect(body.virtual_packages['osx-arm64']).toEqual(expect.arrayContaining([expect.stringMatching(/^__osx=/)]));
  });
});

describe('GET /formats', () => {
  it('lists the registry with the media types of seed 2.3', async () => {
    const answer = await call(server.app, 'GET', '/formats');
    expect(answer.status).toBe(200);
    const body = answer.json<{
      formats: string[];
      exporters: { name: string; aliases: string[]; media_type: string; multiplatform: boolean; category: string }[];
    }>();
    expect(body.formats).toEqual([...body.formats].sort());
    expect(body.formats).toEqual(
      expect.arrayContaining(['conda-lock-v1', 'environment-json', 'environment-yaml', 'explicit', 'rattler-lock-v6', 'requirements']),
    );
    const byName = Object.fromEntries(body.exporters.map((e) => [e.name, e]));
    expect(byName['explicit']).toMatchObject({ media_type: 'text/plain; charset=utf-8', multiplatform: false, category: 'lockfile' });
    expect(byName['environment-yaml']).toMatchObject({ media_type: 'application/yaml', multiplatform: false, category: 'environment' });
    expect(byName['environment-yaml']!.aliases).toEqual(expect.arrayContaining(['yaml', 'yml', 'env.yml']));
    expect(byName['environment-json']).toMatchObject({ media_type: 'application/json', multiplatform: false });
    expect(byName['requirements']).toMatchObject({ media_type: 'text/plain; charset=utf-8', multiplatform: false });
    expect(byName['conda-lock-v1']).toMatchObject({ media_type: 'application/yaml', multiplatform: true, category: 'lockfile' });
    expect(byName['rattler-lock-v6']).toMatchObject({ media_type: 'application/yaml', multiplatform: true, category: 'lockfile' });
  });
});

describe('GET /openapi.json and /docs', () => {
  it('the OpenAPI document is built from the schemas that validate requests', async () => {
    const answer = await call(server.app, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    const doc = answer.json<{
      openapi: string;
      paths: Record<string, Record<string, { parameters?: { name: string; schema: unknown }[] }>>;
      components: { schemas: Record<string, unknown> };
    }>();
    expect(doc.openapi).toBe('3.1.0');
    const schemas = JSON.parse(JSON.stringify(buildSchemas(server.config))) as ReturnType<typeof buildSchemas>;
    expect(doc.components.schemas['ResolveBody']).toEqual(schemas.resolveBody);
    expect(doc.components.schemas['NativeResult']).toEqual(schemas.nativeResult);
    expect(doc.components.schemas['Problem']).toEqual(schemas.problem);
    const getParams = doc.paths['/resolve']!['get']!.parameters!;
    expect(getParams.map((p) => p.name)).toEqual(Object.keys(schemas.resolveQuery.properties).filter((n) => n !== 'filename'));
    expect(getParams.find((p) => p.name === 'spec')!.schema).toEqual(schemas.resolveQuery.properties.spec);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/resolve', '/formats', '/platforms', '/version', '/health', '/openapi.json', '/docs']),
    );
  });

  it('the docs page is served with its own script and style under a strict CSP', async () => {
    const page = await call(server.app, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('href="openapi.json"');
    expect(page.text).not.toMatch(/<script>(?!<\/script>)/);
    expect((await call(server.app, 'GET', '/docs/app.js')).type).toBe('text/javascript; charset=utf-8');
    const root = await call(server.app, 'GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers['location']).toBe('/ui');
  });
});

describe('resolve: native JSON', () => {
  const query = `/resolve?spec=python=3.11&spec=numpy&platform=linux-64&channel=${encodeURIComponent(DEMO_CHANNEL)}`;

  it('POST answers the native array, fields in the seed order, packages sorted', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python=3.11', 'numpy'], platforms: ['linux-64'], channels: [DEMO_CHANNEL] },
    });
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('application/json; charset=utf-8');
    expect(answer.text).not.toContain('\n'); // compact
    const body = answer.json<NativeBody[]>();
    expect(body).toHaveLength(1);
    expect(Object.keys(body[0]!)).toEqual(['platform', 'packages', 'error']);
    expect(body[0]!.error).toBeNull();
    const names = body[0]!.packages.map((p) => p.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['python', 'numpy', 'python_abi', 'libgcc']));
    expect(body[0]!.packages.find((p) => p.name === 'python')!.version).toBe('3.11.9');
    expect(Object.keys(body[0]!.packages[0]!)).toEqual(PACKAGE_FIELDS);
  });

  it('GET with the same query gives byte-identical answers to POST', async () => {
    const get = await call(server.app, 'GET', query);
    const post = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python=3.11', 'numpy'], platforms: ['linux-64'], channels: [DEMO_CHANNEL] },
    });
    const postPlural = await call(
      server.app,
      'GET',
      `/resolve?specs=python=3.11,numpy&platforms=linux-64&channels=${encodeURIComponent(DEMO_CHANNEL)}`,
    );
    expect(get.status).toBe(200);
    expect(get.text).toBe(post.text);
    expect(postPlural.text).toBe(post.text);
  });

  it('an environment file as JSON field or as raw body gives the same answer as the specs', async () => {
    const file = `channels:\n  - ${DEMO_CHANNEL}\ndependencies:\n  - python=3.11\n  - numpy\n`;
    const asField = await call(server.app, 'POST', '/resolve', { json: { file, filename: 'environment.yml', platforms: ['linux-64'] } });
    const asRaw = await call(server.app, 'POST', '/resolve?filename=environment.yml&platform=linux-64', {
      body: file,
      headers: { 'content-type': 'application/yaml' },
    });
    const asSpecs = await call(server.app, 'GET', query);
    expect(asField.status).toBe(200);
    expect(asField.text).toBe(asSpecs.text);
    expect(asRaw.text).toBe(asSpecs.text);
    const asText = await call(
      server.app,
      'POST',
      `/resolve?filename=requirements.txt&platform=linux-64&channel=${encodeURIComponent(DEMO_CHANNEL)}`,
      {
        body: '# comment\npython=3.11\nnumpy\n',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      },
    );
    expect(asText.text).toBe(asSpecs.text);
  });

  it('file specs and body specs are combined', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: {
        file: 'dependencies:\n  - python=3.11\n',
        filename: 'environment.yml',
        specs: ['requests'],
        platforms: ['linux-64'],
        channels: [DEMO_CHANNEL],
      },
    });
    const names = answer.json<NativeBody[]>()[0]!.packages.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['python', 'requests', 'idna']));
  });

  it('a pip entry that needs a build (-e .) is refused, naming the line', async () => {
    const file = 'dependencies:\n  - python=3.11\n  - pip\n  - pip:\n      - -e .\n';
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { file, filename: 'environment.yml', platforms: ['linux-64'], channels: [DEMO_CHANNEL] },
    });
    expect(answer.status).toBe(400);
    expect(answer.json<ProblemBody>()).toMatchObject({
      type: 'urn:conda-resolve:problem:invalid-spec',
      detail: expect.stringContaining('Cannot resolve pip entry "-e ." (environment.yml, line 5): an editable install builds the project'),
    });
  });

  it('partial failure: the failed platform has an error and no packages, the others solve, status 200', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['linux-only-tool'], platforms: ['linux-64', 'osx-arm64'], channels: [DEMO_CHANNEL] },
    });
    expect(answer.status).toBe(200);
    const [linux, osx] = answer.json<NativeBody[]>();
    expect(linux!.platform).toBe('linux-64');
    expect(linux!.error).toBeNull();
    expect(linux!.packages.map((p) => p.name)).toContain('linux-only-tool');
    expect(osx!.platform).toBe('osx-arm64');
    expect(osx!.packages).toEqual([]);
    expect(osx!.error).toMatch(/linux-only-tool/);
    expect(osx!.error).not.toMatch(/\n\s+at /);
  });

  it('an unreachable local channel fails its platforms with a message that shows no server path', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python'], platforms: ['linux-64'], channels: ['file:///tmp/cr-no-such-channel-3141'] },
    });
    expect(answer.status).toBe(200);
    const [result] = answer.json<NativeBody[]>();
    expect(result!.error).toBeTruthy();
    expect(result!.error).not.toContain('/tmp/cr-no-such-channel-3141');
  });
});

describe('resolve: formats', () => {
  const body = { specs: ['python=3.11'], platforms: ['linux-64'], channels: [DEMO_CHANNEL] };

  it('explicit: the exporter text with its media type', async () => {
    const answer = await call(server.app, 'POST', '/resolve?format=explicit', { json: body });
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('text/plain; charset=utf-8');
    expect(answer.text).toContain('# platform: linux-64');
    expect(answer.text).toMatch(/^@EXPLICIT$/m);
    expect(answer.text).toMatch(/^file:\/\/.*\/python-3\.11\.9-.*\.conda$/m);
  });

  it.each([
    ['environment-yaml', 'application/yaml', /^dependencies:$/m],
    ['yml', 'application/yaml', /^dependencies:$/m],
    ['environment-json', 'application/json', /"dependencies"/],
    ['conda-lock-v1', 'application/yaml', /^version: 1$/m],
    ['rattler-lock-v6', 'application/yaml', /^version: 6$/m],
  ])('format=%s answers %s', async (format, mediaType, pattern) => {
    const post = await call(server.app, 'POST', `/resolve?format=${format}`, { json: body });
    expect(post.status).toBe(200);
    expect(post.type).toBe(mediaType);
    expect(post.text).toMatch(pattern);
    const get = await call(
      server.app,
      'GET',
      `/resolve?spec=python=3.11&platform=linux-64&channel=${encodeURIComponent(DEMO_CHANNEL)}&format=${format}`,
    );
    expect(get.status).toBe(200);
    expect(get.text).toBe(post.text);
  });

  it('format with a failing platform is a 500 naming the platform and why', async () => {
    const answer = await call(server.app, 'POST', '/resolve?format=explicit', {
      json: { ...body, specs: ['linux-only-tool'], platforms: ['linux-64', 'osx-arm64'] },
    });
    expect(answer.status).toBe(500);
    expect(answer.type).toBe('application/problem+json');
    const problem = answer.json<ProblemBody>();
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:solve-failed', status: 500, title: 'Solve failed' });
    expect(problem.platforms).toEqual([
      { platform: 'osx-arm64', error: expect.stringContaining('linux-only-tool'), code: 'CR_ERR_SOLVE_UNSATISFIABLE' },
    ]);
    expect(problem.detail).toContain('osx-arm64');
  });

  it('format=requirements on a solve is rejected with 500', async () => {
    const answer = await call(server.app, 'POST', '/resolve?format=requirements', { json: body });
    expect(answer.status).toBe(500);
    expect(answer.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:export-failed', status: 500, field: 'format' });
  });

  it('an unknown format is a 400 listing the registry names, sorted', async () => {
    const answer = await call(server.app, 'GET', `/resolve?spec=python&format=nope&channel=${encodeURIComponent(DEMO_CHANNEL)}`);
    expect(answer.status).toBe(400);
    const problem = answer.json<ProblemBody>();
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:unknown-format', field: 'format' });
    const formats = (await call(server.app, 'GET', '/formats')).json<{ formats: string[] }>().formats;
    expect(problem.available_formats).toEqual(formats);
    expect(problem.available_formats).toEqual([...formats].sort());
    expect(problem.detail).toContain("'nope'");
    for (const name of formats) expect(problem.detail).toContain(name);
  });
});

describe('bad input: 400 naming the field', () => {
  it.each([
    ['unparsable spec', { specs: ['numpy >=<1'] }, 'invalid-spec', 'specs'],
    ['no specs', { specs: [] }, 'no-specs', 'specs'],
    ['unknown platform', { specs: ['python'], platforms: ['linux-65'] }, 'invalid-platform', 'platforms'],
    ['noarch as a platform', { specs: ['python'], platforms: ['noarch'] }, 'invalid-platform', 'platforms'],
    ['bad channel priority', { specs: ['python'], channel_priority: 'loose' }, 'invalid-request', 'channel_priority'],
    ['bad exclude_newer', { specs: ['python'], exclude_newer: 'last tuesday' }, 'invalid-option', 'exclude_newer'],
    ['bad virtual package', { specs: ['python'], virtual_packages: ['glibc'] }, 'invalid-option', 'virtual_packages'],
    ['unknown field', { specs: ['python'], spec: 'x' }, 'invalid-request', 'spec'],
    ['wrong type', { specs: [1, 2] }, 'invalid-request', 'specs[0]'],
    ['not an object', ['python'], 'invalid-request', undefined],
    ['bad file', { file: 'dependencies: [python\n', filename: 'environment.yml' }, 'invalid-file', 'file'],
    ['unsupported file name', { file: 'python', filename: 'Pipfile' }, 'invalid-file', 'filename'],
  ])('%s', async (_name, json, kind, field) => {
    const answer = await call(server.app, 'POST', '/resolve', { json });
    expect(answer.status).toBe(400);
    expect(answer.type).toBe('application/problem+json');
    const problem = answer.json<ProblemBody>();
    expect(problem.type).toBe(`urn:conda-resolve:problem:${kind}`);
    expect(problem.status).toBe(400);
    expect(problem.field).toBe(field);
    expect(problem.detail.length).toBeGreaterThan(10);
    expect(problem.request_id).toBeTruthy();
  });

  it('a bad spec inside a file names the file and line', async () => {
    const file = 'dependencies:\n  - python\n  - numpy >=<1\n';
    const problem = (await call(server.app, 'POST', '/resolve', { json: { file, filename: 'environment.yml' } })).json<ProblemBody>();
    expect(problem).toMatchObject({ type: 'urn:conda-resolve:problem:invalid-spec', field: 'file' });
    expect(problem.detail).toMatch(/environment\.yml, line 3/);
  });

  it('invalid JSON and an empty JSON body', async () => {
    for (const body of ['{"specs": [', '']) {
      const answer = await call(server.app, 'POST', '/resolve', { body, headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(400);
      expect(answer.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:invalid-json');
    }
  });

  it('unknown or repeated query parameters', async () => {
    const unknown = await call(server.app, 'GET', '/resolve?spec=python&foramt=explicit');
    expect(unknown.json<ProblemBody>()).toMatchObject({ status: 400, field: 'foramt' });
    const twice = await call(server.app, 'GET', '/resolve?spec=python&format=explicit&format=yaml');
    expect(twice.json<ProblemBody>()).toMatchObject({ status: 400, field: 'format' });
  });

  it('too many specs, platforms or channels', async () => {
    const specs = Array.from({ length: 201 }, (_, i) => `pkg${i}`);
    const tooManySpecs = (await call(server.app, 'POST', '/resolve', { json: { specs } })).json<ProblemBody>();
    expect(tooManySpecs).toMatchObject({ status: 400, type: 'urn:conda-resolve:problem:too-many-specs', field: 'specs', limit: 200 });
    const asString = (await call(server.app, 'POST', '/resolve', { json: { specs: specs.join(',') } })).json<ProblemBody>();
    expect(asString).toMatchObject({ status: 400, type: 'urn:conda-resolve:problem:too-many-specs', limit: 200 });
    const inFile = (
      await call(server.app, 'POST', '/resolve', { json: { file: specs.join('\n'), filename: 'specs.txt' } })
    ).json<ProblemBody>();
    expect(inFile).toMatchObject({ status: 400, type: 'urn:conda-resolve:problem:too-many-specs', field: 'file' });
    const platforms = [
      'linux-64',
      'linux-aarch64',
      'linux-ppc64le',
      'linux-s390x',
      'osx-64',
      'osx-arm64',
      'win-64',
      'win-arm64',
      'linux-32',
    ];
    const tooManyPlatforms = (await call(server.app, 'GET', `/resolve?spec=python&platforms=${platforms.join(',')}`)).json<ProblemBody>();
    expect(tooManyPlatforms).toMatchObject({
      status: 400,
      type: 'urn:conda-resolve:problem:too-many-platforms',
      field: 'platforms',
      limit: 8,
    });
    const channels = Array.from({ length: 9 }, (_, i) => `chan${i}`);
    expect((await call(server.app, 'POST', '/resolve', { json: { specs: ['python'], channels } })).json<ProblemBody>()).toMatchObject({
      type: 'urn:conda-resolve:problem:too-many-channels',
      limit: 8,
    });
  });
});

describe('HTTP-level errors', () => {
  it('413 for a body over the limit', async () => {
    const answer = await call(server.app, 'POST', '/resolve', {
      json: { specs: ['python'], file: 'x'.repeat(1024 * 1024 + 10), filename: 'a.txt' },
    });
    expect(answer.status).toBe(413);
    expect(answer.json<ProblemBody>()).toMatchObject({ type: 'urn:conda-resolve:problem:payload-too-large', limit: 1024 * 1024 });
  });

  it('415 for a media type that is neither JSON nor an environment file', async () => {
    const answer = await call(server.app, 'POST', '/resolve', { body: '<specs/>', headers: { 'content-type': 'application/xml' } });
    expect(answer.status).toBe(415);
    const problem = answer.json<ProblemBody & { supported_media_types: string[] }>();
    expect(problem.type).toBe('urn:conda-resolve:problem:unsupported-media-type');
    expect(problem.supported_media_types).toEqual(expect.arrayContaining(['application/json', 'application/yaml', 'text/plain']));
  });

  it('404 for an unknown path and 405 for a known path with another method', async () => {
    const missing = await call(server.app, 'GET', '/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.json<ProblemBody>().type).toBe('urn:conda-resolve:problem:not-found');
    const wrongMethod = await call(server.app, 'DELETE', '/resolve');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers['allow']).toBe('GET, POST');
  });

  it('compresses large answers when the client accepts it', async () => {
    const answer = await call(server.app, 'GET', '/openapi.json', { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers['content-encoding']).toBe('gzip');
  });

  it('CORS is off unless configured', async () => {
    const answer = await call(server.app, 'GET', '/version', { headers: { origin: 'https://example.org' } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await call(server.app, 'OPTIONS', '/resolve', {
      headers: { origin: 'https://example.org', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('logs', () => {
  it('record timing and outcome but never spec or file text or channel credentials', async () => {
    const marker = 'zzsecretmarker';
    await call(server.app, 'POST', '/resolve', {
      json: {
        specs: [`${marker}-spec`],
        file: `${marker}-file\n`,
        filename: 'specs.txt',
        platforms: ['linux-64'],
        channels: [DEMO_CHANNEL],
      },
    });
    await call(
      server.app,
      'GET',
      `/resolve?spec=${marker}-query&channel=${encodeURIComponent('https://alice:hunter2@example.org/t/tok-secret/chan')}`,
    );
    await call(server.app, 'GET', `/resolve?spec=python=3.11&channel=${encodeURIComponent(DEMO_CHANNEL)}&platform=linux-64`);
    const text = server.logs.join('\n');
    expect(text).not.toContain(marker);
    expect(text).not.toMatch(/hunter2|tok-secret|alice/);
    const completed = server.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['msg'] === 'request completed' && line['route'] === '/resolve');
    expect(completed.length).toBeGreaterThanOrEqual(3);
    const last = completed.at(-1)!;
    expect(last).toMatchObject({ method: 'GET', status: 200, outcome: 'solved', specs: 1, platforms: ['linux-64'] });
    expect(typeof last['ms']).toBe('number');
  });
});
