/** `GET /openapi.json`, the `/docs` page and the `/ui` page (each with its script and style), all built once at start. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { TOOL_VERSION } from '../../version.js';
import type { AppContext } from '../app-context.js';
import { DOCS_CSP, DOCS_CSS, DOCS_JS, docsHtml } from '../docs-page.js';
import { buildOpenApi } from '../openapi.js';
import { UI_CSS, UI_JS, uiHtml } from '../ui-page.js';

export async function docsRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const openapi = JSON.stringify(buildOpenApi(context.schemas, context.config));
  const html = docsHtml({ version: TOOL_VERSION, defaultChannels: context.config.defaultChannels });
  const page = (reply: FastifyReply, type: string, body: string) =>
    reply.header('content-security-policy', DOCS_CSP).header('cache-control', 'no-cache').type(type).send(body);

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi));
  app.get('/docs', async (_request, reply) => page(reply, 'text/html; charset=utf-8', html));
  app.get('/docs/app.js', async (_request, reply) => page(reply, 'text/javascript; charset=utf-8', DOCS_JS));
  app.get('/docs/app.css', async (_request, reply) => page(reply, 'text/css; charset=utf-8', DOCS_CSS));
  const ui = uiHtml({ version: TOOL_VERSION, defaultChannels: context.config.defaultChannels });
  app.get('/ui', async (_request, reply) => page(reply, 'text/html; charset=utf-8', ui));
  app.get('/ui/app.js', async (_request, reply) => page(reply, 'text/javascript; charset=utf-8', UI_JS));
  app.get('/ui/app.css', async (_request, reply) => page(reply, 'text/css; charset=utf-8', UI_CSS));
  // The pages' relative links assume /docs and /ui without a trailing slash.
  app.get('/', async (_request, reply) => reply.redirect('/ui', 302));
  app.get('/ui/', async (_request, reply) => reply.redirect('/ui', 302));
  app.get('/docs/', async (_request, reply) => reply.redirect('/docs', 302));
}
