/**
 * Run-time checks of the library's arguments, as zod schemas: callers in JavaScript (or with `any`)
 * get an `InvalidArgumentError` naming the argument at fault (`request.specs[1]`, `options.timeoutMs`)
 * rather than a TypeError from deep inside, or a string read as its letters.
 *
 * Each schema's `error` writes what follows "Invalid argument NAME: " for its own field, so the
 * message says what was expected and what came instead; `failure` turns the first issue into the
 * error, with the code of the field it is under (`FIELD_CODES`).
 */
import { z } from 'zod';
import { RepodataStore } from '../../repodata/store.js';
import type { ErrorCode } from '../errors.js';
import { ExporterRegistry } from '../exporters/index.js';
import type { ResolveRequest } from '../request.js';
import type { Resolution } from '../resolve.js';
import { InvalidArgumentError } from './errors.js';
import type { ResolveEnvironmentsOptions } from './resolve-environments.js';

/** Words for a value in a message: `the string "python"`, `the number 3`, `an object`. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `the ${typeof value} ${String(value)}`;
    case 'undefined':
      return 'undefined';
    case 'object':
      return value instanceof Date ? 'a Date' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}

interface Issue {
  readonly code?: string;
  readonly input?: unknown;
  readonly keys?: readonly string[];
}

/** The `error` of a schema: "expected WHAT, not VALUE" plus a hint for a common slip. */
function expecting(expected: string, hint: (input: unknown) => string = () => '') {
  return { error: (issue: Issue) => `expected ${expected}, not ${describe(issue.input)}${hint(issue.input)}` };
}

/** A strict object: its type error, or the first unknown field with the nearest known one. */
function fieldsOf<Shape extends z.ZodRawShape>(shape: Shape, expected: string) {
  const fields = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue: Issue) => {
      if (issue.code !== 'unrecognized_keys') return `expected ${expected}, not ${describe(issue.input)}`;
      const key = issue.keys?.[0] ?? '';
      const stem = key.toLowerCase().replace(/s$/, '');
      const near = stem.length < 3 ? undefined : fields.find((f) => f.toLowerCase().startsWith(stem) || stem.startsWith(f.toLowerCase()));
      return `unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}; the fields are ${fields.join(', ')}`;
    },
  });
}

/** Stands for the field's own name in a hint; `failure` puts the name in. */
const FIELD_NAME = '\u0000field';

/** An array of strings; a lone string gets the hint to wrap it (`write specs: ["python"]`). */
function strings(example: string) {
  const hint = (input: unknown): string => (typeof input === 'string' ? `; write ${FIELD_NAME}: [${JSON.stringify(input)}]` : '');
  return z.array(z.string(expecting('a string')), expecting(`an array of strings such as ${example}`, hint)).optional();
}

/** A value `schema` accepts, reported as one argument (not field by field inside it). */
function whole(schema: z.ZodType, expected: string) {
  return z.custom((value) => schema.safeParse(value).success, expecting(expected));
}

const nonEmpty = (expected: string) => z.string(expecting(expected)).min(1, expecting(expected)).optional();
const text = (expected: string) => z.string(expecting(expected)).optional();
const flag = z.boolean(expecting('true or false')).optional();

const file = fieldsOf(
  {
    filename: z.string(expecting('a file name such as "environment.yml"')).min(1, expecting('a file name such as "environment.yml"')),
    content: z.string(expecting("the file's text, a string")),
  },
  'an object { filename, content }',
);

const pypiOptions = fieldsOf(
  {
    indexUrl: text('a string'),
    extraIndexUrls: strings('["https://example.org/simple"]'),
    findLinks: strings('["./wheels"]'),
    indexStrategy: text('a string'),
    prerelease: text('a string'),
  },
  'an object { indexUrl, extraIndexUrls, findLinks, indexStrategy, prerelease }',
);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// The order of the fields is the order they are checked in: the first wrong one is reported.
const requestSchema = fieldsOf(
  {
    specs: strings('["python=3.12", "numpy"]'),
    channels: strings('["conda-forge"]'),
    platforms: strings('["linux-64", "osx-arm64"]'),
    virtualPackages: strings('["__glibc=2.17"]'),
    files: z.array(file, expecting('an array of { filename, content }')).optional(),
    environment: text('an environment name such as "default"'),
    lock: whole(z.looseObject({ filename: z.string(), content: z.string() }), 'a lock file { filename: "pixi.lock", content }').optional(),
    update: strings('["openssl"]'),
    pypi: strings('["requests>=2.31", "rich"]'),
    pypiOptions: pypiOptions.optional(),
    resolution: text('one of "highest", "lowest", "lowest-direct"'),
    condaPypiMap: z.custom(isObject, expecting('an object { channel: { condaName: pypiName | null } }')).optional(),
    channelPriority: text('one of "strict", "flexible", "disabled"'),
    excludeNewer: z
      .string(
        expecting('an ISO 8601 date string such as "2024-05-01"', (input) => (input instanceof Date ? '; use date.toISOString()' : '')),
      )
      .optional(),
  },
  'an object such as { specs: ["python=3.12"], platforms: ["linux-64"] }',
);

const RESOLVE_OPTION_FIELDS = [
  'cacheDir',
  'offline',
  'refresh',
  'store',
  'solver',
  'timeoutMs',
  'signal',
  'env',
  'cwd',
  'defaultChannels',
] as const;

const optionsSchema = fieldsOf(
  {
    cacheDir: nonEmpty('a directory path'),
    offline: flag,
    refresh: flag,
    store: z.instanceof(RepodataStore, expecting('a RepodataStore')).optional(),
    solver: z
      .custom((v) => isObject(v) && typeof v.solve === 'function', expecting('a PlatformSolver (an object with a solve method)'))
      .optional(),
    timeoutMs: z.number(expecting('a number of milliseconds above 0')).gt(0, expecting('a number of milliseconds above 0')).optional(),
    signal: z.instanceof(AbortSignal, expecting('an AbortSignal')).optional(),
    env: z
      .custom(
        (v) => isObject(v) && Object.values(v).every((e) => e === undefined || typeof e === 'string'),
        expecting('an object of string values'),
      )
      .optional(),
    cwd: nonEmpty('a directory path'),
    defaultChannels: strings('["conda-forge"]'),
  } satisfies Record<(typeof RESOLVE_OPTION_FIELDS)[number], z.ZodType>,
  `an object with the fields ${RESOLVE_OPTION_FIELDS.join(', ')}`,
);

const exportOptionsSchema = fieldsOf(
  {
    registry: z.instanceof(ExporterRegistry, expecting('an ExporterRegistry (registerBuiltinExporters() or loadRegistry())')).optional(),
    now: z.date(expecting('a valid Date')).optional(),
  },
  'an object with the fields registry, now',
);

const resolutionSchema = whole(
  z.looseObject({ platforms: z.array(z.unknown()), request: z.looseObject({}) }),
  'a Resolution, as resolveEnvironments returns',
).pipe(
  z.looseObject({
    request: z.looseObject({ channels: z.array(z.unknown(), expecting('an array of channels')) }),
    platforms: z.array(
      whole(
        z.looseObject({ platform: z.string(), records: z.array(z.unknown()).nullable(), error: z.string().nullable() }),
        'a PlatformResolution { platform, records, error, errorCode }',
      ),
    ),
  }),
);

const formatSchema = z
  .string(expecting('a format name such as "pixi" or "explicit"'))
  .refine((name) => name.trim() !== '', expecting('a format name such as "pixi" or "explicit"'));

/** The code of an argument by the field it is under: specs, channels, platforms, dates have their own. */
const FIELD_CODES: Readonly<Record<string, ErrorCode>> = {
  'request.specs': 'CR_ERR_INPUT_SPEC',
  'request.pypi': 'CR_ERR_INPUT_SPEC',
  'request.channels': 'CR_ERR_INPUT_CHANNEL',
  'options.defaultChannels': 'CR_ERR_INPUT_CHANNEL',
  'request.platforms': 'CR_ERR_INPUT_PLATFORM',
  'request.excludeNewer': 'CR_ERR_INPUT_DATE',
};

/** `request.files[0].content` from the argument's name and an issue's path. */
function argumentName(root: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : `${name}.${String(key)}`), root);
}

/** The error of a failed parse: an unknown top-level field first, then the first wrong field. */
function failure(root: string, error: z.ZodError): InvalidArgumentError {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys' && i.path.length === 0) ?? error.issues[0]!;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const argument = argumentName(root, path);
  const field = argumentName(root, path.slice(0, 1));
  const message = issue.message.replace(FIELD_NAME, String(path[path.length - 1] ?? root));
  const shown = issue.code === 'unrecognized_keys' ? argumentName(root, issue.path) : argument;
  return new InvalidArgumentError(FIELD_CODES[field] ?? 'CR_ERR_INPUT_OPTION', argument, `Invalid argument ${shown}: ${message}`);
}

function check<T>(schema: z.ZodType, value: unknown, root: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw failure(root, parsed.error);
  return value as T;
}

export function checkRequest(request: unknown): ResolveRequest {
  return check<ResolveRequest>(requestSchema, request, 'request');
}

/** Options may be omitted or null: read as none. */
export function checkResolveOptions(options: unknown): ResolveEnvironmentsOptions {
  return options === undefined || options === null ? {} : check<ResolveEnvironmentsOptions>(optionsSchema, options, 'options');
}

export function checkResolution(resolution: unknown): Resolution {
  return check<Resolution>(resolutionSchema, resolution, 'resolution');
}

export function checkFormat(format: unknown): string {
  return check<string>(formatSchema, format, 'format');
}

export function checkExportOptions(options: unknown): { registry?: ExporterRegistry; now?: Date } {
  return options === undefined || options === null ? {} : check(exportOptionsSchema, options, 'options');
}
