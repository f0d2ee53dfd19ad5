/** `GET /openapi.json` and the `/docs` page (with its script and style), all built once at start. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { TOOL_VERSION } from '../../version.js';
import type { AppContext } from '../app-context.js';
import { DOCS_CSP, DOCS_CSS, DOCS_JS, docsHtml } from '../docs-page.js';
import { buildOpenApi } from '../openapi.js';

export async function docsRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const openapi = JSON.stringify(buildOpenApi(context.schemas, context.config));
  const html = docsHtml({ version: TOOL_VERSION, defaultChannels: context.config.defaultChannels });
  const page = (reply: FastifyReply, type: string, body: string) =>
    reply.header('content-security-policy', DOCS_CSP).header('cache-control', 'no-cache').type(type).send(body);

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi));
  app.get('/docs', async (_request, reply) => page(reply, 'text/html; charset=utf-8', html));
  app.get('/docs/app.js', async (_request, reply) => page(reply, 'text/javascript; charset=utf-8', DOCS_JS));
  app.get('/docs/app.css', async (_request, reply) => page(reply, 'text/css; charset=utf-8', DOCS_CSS));
  // The page's relative links assume /docs without a trailing slash.
  app.get('/', async (_request, reply) => reply.redirect('/docs', 302));
  app.get('/docs/', async (_request, reply) => reply.redirect('/docs', 302));
}
