/**
 * `POST /audit`: the `/resolve` JSON body (without `format`) plus `report`, admitted and solved by
 * the shared runner (or the lock given as `file` read), then each solved platform checked against
 * the operator's OSV database (`--osv-db`) or OSV API (`--osv-api`); without either, a 404. The
 * answer is the audit report as JSON (`conda-resolve audit --json`'s shape plus `failed`
 * platforms), SARIF 2.1.0 (`report: "sarif"`), or the table with `Accept: text/plain`. The MCP
 * `audit` tool runs the same audit (`auditOnServer`).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { audit, renderAuditTable, renderSarif, type AuditReport } from '../../audit/index.js';
import { parseMappingFile, pypiMapping, type PypiMapping } from '../../pypi-mapping/index.js';
import { exportEnvironments } from '../../resolve.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import type { AppContext } from '../app-context.js';
import { HttpProblemError } from '../problem.js';
import { wantsText } from '../request-guards.js';
import { JSON_MEDIA_TYPE, NATIVE_MEDIA_TYPE } from '../schemas.js';
import { inputFromJson, type ResolveBody, type ResolveInput } from './resolve-input.js';

export interface AuditBody extends Omit<ResolveBody, 'format'> {
  readonly report?: 'json' | 'sarif' | null;
}

export interface ServerAudit extends AuditReport {
  /** Platforms that did not solve, and why; their packages were not audited. */
  readonly failed: readonly { readonly platform: string; readonly error: string }[];
}

export function auditBodySchema(resolveBody: { readonly properties: Record<string, unknown> }) {
  const { format: _format, ...properties } = resolveBody.properties;
  return {
    title: 'AuditBody',
    description:
      "Solve (or read the lock given as `file`), then check every package against the server's OSV database. The other fields are those of `POST /resolve` (ResolveBody), without `format`.",
    type: 'object',
    additionalProperties: false,
    properties: {
      ...properties,
      report: {
        description: '`json` (default) or `sarif` (SARIF 2.1.0, for code scanning). `Accept: text/plain` gives the table.',
        type: ['string', 'null'],
        enum: ['json', 'sarif', null],
      },
    },
  } as const;
}

export const auditRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  const schema = auditBodySchema(context.schemas.resolveBody as { properties: Record<string, unknown> });
  app.post<{ Body: AuditBody }>('/audit', { schema: { body: { content: { [JSON_MEDIA_TYPE]: { schema } } } } }, async (request, reply) => {
    const { report: kind, ...body } = request.body ?? {};
    const input = inputFromJson(body as ResolveBody, {});
    app.runner.begin(request, input);
    const report = await auditOnServer(input, context, request, reply);
    if (report === undefined) return reply;
    if (wantsText(request.headers.accept)) return reply.code(200).type('text/plain; charset=utf-8').send(renderAuditTable(report));
    if (kind === 'sarif') {
      const file = input.request.files?.[0];
      const artifact = file?.filename ? { uri: file.filename, text: file.content } : undefined;
      return reply
        .code(200)
        .type('application/sarif+json')
        .send(JSON.stringify(renderSarif(report, { name: TOOL_NAME, version: TOOL_VERSION }, artifact)));
    }
    return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(report));
  });
};

/** The report, or undefined when the client went away. */
export async function auditOnServer(
  input: ResolveInput,
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply | null,
): Promise<ServerAudit | undefined> {
  const { config } = context;
  if (!config.osvDb && !config.osvApi) {
    throw new HttpProblemError(
      'not-found',
      'This server has no OSV database to audit against (its operator starts it with --osv-db PATH or --osv-api URL)',
    );
  }
  const { runner } = request.server;
  const prepared = await runner.admit(input, request);
  const resolution = await runner.within(request, reply, (signal) => runner.resolve(prepared, request, signal));
  if (resolution === undefined) return undefined;
  const failed = runner.failures(request, [{ resolution }]).map(({ platform, error }) => ({ platform, error }));
  const environments = exportEnvironments(resolution).filter((e) => !failed.some((f) => f.platform === e.platform));
  const api = context.deps.osvDispatcher ? { api: { dispatcher: context.deps.osvDispatcher } } : {};
  const report = await audit(environments, {
    source: { db: config.osvDb, osvApi: config.osvApi },
    mapping: await serverMapping(config.pypiMapping),
    ...api,
  });
  // The database's place on the server's disk is the operator's business.
  return { ...report, database: { ...report.database, source: config.osvDb ? 'osv-db' : report.database.source }, failed };
}

/**
 * The server fetches no conda-forge mapping (it reaches only the channels its operator allows): it
 * reads the operator's file (`--pypi-mapping FILE`, once), else reports conda-forge packages as
 * not covered, saying so.
 */
const serverMappings = new Map<string, Promise<PypiMapping>>();

function serverMapping(file: string | undefined): Promise<PypiMapping> {
  if (file === undefined)
    return Promise.resolve(
      pypiMapping({ condaForge: { unavailable: 'this server has none; its operator gives one with serve --pypi-mapping FILE' } }),
    );
  let loaded = serverMappings.get(file);
  if (!loaded) {
    loaded = readFile(file, 'utf8')
      .then((text) => parseMappingFile("the server's mapping", text))
      .then(
        (table) => pypiMapping({ condaForge: { table, source: 'serve --pypi-mapping' } }),
        // The file's place and contents are the operator's business: the reason names neither.
        () => pypiMapping({ condaForge: { unavailable: "this server's mapping file cannot be read" } }),
      );
    serverMappings.set(file, loaded);
  }
  return loaded;
}
