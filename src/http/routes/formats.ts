/**
 * `GET /formats`: the running server's exporter registry (DECISIONS.md section 6) as the formats
 * document, the same one `conda-resolve formats --json` prints. The registry is the only source: a
 * plugin's exporter appears here and is accepted by `/resolve` without any code of ours naming it.
 */
import type { FastifyInstance } from 'fastify';
import { formatsDocument } from '../../exporters/formats-document.js';
import type { AppContext } from '../app-context.js';

export async function formatsRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // The registry is fixed once the server has started, so the answer is built once.
  const body = JSON.stringify(formatsDocument(context.deps.registry));
  app.get('/formats', { schema: { response: { 200: context.schemas.formats } } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
