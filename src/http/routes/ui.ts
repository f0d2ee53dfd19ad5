/** The `/ui` page, where a person solves and explores an environment (`static/ui.js`); `/` leads there. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../app-context.js';
import { servePages } from '../pages.js';

export const uiRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  servePages(
    app,
    { '/ui': 'ui.html', '/ui/app.js': 'ui.js', '/ui/common.js': 'common.js', '/ui/app.css': 'style.css' },
    context.config.defaultChannels,
  );
  app.get('/', async (_request, reply) => reply.redirect('/ui', 302));
};
