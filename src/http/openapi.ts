/**
 * The OpenAPI 3.1 document of `/openapi.json`, built from the same schema objects the routes
 * validate with (`schemas.ts`): components hold those objects themselves, and query parameters are
 * the query schema's properties, so the document and the validation cannot disagree.
 */
import { auditBodySchema } from './routes/audit.js';
import { TOOL_VERSION } from '../version.js';
import type { ServerConfig } from './config.js';
import { buildInspectSchemas } from './inspect-schemas.js';
import { PROBLEM_KINDS, PROBLEM_MEDIA_TYPE, problemType } from './problem.js';
import { JSON_MEDIA_TYPE, RAW_FILE_MEDIA_TYPES, type Schemas } from './schemas.js';

type Json = Record<string, unknown>;

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

function problemResponse(description: string): Json {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: PROBLEM_REF } } };
}

function jsonResponse(description: string, name: string): Json {
  return { description, content: { [JSON_MEDIA_TYPE]: { schema: { $ref: `#/components/schemas/${name}` } } } };
}

export function buildOpenApi(schemas: Schemas, config: ServerConfig): Json {
  const queryParameters = (exclude: readonly string[]) =>
    Object.entries(schemas.resolveQuery.properties)
      .filter(([name]) => !exclude.includes(name))
      .map(([name, schema]) => ({
        name,
        in: 'query',
        required: false,
        description: schema.description,
        schema,
        style: 'form',
        explode: true,
      }));

  const resolveResponses = (post: boolean): Json => ({
    200: {
      description:
        "Without `format`: the native JSON array, one result per platform; a platform that failed has an empty `packages` and an `error`. With `format`: the exporter's text, with the exporter's media type (see `GET /formats`); with `lock` in that lock's format and nothing changed, the lock's own text byte for byte." +
        (post
          ? ' With `check: true`: a LockCheck (200 whether or not the lock satisfies the request). With `diff: true`: a LockDiff, or its table with `Accept: text/plain`.'
          : ''),
      content: {
        [JSON_MEDIA_TYPE]: {
          schema: post
            ? {
                oneOf: [
                  { $ref: '#/components/schemas/NativeResult' },
                  { $ref: '#/components/schemas/LockCheck' },
                  { $ref: '#/components/schemas/LockDiff' },
                ],
              }
            : { $ref: '#/components/schemas/NativeResult' },
        },
        'application/yaml': { schema: { type: 'string' } },
        'text/plain': { schema: { type: 'string' } },
      },
    },
    400: problemResponse(
      'Bad input, naming the field: unparsable spec or file, unknown platform, channel or format (`available_formats` lists the names), too many specs, platforms or channels, a channel this server may not fetch (`field` is `lock` when the previous lock names it).' +
        (post
          ? ' `update`, `check` or `diff` without `lock` (`field`: `lock`), a lock that cannot be read, an `update` name the lock does not lock, an `environment` the file or lock lacks.'
          : ''),
    ),
    ...(post
      ? {
          403: problemResponse(
            'A POST a browser sent from another origin without a CORS preflight (`text/plain`, a form, no body): send JSON, or allow the origin with `--cors-origin`.',
          ),
          413: problemResponse(`Body larger than ${config.bodyLimit} bytes.`),
          415: problemResponse('Body media type not accepted.'),
        }
      : {}),
    429: problemResponse('Rate limited, or too many requests from this address in flight; see Retry-After.'),
    500: problemResponse('With `format`: a platform failed to solve (`platforms` says which and why) or the exporter failed.'),
    503: problemResponse('The solve queue is full or the server is shutting down; see Retry-After.'),
    504: problemResponse(`The resolve exceeded the time limit of ${config.requestTimeoutMs / 1000} s.`),
  });

  const inspect = buildInspectSchemas(schemas.resolveBody);
  const inspectPath = (operationId: string, summary: string, body: string, result: string): Json => ({
    post: {
      summary,
      operationId,
      requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: { $ref: `#/components/schemas/${body}` } } } },
      responses: {
        200: jsonResponse('One result per platform, in request order; a platform that did not solve carries its `error`.', result),
        400: problemResponse('Bad input, naming the field, as for `/resolve`.'),
        403: problemResponse(
          'A POST a browser sent from another origin without a CORS preflight (`text/plain`, a form, no body): send JSON, or allow the origin with `--cors-origin`.',
        ),
        413: problemResponse(`Body larger than ${config.bodyLimit} bytes.`),
        415: problemResponse('Body media type not accepted (JSON only; `supported_media_types` says so).'),
        429: problemResponse('Rate limited, or too many requests from this address in flight; see Retry-After.'),
        503: problemResponse('The solve queue is full or the server is shutting down; see Retry-After.'),
        504: problemResponse(`The solve exceeded the time limit of ${config.requestTimeoutMs / 1000} s.`),
      },
    },
  });

  const problemTypes = Object.entries(PROBLEM_KINDS)
    .map(([kind, { status, title }]) => `| \`${problemType(kind as keyof typeof PROBLEM_KINDS)}\` | ${status} | ${title} |`)
    .join('\n');

  return {
    openapi: '3.1.0',
    info: {
      title: 'conda-resolve',
      version: TOOL_VERSION,
      description: [
        'Solve conda environments for one or more platforms and get the packages as JSON or as the text of an exporter (explicit files, environment.yml, conda-lock.yml, pixi.lock, ...).',
        '',
        `Limits of this server: ${config.maxSpecs} specs, ${config.maxPlatforms} platforms and ${config.maxChannels} channels per request, request bodies up to ${config.bodyLimit} bytes, ${config.requestTimeoutMs / 1000} s per request${config.rateLimit ? `, ${config.rateLimit.max} requests per minute per client` : ''}.`,
        '',
        'Errors are RFC 9457 problem details (`application/problem+json`). Their types:',
        '',
        '| type | status | title |',
        '|---|---|---|',
        problemTypes,
      ].join('\n'),
    },
    paths: {
      '/resolve': {
        get: {
          summary: 'Resolve from query parameters',
          operationId: 'resolveGet',
          parameters: queryParameters(['filename']),
          responses: resolveResponses(false),
        },
        post: {
          summary: 'Resolve from a JSON body, or from an environment file sent as the body',
          operationId: 'resolvePost',
          description:
            'Send a JSON object (`application/json`), or the text of an environment file as the body with a YAML or text media type and its name in `filename`; query parameters then supply specs, channels and platforms. `format` is always a query parameter.',
          parameters: queryParameters([]),
          requestBody: {
            required: false,
            content: {
              [JSON_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/ResolveBody' } },
              ...Object.fromEntries(
                RAW_FILE_MEDIA_TYPES.map((type) => [type, { schema: { $ref: '#/components/schemas/EnvironmentFile' } }]),
              ),
            },
          },
          responses: resolveResponses(true),
        },
      },
      '/tree': inspectPath('tree', 'The dependency tree of the solved environment, per platform', 'TreeBody', 'TreeResult'),
      '/why': inspectPath('why', 'Every path from a requested spec to a package, shortest first', 'WhyBody', 'WhyResult'),
      '/why-not': inspectPath(
        'whyNot',
        'Why the solution does not have a spec: the conflict, or what would change',
        'WhyNotBody',
        'WhyNotResult',
      ),
      '/diff': {
        post: {
          summary: 'Compare two environments with exact packages',
          operationId: 'diff',
          description:
            'Per platform, the packages added, removed, upgraded, downgraded, rebuilt (same version, another build) and moved (same build from another channel) from `old` to `new`, as `conda-resolve diff OLD NEW --json` prints them; `Accept: text/plain` gives the table. Nothing is solved or fetched.',
          requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/DiffBody' } } } },
          responses: {
            200: {
              description: 'The changes.',
              content: {
                [JSON_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/DiffResult' } },
                'text/plain': { schema: { type: 'string' } },
              },
            },
            400: problemResponse(
              'A file that cannot be read as exact packages (`field` is `old.content`, `new.content` or their `filename`), or an `environment` a lock lacks.',
            ),
            403: problemResponse(
              'A POST a browser sent from another origin without a CORS preflight (`text/plain`, a form, no body): send JSON, or allow the origin with `--cors-origin`.',
            ),
            413: problemResponse(`Body larger than ${config.bodyLimit} bytes.`),
            415: problemResponse('Body media type not accepted (JSON only).'),
            429: problemResponse('Rate limited; see Retry-After.'),
          },
        },
      },
      '/audit': {
        post: {
          summary: 'Known vulnerabilities of a solve or a lock (OSV)',
          operationId: 'audit',
          description:
            "Solves the request (or reads the lock given as `file`) as `/resolve` does, with its limits and channel policy, then checks every package against the server's OSV database (`serve --osv-db` or `--osv-api`): PyPI packages, and conda packages under their PyPI names. Packages nothing can check are listed in `notCovered`. `report: sarif` gives SARIF 2.1.0; `Accept: text/plain` the table.",
          requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/AuditBody' } } } },
          responses: {
            200: {
              description: 'The audit report (`conda-resolve audit --json`, plus `failed` platforms), SARIF, or the table.',
              content: {
                [JSON_MEDIA_TYPE]: { schema: { type: 'object' } },
                'application/sarif+json': { schema: { type: 'object' } },
                'text/plain': { schema: { type: 'string' } },
              },
            },
            400: problemResponse('Bad input, as for `/resolve`.'),
            404: problemResponse('The server has no OSV database.'),
            413: problemResponse(`Body larger than ${config.bodyLimit} bytes.`),
            429: problemResponse('Rate limited; see Retry-After.'),
            503: problemResponse('The solve queue is full.'),
            504: problemResponse('The time limit was reached.'),
          },
        },
      },
      '/formats': {
        get: {
          summary: 'The exporter registry',
          operationId: 'formats',
          responses: { 200: jsonResponse('Primary names (sorted) and every exporter.', 'Formats') },
        },
      },
      '/platforms': {
        get: {
          summary: 'Target platforms and their virtual packages',
          operationId: 'platforms',
          responses: { 200: jsonResponse('Platforms.', 'Platforms') },
        },
      },
      '/version': {
        get: { summary: 'Server version', operationId: 'version', responses: { 200: jsonResponse('Name and version.', 'Version') } },
      },
      '/health': {
        get: {
          summary: 'Liveness and solver load',
          operationId: 'health',
          responses: { 200: jsonResponse('The server is up.', 'Health'), 503: problemResponse('The server is shutting down.') },
        },
      },
      '/openapi.json': {
        get: { summary: 'This document', operationId: 'openapi', responses: { 200: { description: 'OpenAPI 3.1 document.' } } },
      },
      '/ui': {
        get: {
          summary: 'A page to solve an environment and explore it: table, dependency tree, why, why-not, downloads',
          operationId: 'ui',
          responses: { 200: { description: 'HTML.', content: { 'text/html': {} } } },
        },
      },
      '/docs': {
        get: {
          summary: 'A page to try requests in a browser',
          operationId: 'docs',
          responses: { 200: { description: 'HTML.', content: { 'text/html': {} } } },
        },
      },
    },
    components: {
      schemas: {
        ResolveBody: schemas.resolveBody,
        LockCheck: schemas.lockCheck,
        LockDiff: schemas.lockDiff,
        PlatformDiff: schemas.platformDiff,
        DiffBody: schemas.diffBody,
        AuditBody: auditBodySchema(schemas.resolveBody as { properties: Record<string, unknown> }),
        DiffResult: schemas.diffResult,
        EnvironmentFile: schemas.rawFileBody,
        NativeResult: schemas.nativeResult,
        SolveResult: schemas.solveResult,
        PackageRecord: schemas.packageRecord,
        PypiRecord: schemas.pypiRecord,
        Problem: schemas.problem,
        Formats: schemas.formats,
        Platforms: schemas.platforms,
        Version: schemas.version,
        Health: schemas.health,
        TreeBody: inspect.treeBody,
        WhyBody: inspect.whyBody,
        WhyNotBody: inspect.whyNotBody,
        TreeResult: inspect.treeResult,
        WhyResult: inspect.whyResult,
        WhyNotResult: inspect.whyNotResult,
        TreeNode: inspect.treeNode,
        GraphEdge: inspect.edge,
      },
    },
  };
}
