/**
 * `POST /audit`: the `/resolve` JSON body (without `format`) plus `report`, answered with the
 * audit report as JSON (`conda-resolve audit --json`'s shape, plus `failed` platforms), as SARIF
 * 2.1.0 (`report: "sarif"`), or as the table with `Accept: text/plain`. The same limits and channel
 * policy as `/resolve`; a 404 when the server has no OSV database.
 */
import type { FastifyInstance } from 'fastify';
import { renderAuditTable, renderSarif } from '../../audit/index.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import type { AppContext, ResolveNote } from '../app-context.js';
import { auditOnServer } from '../audit-run.js';
import { wantsText } from './resolve-lock.js';
import { inputFromJson, type ResolveBody } from './resolve-input.js';
import { JSON_MEDIA_TYPE } from '../schemas.js';

export interface AuditBody extends Omit<ResolveBody, 'format'> {
  readonly report?: 'json' | 'sarif' | null;
}

export function auditBodySchema(resolveBody: { readonly properties: Record<string, unknown> }) {
  const { format: _format, ...properties } = resolveBody.properties;
  return {
    title: 'AuditBody',
    description: 'Solve (or read the lock given as `file`), then check every package against the server\'s OSV database. The other fields are those of `POST /resolve` (ResolveBody), without `format`.',
    type: 'object',
    additionalProperties: false,
    properties: {
      ...properties,
      report: { description: '`json` (default) or `sarif` (SARIF 2.1.0, for code scanning). `Accept: text/plain` gives the table.', type: ['string', 'null'], enum: ['json', 'sarif', null] },
    },
  } as const;
}

export async function auditRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const schema = auditBodySchema(context.schemas.resolveBody as { properties: Record<string, unknown> });
  app.post<{ Body: AuditBody }>('/audit', { schema: { body: { content: { [JSON_MEDIA_TYPE]: { schema } } } } }, async (request, reply) => {
    const { report: kind, ...body } = request.body ?? {};
    const input = inputFromJson(body as ResolveBody, {});
    const note: ResolveNote = { format: undefined, file: input.hasFile, specs: input.request.specs?.length ?? 0, platforms: input.request.platforms ?? [], outcome: 'refused' };
    context.notes.set(request, note);
    const report = await auditOnServer(input, context, note, request, reply);
    if (report === null) {
      reply.hijack();
      reply.raw.destroy();
      return reply;
    }
    if (wantsText(request.headers.accept)) return reply.code(200).type('text/plain; charset=utf-8').send(renderAuditTable(report));
    if (kind === 'sarif') {
      const artifact = input.request.files?.[0]?.filename ? { uri: input.request.files[0].filename, text: input.request.files[0].content } : undefined;
      return reply.code(200).type('application/sarif+json').send(JSON.stringify(renderSarif(report, { name: TOOL_NAME, version: TOOL_VERSION }, artifact)));
    }
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(report));
  });
}
