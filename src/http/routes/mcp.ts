/**
 * `POST /mcp`: the Model Context Protocol over the Streamable HTTP transport of the official SDK,
 * stateless (a server and transport per request, no session: every call carries what it needs).
 * Tools: `resolve`, `tree`, `why`, `why_not`, `audit`, `list_formats`, `search_packages`. Each tool's input
 * is the `/resolve` body (as a JSON schema the client lists) plus its own fields, and passes the
 * same admission as `/resolve`: limits, validation, channel policy, the time limit. A refused or
 * failed call is a tool result with `isError` and the problem's safe text, never a stack.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CHANNEL_PRIORITIES } from '../../../solver/index.js';
import { MAX_SPEC_LENGTH } from '../../../vocabulary/version-spec.js';
import { formatsDocument } from '../../exporters/formats-document.js';
import { exportEnvironments, toNative } from '../../resolve.js';
import { searchPackages } from '../../search-packages.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import { renderAuditTable } from '../../audit/index.js';
import type { AppContext } from '../app-context.js';
import { problemForError } from '../error-handler.js';
import { MAX_WHY_PATHS } from '../inspect-schemas.js';
import { outcomeOfStatus, type SolveLog } from '../plugins/request-log.js';
import { boundedError } from '../plugins/solve-runner.js';
import { HttpProblemError } from '../problem.js';
import { validateMcpOrigin } from '../request-guards.js';
import { auditOnServer } from './audit.js';
import { inspectOnServer, type InspectQuestion } from './inspect.js';
import { inputFromJson, type ResolveBody } from './resolve-input.js';

const MAX_NAME_LENGTH = 255;
const MAX_SEARCH_RESULTS = 200;

export const mcpRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  validateMcpOrigin(app, context.config);
  app.post('/mcp', async (request, reply) => {
    // One message per request, so the rate limit counts every tool call and one request cannot
    // queue a hundred solves. JSON-RPC batches left MCP in its 2025-06-18 revision; the SDK's
    // clients send one message per POST.
    if (Array.isArray(request.body) && request.body.length !== 1) {
      throw new HttpProblemError(
        'invalid-request',
        `Cannot take a JSON-RPC batch of ${request.body.length} messages: send one JSON-RPC message per request`,
        { field: 'body' },
      );
    }
    const server = mcpServer(context, request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The transport writes the answer itself (JSON-RPC, or its own error for a bad message).
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  });
};

/** The request fields every solving tool takes, bounded as `/resolve` bounds them. */
function requestShape(context: AppContext) {
  const { maxSpecs, maxChannels, maxPlatforms } = context.config;
  return {
    specs: z
      .array(z.string().max(MAX_SPEC_LENGTH))
      .max(maxSpecs)
      .optional()
      .describe('conda match specs, e.g. "python=3.12", "numpy>=1.26".'),
    file: z
      .string()
      .optional()
      .describe('Full text of an environment file (environment.yml, a spec list, @EXPLICIT); its specs join `specs`.'),
    filename: z.string().max(MAX_NAME_LENGTH).optional().describe('Name of that file; it chooses the parser.'),
    channels: z
      .array(z.string())
      .max(maxChannels)
      .optional()
      .describe("Channels in priority order (names or URLs); default: the server's."),
    platforms: z
      .array(z.string())
      .max(maxPlatforms)
      .optional()
      .describe("Target platforms such as linux-64, osx-arm64; default: the server's."),
    channel_priority: z.enum(CHANNEL_PRIORITIES).optional().describe('conda channel priority (default strict).'),
    virtual_packages: z.array(z.string()).max(32).optional().describe('Virtual packages NAME=VERSION[=BUILD], e.g. __glibc=2.17.'),
    exclude_newer: z.string().optional().describe('Ignore packages published after this ISO 8601 date.'),
    pypi: z
      .array(z.string().max(MAX_SPEC_LENGTH))
      .max(maxSpecs)
      .optional()
      .describe('PEP 508 requirements installed from PyPI (wheels), solved with the conda specs in one problem.'),
    index_url: z
      .string()
      .max(2048)
      .optional()
      .describe('PyPI index; default and, unless the server allows more, the only one: https://pypi.org/simple.'),
    extra_index_urls: z.array(z.string().max(2048)).max(8).optional().describe('More PyPI indexes (each must be allowed by the server).'),
    index_strategy: z
      .enum(['first-index', 'unsafe-first-match', 'unsafe-best-match'])
      .optional()
      .describe('How several PyPI indexes combine (default first-index).'),
    prerelease: z
      .enum(['if-necessary-or-explicit', 'allow', 'disallow'])
      .optional()
      .describe('PyPI pre-releases (default PEP 440: if named or nothing else fits).'),
    resolution: z
      .enum(['highest', 'lowest', 'lowest-direct'])
      .optional()
      .describe('Preferred versions, conda and PyPI alike (default highest).'),
  };
}

type RequestArgs = z.infer<z.ZodObject<ReturnType<typeof requestShape>>>;

function mcpServer(context: AppContext, request: FastifyRequest): McpServer {
  const server = new McpServer({ name: TOOL_NAME, version: TOOL_VERSION });
  const shape = requestShape(context);
  const inspect = (question: InspectQuestion, args: RequestArgs) =>
    tool(context, request, async () => {
      const items = (await inspectOnServer(question, inputFromJson(args as ResolveBody, {}), request, null)) ?? [];
      const text = items
        .map((item) => (items.length > 1 ? `${item.platform}:\n` : '') + (('error' in item ? item.error : null) ?? item.text))
        .join('\n\n');
      return [text, JSON.stringify(items)];
    });

  server.registerTool(
    'resolve',
    {
      description:
        "Solve a conda environment per platform. Without `format`: JSON, one result per platform (packages, or error and explanation). With `format`: that exporter's text (see list_formats).",
      inputSchema: {
        ...shape,
        format: z
          .string()
          .max(64)
          .optional()
          .describe('Exporter name or alias, e.g. explicit, environment-yaml, conda-lock-v1, pixi-lock.'),
      },
    },
    (args) =>
      tool(context, request, async (log) => {
        const exporter = args.format === undefined ? undefined : context.deps.registry.get(args.format);
        log.format = exporter?.name;
        const { runner } = request.server;
        const prepared = await runner.admit(inputFromJson(args as ResolveBody, {}), request);
        const resolution = (await runner.within(request, null, (signal) => runner.resolve(prepared, request, signal)))!;
        const failed = resolution.platforms.filter((p) => p.error !== null);
        log.outcome = failed.length > 0 ? 'partial' : 'solved';
        if (!exporter)
          return [JSON.stringify(toNative(resolution).map((r) => ({ ...r, error: r.error === null ? null : boundedError(r.error) })))];
        if (failed.length > 0)
          throw new HttpProblemError(
            'solve-failed',
            `Cannot export ${exporter.name}: the solve failed for ${failed.map((p) => p.platform).join(', ')}: ${boundedError(failed[0]!.error!)}`,
          );
        return [
          context.deps.registry.render(exporter.name, exportEnvironments(resolution), {
            toolName: TOOL_NAME,
            toolVersion: TOOL_VERSION,
            now: context.clock.now(),
          }),
        ];
      }),
  );

  server.registerTool(
    'tree',
    {
      description:
        'Solve, then the dependency tree of each platform from the requested specs (each package expanded once; "(*)" marks a repeat). `invert` shows every path from that package up to the requested specs.',
      inputSchema: {
        ...shape,
        depth: z.number().int().min(0).max(1000).optional().describe('Levels below the requested packages (0: only them).'),
        invert: z.string().min(1).max(MAX_NAME_LENGTH).optional().describe('A package name: show who needs it, up to the requested specs.'),
      },
    },
    ({ depth, invert, ...args }) => inspect({ kind: 'tree', depth, invert }, args),
  );

  server.registerTool(
    'why',
    {
      description:
        'Solve, then every path from a requested spec to package `name`, shortest first, with the depends entry that pulled each step.',
      inputSchema: {
        ...shape,
        name: z.string().min(1).max(MAX_NAME_LENGTH).describe('The package to explain.'),
        limit: z.number().int().min(1).max(MAX_WHY_PATHS).optional().describe('Most paths returned (default 50).'),
      },
    },
    ({ name, limit, ...args }) => inspect({ kind: 'why', name, limit }, args),
  );

  server.registerTool(
    'why_not',
    {
      description:
        'Why the solution does not have `spec` (e.g. "numpy>=2"): solves with it added. No solution: the conflict. A solution: what would change and which preference chose the current one.',
      inputSchema: {
        ...shape,
        spec: z
          .string()
          .min(1)
          .max(MAX_SPEC_LENGTH)
          .describe('The match spec to try, or "pypi:" and a PEP 508 requirement (e.g. "pypi:flask<3").'),
      },
    },
    ({ spec, ...args }) => inspect({ kind: 'why-not', spec }, args),
  );

  if (context.config.osvDb || context.config.osvApi) {
    server.registerTool(
      'audit',
      {
        description:
          'Solve (or read the lock given as `file`), then check every package against known vulnerabilities (OSV): PyPI packages, and conda packages under their PyPI names. Packages nothing can check are listed as not covered.',
        inputSchema: shape,
      },
      (args) =>
        tool(context, request, async () => {
          const report = (await auditOnServer(inputFromJson(args as ResolveBody, {}), context, request, null))!;
          return [renderAuditTable(report), JSON.stringify(report)];
        }),
    );
  }

  server.registerTool(
    'list_formats',
    { description: 'The export formats this server writes: names, aliases, file names, media types.', inputSchema: {} },
    () => tool(context, request, async () => [JSON.stringify(formatsDocument(context.deps.registry))]),
  );

  server.registerTool(
    'search_packages',
    {
      description:
        'Package names and versions available in the channels for one platform (and noarch), as `conda search` takes its query: a match spec whose name may have globs ("numpy", "numpy>=2", "*zlib*").',
      inputSchema: {
        query: z.string().min(1).max(MAX_SPEC_LENGTH).describe('A match spec; globs allowed in the name.'),
        channels: shape.channels,
        platform: z.string().max(64).optional().describe("One target platform; default: the server's."),
        limit: z.number().int().min(1).max(MAX_SEARCH_RESULTS).optional().describe('Most package names returned (default 50).'),
      },
    },
    ({ query, channels, platform, limit }) =>
      tool(context, request, async () => {
        // The query is admitted as a request's one spec: the same parsing, limits and channel policy.
        const { runner } = request.server;
        const prepared = await runner.admit(
          inputFromJson({ specs: [query], channels, platforms: platform === undefined ? undefined : [platform] }, {}),
          request,
        );
        const found = (await runner.within(request, null, (signal) =>
          searchPackages(context.deps.store, prepared.channels, prepared.platforms[0]!, prepared.specs[0]!, { limit, signal }),
        ))!;
        const { packages, truncated } = found;
        const text =
          packages.length === 0
            ? `Nothing matches ${query} on ${prepared.platforms[0]}`
            : packages.map((p) => `${p.name}: ${p.versions.join(', ')}`).join('\n') +
              (truncated ? '\n(more names match; narrow the query or raise limit)' : '');
        return [text, JSON.stringify(found)];
      }),
  );
  return server;
}

/** Runs one tool call: its texts as the result, or the problem's safe text with `isError`. */
async function tool(context: AppContext, request: FastifyRequest, work: (log: SolveLog) => Promise<string[]>): Promise<CallToolResult> {
  const log = request.server.runner.begin(request, undefined);
  try {
    return { content: (await work(log)).map((text) => ({ type: 'text' as const, text })) };
  } catch (error) {
    const { problem, internal } = problemForError(error, { bodyLimit: context.config.bodyLimit });
    if (internal) request.log.error({ err: error }, 'MCP tool failed unexpectedly');
    // The HTTP answer is a 200 whatever the tool's fate: the log says how the call ended.
    log.outcome = outcomeOfStatus(problem.status);
    const field = problem.field ? ` (field: ${problem.field})` : '';
    return { isError: true, content: [{ type: 'text', text: `${problem.detail}${field}` }] };
  }
}
