/**
 * `GET /formats`, `/platforms`, `/version`, `/health`, `/metrics`: what the server writes and solves
 * for, and how it is doing. Each answer but health and metrics is fixed once the server has
 * started, so it is built once. `/formats` is the running exporter registry (a plugin's exporter
 * appears here and is accepted by `/resolve` without any code of ours naming it), the same document
 * `conda-resolve formats --json` prints.
 */
import type { FastifyPluginAsync } from 'fastify';
import { KNOWN_SUBDIRS } from '../../../vocabulary/platform.js';
import { virtualPackages } from '../../../vocabulary/virtual-packages.js';
import { formatsDocument } from '../../exporters/formats-document.js';
import { TOOL_NAME, TOOL_VERSION } from '../../version.js';
import type { AppContext } from '../app-context.js';
import { METRICS_MEDIA_TYPE } from '../metrics.js';
import { NATIVE_MEDIA_TYPE } from '../schemas.js';

export const metaRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  const { schemas, deps } = context;
  const targets = KNOWN_SUBDIRS.filter((subdir) => subdir !== 'noarch');
  // Virtual packages depend only on the server's environment (CONDA_OVERRIDE_*), fixed at start.
  const platformsBody = JSON.stringify({
    platforms: targets,
    default: context.hostPlatform,
    virtual_packages: Object.fromEntries(
      targets.map((platform) => [platform, virtualPackages(platform, deps.env, []).map((r) => `${r.name}=${r.version}=${r.build}`)]),
    ),
  });
  const versionBody = JSON.stringify({ name: TOOL_NAME, version: TOOL_VERSION });
  const formatsBody = JSON.stringify(formatsDocument(deps.registry));

  app.get('/formats', { schema: { response: { 200: schemas.formats } } }, async (_request, reply) =>
    reply.type(NATIVE_MEDIA_TYPE).send(formatsBody),
  );
  app.get('/platforms', { schema: { response: { 200: schemas.platforms } } }, async (_request, reply) =>
    reply.type(NATIVE_MEDIA_TYPE).send(platformsBody),
  );
  app.get('/version', { schema: { response: { 200: schemas.version } } }, async (_request, reply) =>
    reply.type(NATIVE_MEDIA_TYPE).send(versionBody),
  );
  // Prometheus scrapes are not rate limited either.
  app.get('/metrics', { config: { rateLimit: false } }, async (_request, reply) =>
    reply.type(METRICS_MEDIA_TYPE).send(await context.metrics.text()),
  );
  // Health is never rate limited: load balancers poll it.
  // With --redis, Redis away makes it a 503 "degraded": resolves cannot be served meanwhile.
  app.get(
    '/health',
    { schema: { response: { 200: schemas.health, 503: schemas.health } }, config: { rateLimit: false } },
    async (_request, reply) => {
      const redis = deps.cluster ? await deps.cluster.status() : undefined;
      const { redis: redisStatus, ...shared } = redis ?? { redis: undefined };
      if (redisStatus === 'unreachable') void reply.code(503);
      return {
        status: redisStatus === 'unreachable' ? ('degraded' as const) : ('ok' as const),
        uptime_seconds: Math.round((performance.now() - context.startedAt) / 100) / 10,
        ...(redisStatus ? { redis: { status: redisStatus, ...shared } } : {}),
        solver: {
          workers: deps.pool?.size ?? 0,
          running: deps.pool?.running ?? 0,
          queued: deps.pool?.queued ?? 0,
          max_queue: deps.pool?.maxQueue ?? 0,
        },
        ...(deps.solveCache ? { solve_cache: deps.solveCache.stats() } : {}),
      };
    },
  );
};
