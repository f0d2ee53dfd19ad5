/**
 * The JSON schemas of every request and response, in one place: the routes validate requests with
 * them and `/openapi.json` is built from the very same objects, so the document cannot drift from
 * what the server accepts. Limits are part of the schemas (`maxItems`), so the document shows the
 * running server's configuration.
 */
import { CHANNEL_PRIORITIES } from '../../solver/index.js';
import { MAX_SPEC_LENGTH } from '../../vocabulary/version-spec.js';
import { FORMATS_DOCUMENT_SCHEMA } from '../exporters/formats-document.js';
import { EXPLANATION_SCHEMA } from './explanation-schema.js';
import { CHANGE_KINDS } from '../lock/diff.js';
import { PROBLEM_KINDS, problemType } from './problem.js';

export interface SchemaLimits {
  readonly maxSpecs: number;
  readonly maxPlatforms: number;
  readonly maxChannels: number;
  readonly maxPypiProjects: number;
}

/** Media types `POST /resolve` accepts for an environment file sent as the raw body. */
export const RAW_FILE_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'text/plain'] as const;
export const JSON_MEDIA_TYPE = 'application/json';
/** What JSON answers are sent as. */
export const NATIVE_MEDIA_TYPE = 'application/json; charset=utf-8';

/** A list given as a JSON array (each item at most `maxLength` characters) or as one comma-separated string. */
function listOrString(description: string, maxItems: number | undefined, maxLength?: number) {
  return {
    description,
    anyOf: [
      {
        type: 'array',
        items: { type: 'string', ...(maxLength !== undefined ? { maxLength } : {}) },
        ...(maxItems !== undefined ? { maxItems } : {}),
      },
      { type: 'string' },
      { type: 'null' },
    ],
  };
}

/** A query parameter that may be repeated. */
function repeatable(description: string) {
  return { description, anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] };
}

const SPEC_SPLIT_RULE = 'A comma followed by a letter or `_` starts a new spec, so a version range such as `numpy>=1.26,<2` stays whole.';

export function buildSchemas(limits: SchemaLimits) {
  const resolveBody = {
    title: 'ResolveBody',
    description:
      'What to resolve. Give `specs`, or `file` (the text of an environment file) with `filename`, or both: their specs are combined. A pixi.lock or conda-lock.yml as `file` is the environment itself (its records, no solve); a pixi.toml or pyproject.toml is the request (its channels, platforms, dependencies, targets and system requirements). `lock` (with `lock_filename`, as `file` with `filename`) is a previous lock to stay close to; with it, `update`, `check` and `diff` apply. Every field is optional; a field given here wins over the same query parameter.',
    type: 'object',
    additionalProperties: false,
    properties: {
      specs: listOrString(
        `conda match specs, e.g. \`python=3.12\`, \`numpy>=1.26\`, each at most ${MAX_SPEC_LENGTH} characters. As a string: comma-separated. ${SPEC_SPLIT_RULE}`,
        limits.maxSpecs,
        MAX_SPEC_LENGTH,
      ),
      file: {
        description:
          'Full text of an input file: environment.yml, a *.txt spec list, an @EXPLICIT file, pixi.lock, conda-lock.yml, pixi.toml or pyproject.toml with `[tool.pixi]`.',
        type: ['string', 'null'],
      },
      filename: {
        description:
          'Basename of that file; it chooses the parser (`environment.yml`, `requirements.txt`, `explicit.txt`, `pixi.lock`, `conda-lock.yml`, `pixi.toml`, `pyproject.toml`). Guessed from the text when absent.',
        type: ['string', 'null'],
        maxLength: 255,
      },
      environment: {
        description:
          'The pixi environment of a pixi.lock, pixi.toml or pyproject.toml given as `file` or `lock` (default `default`). With a pixi manifest, no `environment` and `format` `pixi` (or `check`/`diff` against a pixi.lock), every environment is solved into one pixi.lock, as `pixi lock` does.',
        type: ['string', 'null'],
        maxLength: 255,
      },
      lock: {
        description:
          "Full text of a previous pixi.lock or conda-lock.yml to stay close to: every locked package that still satisfies the request keeps its record; with `format` set to the lock's format and nothing changed, the answer is this text byte for byte. Its channels must be ones this server may fetch; its package URLs are never fetched.",
        type: ['string', 'null'],
      },
      lock_filename: {
        description: 'Basename of `lock` (`pixi.lock`, `conda-lock.yml`); guessed from its text when absent.',
        type: ['string', 'null'],
        maxLength: 255,
      },
      update: listOrString(
        'Package names of `lock` to solve afresh at their most preferred versions (and only what they force to change); everything else keeps its locked record. Needs `lock`. As a string: comma-separated.',
        256,
        255,
      ),
      check: {
        description:
          'With `lock`: answer a LockCheck (whether `lock` satisfies the request on every platform, and why not) without solving or fetching repodata. `format` does not apply.',
        type: ['boolean', 'null'],
      },
      diff: {
        description:
          'With `lock`: answer a LockDiff (per platform, the packages the solve adds, removes, upgrades, downgrades, rebuilds or moves against `lock`) instead of the result; with `format`, the text in that format is its `output`. `Accept: text/plain` gives the changes as a table.',
        type: ['boolean', 'null'],
      },
      channels: listOrString(
        "Channels in priority order: names (`conda-forge`) or URLs. Default: the server's default channels.",
        limits.maxChannels,
      ),
      platforms: listOrString(
        "Target platforms (conda subdirs) such as `linux-64` or `osx-arm64`. Default: the server's platform.",
        limits.maxPlatforms,
      ),
      channel_priority: { description: 'conda channel priority.', type: ['string', 'null'], enum: [...CHANNEL_PRIORITIES, null] },
      virtual_packages: listOrString('Virtual packages to add or replace, `NAME=VERSION[=BUILD]`, e.g. `__glibc=2.17`.', 32),
      exclude_newer: { description: 'Ignore packages published after this ISO 8601 date or date-time.', type: ['string', 'null'] },
      pypi: {
        description: `PEP 508 requirements installed from PyPI (\`requests>=2.31\`, \`rich[jupyter]; python_version >= "3.10"\`), solved in one problem with the conda specs: they may move the conda \`python\`, and a distribution a conda package provides is never installed from PyPI beside it. Wheels only. At most ${limits.maxPypiProjects} projects are fetched per request.`,
        type: ['array', 'null'],
        maxItems: limits.maxSpecs,
        items: { type: 'string', minLength: 1, maxLength: MAX_SPEC_LENGTH },
      },
      index_url: {
        description:
          'The PyPI index (PEP 503/691). Default and, unless the server allows more, the only one allowed: `https://pypi.org/simple`.',
        type: ['string', 'null'],
        maxLength: 2048,
      },
      extra_index_urls: {
        description: "More PyPI indexes, consulted as `index_strategy` says; each must pass the server's index allowlist.",
        type: ['array', 'null'],
        maxItems: 8,
        items: { type: 'string', maxLength: 2048 },
      },
      index_strategy: {
        description:
          "How several indexes combine (uv's names): `first-index` (default: the first index that has a project is the only one used), `unsafe-first-match`, `unsafe-best-match`.",
        type: ['string', 'null'],
        enum: ['first-index', 'unsafe-first-match', 'unsafe-best-match', null],
      },
      prerelease: {
        description:
          "PyPI pre-releases: `if-necessary-or-explicit` (default, PEP 440: when a specifier names one or nothing else fits), `allow` (pip's `--pre`), `disallow`.",
        type: ['string', 'null'],
        enum: ['if-necessary-or-explicit', 'allow', 'disallow', null],
      },
      resolution: {
        description:
          'Which version of each name is preferred, conda and PyPI alike: `highest` (default), `lowest`, `lowest-direct` (lowest for the requested names only).',
        type: ['string', 'null'],
        enum: ['highest', 'lowest', 'lowest-direct', null],
      },
    },
  } as const;

  const resolveQuery = {
    title: 'ResolveQuery',
    type: 'object',
    additionalProperties: false,
    properties: {
      spec: repeatable('A conda match spec; repeat for more.'),
      specs: repeatable(`Comma-separated match specs. ${SPEC_SPLIT_RULE}`),
      channel: repeatable('A channel; repeat for more, in priority order.'),
      channels: repeatable('Comma-separated channels, in priority order.'),
      platform: repeatable('A target platform; repeat for more.'),
      platforms: repeatable('Comma-separated target platforms.'),
      format: {
        description: 'Exporter name or alias (see `GET /formats`). Without it the answer is the native JSON array.',
        type: 'string',
      },
      channel_priority: { description: 'conda channel priority.', type: 'string', enum: [...CHANNEL_PRIORITIES] },
      virtual_package: repeatable('A virtual package `NAME=VERSION[=BUILD]`; repeat for more.'),
      virtual_packages: repeatable('Comma-separated virtual packages.'),
      exclude_newer: { description: 'Ignore packages published after this ISO 8601 date or date-time.', type: 'string' },
      filename: {
        description: "With a raw file body on `POST`: the file's basename, which chooses its parser.",
        type: 'string',
        maxLength: 255,
      },
      environment: {
        description: 'With a raw pixi.lock, pixi.toml or pyproject.toml body on `POST`: the pixi environment (default `default`).',
        type: 'string',
        maxLength: 255,
      },
    },
  } as const;

  /** The raw body of `POST /resolve` with a YAML or text media type: the environment file itself. */
  const rawFileBody = { title: 'EnvironmentFile', description: 'The text of an environment file.', type: 'string' } as const;

  const packageRecord = {
    title: 'PackageRecord',
    type: 'object',
    additionalProperties: false,
    required: [
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
    ],
    properties: {
      name: { type: 'string' },
      version: { type: 'string' },
      build: { type: 'string' },
      build_number: { type: 'integer' },
      channel: { type: 'string', description: 'Channel name on the default alias (`conda-forge`), else its URL without credentials.' },
      subdir: { type: 'string' },
      url: { type: 'string', format: 'uri' },
      sha256: { type: ['string', 'null'], description: 'Lowercase hex; null when the channel publishes none.' },
      md5: { type: ['string', 'null'] },
      size: { type: ['integer', 'null'], description: 'Bytes.' },
      depends: { type: 'array', items: { type: 'string' } },
      constrains: { type: 'array', items: { type: 'string' } },
      manager: { type: 'string', enum: ['conda'] },
    },
  } as const;

  const pypiRecord = {
    title: 'PypiRecord',
    description:
      "A PyPI distribution: one a solve chose (the wheel for the platform and the solved Python, with every field the index page and the wheel's core metadata give) or one kept from a lock (pixi.lock `pypi:`, conda-lock.yml `manager: pip`: the fields a lock records).",
    type: 'object',
    additionalProperties: false,
    required: ['name', 'version', 'url', 'sha256', 'md5', 'requires_dist', 'requires_python', 'index', 'manager'],
    properties: {
      name: { type: 'string', description: 'As the metadata (or the lock) spells it.' },
      version: { type: ['string', 'null'], description: 'null only for a local source tree locked by path.' },
      url: { type: 'string', description: 'The wheel (or, from a lock, sdist or local path), without credentials.' },
      sha256: { type: ['string', 'null'] },
      md5: { type: ['string', 'null'] },
      requires_dist: { type: 'array', items: { type: 'string' }, description: '`Requires-Dist`, markers included.' },
      requires_python: { type: ['string', 'null'] },
      index: { type: ['string', 'null'], description: 'The index (or find-links folder) that listed it, without credentials.' },
      filename: { type: 'string', description: 'Solved only: the wheel file name (PEP 427).' },
      hashes: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Solved only: every hash the index gives, name -> lowercase hex.',
      },
      size: { type: ['integer', 'null'], description: 'Solved only: bytes (PEP 700).' },
      upload_time: { type: ['string', 'null'], description: 'Solved only: ISO 8601 (PEP 700).' },
      yanked: { type: 'boolean', description: 'Solved only: PEP 592, chosen only for an `==` pin.' },
      extras: { type: 'array', items: { type: 'string' }, description: 'Solved only: the extras the solve asked of it.' },
      depends: {
        type: 'array',
        items: { type: 'string' },
        description: 'Solved only: normalised names of the requirements that hold on this platform with the solved Python.',
      },
      manager: {
        type: 'string',
        enum: ['pip'],
        description: "`pip`, conda's word for pip-installed packages (`conda` for conda records).",
      },
    },
  } as const;

  const solveResult = {
    title: 'SolveResult',
    type: 'object',
    additionalProperties: false,
    required: ['platform', 'packages', 'error'],
    properties: {
      platform: { type: 'string' },
      packages: {
        type: 'array',
        items: { anyOf: [packageRecord, pypiRecord] },
        description:
          'Conda packages (`manager` `conda`) sorted by name, then PyPI distributions (`manager` `pip`: solved, or kept from a lock); empty when the platform failed.',
      },
      error: { type: ['string', 'null'], description: 'null when the platform solved, else why it failed.' },
      explanation: EXPLANATION_SCHEMA,
      warnings: {
        type: 'array',
        items: { type: 'string' },
        description: 'Present when the input had parts that were not solved (pip entries, ...).',
      },
    },
  } as const;

  const nativeResult = {
    title: 'NativeResult',
    description: 'One SolveResult per requested platform, in request order.',
    type: 'array',
    items: solveResult,
  } as const;

  const problem = {
    title: 'Problem',
    description: 'RFC 9457 problem details (`application/problem+json`).',
    type: 'object',
    required: ['type', 'title', 'status', 'detail'],
    properties: {
      type: { type: 'string', enum: Object.keys(PROBLEM_KINDS).map((kind) => problemType(kind as keyof typeof PROBLEM_KINDS)) },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      field: { type: 'string', description: 'The request field at fault.' },
      available_formats: { type: 'array', items: { type: 'string' }, description: 'For an unknown format: the exporter names, sorted.' },
      limit: { type: 'integer' },
      platforms: {
        type: 'array',
        items: {
          type: 'object',
          required: ['platform', 'error', 'code'],
          properties: {
            platform: { type: 'string' },
            error: { type: 'string' },
            code: { type: 'string' },
            environment: { type: 'string', description: 'The pixi environment, when a whole workspace was solved.' },
          },
        },
      },
      retry_after: { type: 'integer', description: 'Seconds; also sent as Retry-After.' },
      allowed_methods: { type: 'array', items: { type: 'string' } },
      supported_media_types: { type: 'array', items: { type: 'string' } },
      request_id: { type: 'string' },
    },
  } as const;

  // Defined beside the document it describes, which the CLI prints too.
  const formats = FORMATS_DOCUMENT_SCHEMA;

  const platforms = {
    title: 'Platforms',
    type: 'object',
    additionalProperties: false,
    required: ['platforms', 'default', 'virtual_packages'],
    properties: {
      platforms: { type: 'array', items: { type: 'string' }, description: 'Target platforms this server solves for.' },
      default: { type: 'string', description: 'The platform used when a request names none.' },
      virtual_packages: {
        type: 'object',
        description: 'The virtual packages assumed for each platform, `name=version=build`.',
        additionalProperties: { type: 'array', items: { type: 'string' } },
      },
    },
  } as const;

  const version = {
    title: 'Version',
    type: 'object',
    additionalProperties: false,
    required: ['name', 'version'],
    properties: { name: { type: 'string' }, version: { type: 'string' } },
  } as const;

  const health = {
    title: 'Health',
    type: 'object',
    additionalProperties: false,
    required: ['status', 'uptime_seconds', 'solver'],
    properties: {
      status: { type: 'string', enum: ['ok', 'degraded'] },
      uptime_seconds: { type: 'number' },
      redis: {
        description: 'With serve --redis: whether Redis answers, and the shared queue (jobs waiting and being solved).',
        type: 'object',
        additionalProperties: false,
        required: ['status', 'detail', 'waiting', 'active', 'workers'],
        properties: {
          status: { type: 'string', enum: ['ok', 'unreachable'] },
          detail: { type: ['string', 'null'] },
          waiting: { type: ['integer', 'null'] },
          active: { type: ['integer', 'null'] },
          workers: {
            type: ['integer', 'null'],
            description: 'conda-resolve worker processes connected to the queue; with 0, solves wait for one',
          },
        },
      },
      solver: {
        type: 'object',
        additionalProperties: false,
        required: ['workers', 'running', 'queued', 'max_queue'],
        properties: {
          workers: { type: 'integer' },
          running: { type: 'integer' },
          queued: { type: 'integer' },
          max_queue: { type: 'integer' },
        },
      },
      solve_cache: {
        type: 'object',
        additionalProperties: false,
        required: ['entries', 'hits', 'misses'],
        properties: { entries: { type: 'integer' }, hits: { type: 'integer' }, misses: { type: 'integer' } },
      },
    },
  } as const;

  const packageSide = {
    type: 'object',
    additionalProperties: false,
    required: ['version', 'build', 'channel', 'url'],
    properties: { version: { type: 'string' }, build: { type: 'string' }, channel: { type: 'string' }, url: { type: 'string' } },
  } as const;

  const platformDiff = {
    title: 'PlatformDiff',
    type: 'object',
    additionalProperties: false,
    required: ['platform', 'changes'],
    properties: {
      platform: { type: 'string' },
      changes: {
        type: 'array',
        description: 'Sorted by name; empty when the platform did not change.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind'],
          properties: {
            name: { type: 'string' },
            kind: {
              type: 'string',
              enum: [...CHANGE_KINDS],
              description: '`rebuilt`: same version, another build; `moved`: same build from another channel or URL.',
            },
            manager: {
              type: 'string',
              enum: ['pip'],
              description: 'Present for a PyPI package (kept from a lock); its channel is its index or empty.',
            },
            old: { ...packageSide, description: 'Absent when the package was added.' },
            new: { ...packageSide, description: 'Absent when the package was removed.' },
          },
        },
      },
    },
  } as const;

  const lockDiff = {
    title: 'LockDiff',
    description:
      'The changes against the lock, as `conda-resolve --diff --json` prints them: `platforms` for one environment, `environments` (each with its `platforms`) for a whole pixi workspace. `output` is the text in `format` when one was asked for (the new lock, byte for byte the old one when nothing changed).',
    type: 'object',
    additionalProperties: false,
    required: ['changed'],
    properties: {
      changed: { type: 'boolean', description: 'Whether any platform changed.' },
      platforms: { type: 'array', items: platformDiff },
      environments: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['environment', 'platforms'],
          properties: { environment: { type: 'string' }, platforms: { type: 'array', items: platformDiff } },
        },
      },
      format: { type: 'string', description: 'The exporter of `output`.' },
      media_type: { type: 'string', description: 'The media type of `output`.' },
      output: { type: 'string' },
    },
  } as const;

  const lockCheck = {
    title: 'LockCheck',
    description:
      'Whether the lock satisfies the request (`conda-resolve --check --lock`): same channels and platforms, every spec met by a locked record, dependencies closed, no constraint broken, nothing newer than `exclude_newer`. Nothing is solved or fetched.',
    type: 'object',
    additionalProperties: false,
    required: ['satisfied', 'lock', 'environments', 'platforms', 'reasons'],
    properties: {
      satisfied: { type: 'boolean' },
      lock: { type: 'string', description: "The lock's file name." },
      environments: { type: 'array', items: { type: 'string' }, description: 'The environments checked.' },
      platforms: { type: 'array', items: { type: 'string' }, description: 'The platforms the request asks for.' },
      reasons: {
        type: 'array',
        description: 'Empty when satisfied. Each names its environment and platform when it is about one.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['reason'],
          properties: { environment: { type: 'string' }, platform: { type: 'string' }, reason: { type: 'string' } },
        },
      },
    },
  } as const;

  const exactFile = (side: string) => ({
    type: 'object',
    additionalProperties: false,
    required: ['content'],
    properties: {
      content: {
        type: 'string',
        description: `The text of the ${side} file: pixi.lock, conda-lock.yml, an @EXPLICIT file or conda-resolve's JSON result.`,
      },
      filename: { type: ['string', 'null'], maxLength: 255, description: 'Its basename; guessed from the text when absent.' },
    },
  });

  const diffBody = {
    title: 'DiffBody',
    description: 'Two inputs with exact packages to compare (`conda-resolve diff OLD NEW`).',
    type: 'object',
    additionalProperties: false,
    required: ['old', 'new'],
    properties: {
      old: exactFile('old'),
      new: exactFile('new'),
      environment: { type: ['string', 'null'], maxLength: 255, description: 'The pixi.lock environment to compare (default `default`).' },
      platforms: listOrString('Compare only these platforms.', limits.maxPlatforms),
    },
  } as const;

  const diffResult = {
    title: 'DiffResult',
    description: 'Per platform, the changes from `old` to `new`, as `conda-resolve diff --json` prints them.',
    type: 'object',
    additionalProperties: false,
    required: ['changed', 'platforms'],
    properties: { changed: { type: 'boolean' }, platforms: { type: 'array', items: platformDiff } },
  } as const;

  return {
    resolveBody,
    resolveQuery,
    rawFileBody,
    platformDiff,
    lockDiff,
    lockCheck,
    diffBody,
    diffResult,
    packageRecord,
    pypiRecord,
    solveResult,
    nativeResult,
    problem,
    formats,
    platforms,
    version,
    health,
  };
}

export type Schemas = ReturnType<typeof buildSchemas>;
