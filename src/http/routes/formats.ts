/**
 * `GET /formats`: the running server's exporter registry (DECISIONS.md section 6), the same data as
 * `conda-resolve formats --json`. The registry is the only source: a plugin's exporter appears here
 * and is accepted by `/resolve` without any code of ours naming it.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext, ExporterRegistry } from '../app-context.js';

export interface FormatsDocument {
  formats: string[];
  exporters: {
    name: string;
    aliases: string[];
    description: string;
    category: string;
    media_type: string;
    multiplatform: boolean;
    default_filenames: string[];
  }[];
}

export function formatsDocument(registry: ExporterRegistry): FormatsDocument {
  return {
    formats: [...registry.names()],
    exporters: registry.list().map((exporter) => ({
      name: exporter.name,
      aliases: [...exporter.aliases],
      description: exporter.description,
      category: exporter.category,
      media_type: exporter.mediaType,
      multiplatform: typeof exporter.exportMultiplatform === 'function',
      default_filenames: [...exporter.defaultFilenames],
    })),
  };
}

export async function formatsRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  // The registry is fixed once the server has started, so the answer is built once.
  const body = JSON.stringify(formatsDocument(context.deps.registry));
  app.get('/formats', { schema: { response: { 200: context.schemas.formats } } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
