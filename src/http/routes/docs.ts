/** `GET /openapi.json` and the `/docs` page (a form that sends one resolve and shows it as curl). */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../app-context.js';
import { buildOpenApi } from '../openapi.js';
import { servePages } from '../pages.js';
import { NATIVE_MEDIA_TYPE } from '../schemas.js';

export const docsRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  const openapi = JSON.stringify(buildOpenApi(context.schemas, context.config));
  app.get('/openapi.json', async (_request, reply) => reply.type(NATIVE_MEDIA_TYPE).send(openapi));
  servePages(
    app,
    { '/docs': 'docs.html', '/docs/app.js': 'docs.js', '/docs/common.js': 'common.js', '/docs/app.css': 'style.css' },
    context.config.defaultChannels,
  );
};
