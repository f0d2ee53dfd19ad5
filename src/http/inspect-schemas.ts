/**
 * Schemas of `POST /tree`, `/why` and `/why-not`: each body is the `/resolve` body plus the
 * route's own fields, and each answer is one result per platform. Validation and the OpenAPI
 * document use these same objects.
 */
import { MAX_SPEC_LENGTH } from '../../vocabulary/version-spec.js';
import { EXPLANATION_SCHEMA } from './explanation-schema.js';
import type { Schemas } from './schemas.js';

/** Longest package name accepted as `name` or `invert` (conda names are far shorter). */
const MAX_NAME_LENGTH = 255;
/** Most paths `/why` returns. */
export const MAX_WHY_PATHS = 500;

export function buildInspectSchemas(resolveBody: Schemas['resolveBody']) {
  const extend = <P extends Record<string, unknown>>(title: string, description: string, properties: P, required: readonly string[]) =>
    ({
      title,
      description: `${description} The other fields are those of \`POST /resolve\` (ResolveBody).`,
      type: 'object',
      additionalProperties: false,
      required,
      properties: { ...resolveBody.properties, ...properties },
    }) as const;

  const treeBody = extend(
    'TreeBody',
    'Solve, then the dependency tree of each platform from the requested specs.',
    {
      depth: {
        description: 'Levels shown below the requested packages (0: only them). Default: all.',
        type: ['integer', 'null'],
        minimum: 0,
        maximum: 1000,
      },
      invert: {
        description: 'Show every path from this package up to the requested specs instead.',
        type: ['string', 'null'],
        minLength: 1,
        maxLength: MAX_NAME_LENGTH,
      },
    },
    [],
  );
  const whyBody = extend(
    'WhyBody',
    'Solve, then every path from a requested spec to `name`, shortest first.',
    {
      name: { description: 'The package to explain.', type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
      limit: {
        description: `Most paths returned (default 50, at most ${MAX_WHY_PATHS}).`,
        type: ['integer', 'null'],
        minimum: 1,
        maximum: MAX_WHY_PATHS,
      },
    },
    ['name'],
  );
  const whyNotBody = extend(
    'WhyNotBody',
    'Solve with and without `spec` added, and say why the solution does not have it.',
    { spec: { description: 'The match spec to try, e.g. `numpy>=2`.', type: 'string', minLength: 1, maxLength: MAX_SPEC_LENGTH } },
    ['spec'],
  );

  const edge = {
    title: 'GraphEdge',
    type: 'object',
    additionalProperties: false,
    required: ['from', 'to', 'spec'],
    properties: {
      from: { type: ['string', 'null'], description: 'The package whose `depends` entry this is; null for a requested spec.' },
      to: { type: 'string' },
      spec: { type: 'string', description: 'The `depends` entry exactly as the record has it, or the requested spec.' },
    },
  } as const;

  const treeNode = {
    title: 'TreeNode',
    type: 'object',
    additionalProperties: false,
    required: ['name', 'version', 'build', 'spec', 'requested', 'repeated', 'truncated', 'children'],
    properties: {
      name: { type: 'string' },
      version: { type: ['string', 'null'], description: 'Null for a requested spec at the top of an inverted branch.' },
      build: { type: ['string', 'null'] },
      spec: { type: 'string', description: 'What links the node to its parent: the `depends` entry or the requested spec.' },
      requested: { type: 'boolean' },
      repeated: { type: 'boolean', description: 'Shown in full elsewhere; children left out here.' },
      truncated: { type: 'boolean', description: 'Children cut by `depth`.' },
      children: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' } },
    },
  } as const;

  const platformError = { type: ['string', 'null'], description: 'Why the platform did not solve; null when it did.' } as const;
  const text = { type: 'string', description: 'The answer as the CLI prints it.' } as const;

  const treeResult = {
    title: 'TreeResult',
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['platform', 'error', 'roots', 'text'],
      properties: {
        platform: { type: 'string' },
        error: platformError,
        roots: { type: 'array', items: { $ref: '#/components/schemas/TreeNode' } },
        text,
      },
    },
  } as const;

  const whyResult = {
    title: 'WhyResult',
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['platform', 'error', 'answer', 'text'],
      properties: {
        platform: { type: 'string' },
        error: platformError,
        answer: {
          type: ['object', 'null'],
          additionalProperties: false,
          required: ['name', 'version', 'build', 'paths', 'truncated'],
          properties: {
            name: { type: 'string' },
            version: { type: ['string', 'null'], description: 'Null when the package is not in the environment.' },
            build: { type: ['string', 'null'] },
            paths: {
              type: 'array',
              items: { type: 'array', items: { $ref: '#/components/schemas/GraphEdge' } },
              description: 'Each from a requested spec (`from: null`) down to `name`, shortest first.',
            },
            truncated: { type: 'boolean' },
          },
        },
        text,
      },
    },
  } as const;

  const whyNotResult = {
    title: 'WhyNotResult',
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['platform', 'kind', 'spec', 'text'],
      properties: {
        platform: { type: 'string' },
        kind: {
          type: 'string',
          enum: ['present', 'unsatisfiable', 'possible', 'failed'],
          description:
            '`present`: the solution has it already; `unsatisfiable`: no solution with it (`explanation`); `possible`: `changes` and the `preference` that chose the current one; `failed`: the request does not solve.',
        },
        spec: { type: 'string' },
        text,
        record: { type: 'string' },
        explanation: EXPLANATION_SCHEMA,
        changes: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'current', 'alternative'],
            properties: { name: { type: 'string' }, current: { type: ['string', 'null'] }, alternative: { type: ['string', 'null'] } },
          },
        },
        preference: {
          type: ['object', 'null'],
          additionalProperties: false,
          required: ['name', 'via', 'requested', 'criterion', 'current', 'alternative', 'text'],
          properties: {
            name: { type: 'string' },
            via: { type: 'string' },
            requested: { type: 'boolean' },
            criterion: { type: 'string', enum: ['track_features', 'channel', 'version', 'build_number', 'timestamp'] },
            current: { type: 'string' },
            alternative: { type: 'string' },
            text: { type: 'string' },
          },
        },
      },
    },
  } as const;

  return { treeBody, whyBody, whyNotBody, edge, treeNode, treeResult, whyResult, whyNotResult };
}

export type InspectSchemas = ReturnType<typeof buildInspectSchemas>;
