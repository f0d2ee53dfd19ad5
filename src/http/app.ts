/**
 * `buildApp(config, deps)`: the HTTP service as a Fastify instance, without listening (that is
 * `server.ts`), with everything it talks to injected: the repodata store, the solver (a worker
 * pool), the exporter registry, the channel policy, the logger and the clock.
 *
 * Security notes: bodies are capped (413), only JSON and environment-file media types are read
 * (415), requests are validated against `schemas.ts` (400 naming the field), channels pass the
 * channel policy before anything is fetched, every error leaves through the problem-details
 * handler (no stack traces, no local paths, no credentials), and the access log records counts and
 * names, never the text of specs or files.
 */
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import { maxHeaderSize, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { hostSubdir } from '../../vocabulary/platform.js';
import type { AppContext, AppDeps, Clock } from './app-context.js';
import type { ServerConfig } from './config.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './error-handler.js';
import { HttpProblemError, makeProblem, PROBLEM_MEDIA_TYPE, sendProblem } from './problem.js';
import { limitClientShare } from './client-share.js';
import { refuseCrossSiteSimplePosts } from './request-guards.js';
import { requestLog } from './plugins/request-log.js';
import { solveRunner } from './plugins/solve-runner.js';
import { auditRoutes } from './routes/audit.js';
import { diffRoutes } from './routes/diff.js';
import { docsRoutes } from './routes/docs.js';
import { inspectRoutes } from './routes/inspect.js';
import { mcpRoutes } from './routes/mcp.js';
import { metaRoutes } from './routes/meta.js';
import { resolveRoutes } from './routes/resolve.js';
import { uiRoutes } from './routes/ui.js';
import { buildSchemas } from './schemas.js';
import { SHARED_COMPILERS } from './schema-compilers.js';
import { Metrics } from './metrics.js';

export type { AppDeps, Clock, Lifecycle, PoolStatus } from './app-context.js';

const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** Types worth compressing: JSON, YAML and text (exporter output and native results). */
const COMPRESSIBLE = /^text\/(?!event-stream)|(?:\+|\/)(?:json|yaml|x-yaml)(?:;|$)/;

export function buildApp(config: ServerConfig, deps: AppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    // The access log below replaces fastify's, which would log query strings (spec values).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // Shutdown answers are problem details from the hook below.
    return503OnClosing: false,
    // Time to receive a whole request; the resolve's own time limit starts after that.
    requestTimeout: 30_000,
    // Requests Node cannot parse, and URLs fastify cannot decode, are answered as problems too.
    clientErrorHandler: clientErrorHandler({ maxHeaderSize }),
    frameworkErrors: frameworkErrorHandler({ bodyLimit: config.bodyLimit }),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    schemaController: { compilersFactory: SHARED_COMPILERS },
  });

  const context: AppContext = {
    config,
    deps,
    schemas: buildSchemas(config),
    clock: deps.clock ?? SYSTEM_CLOCK,
    hostPlatform: deps.hostPlatform ?? hostSubdir(process.platform, process.arch),
    startedAt: performance.now(),
    metrics: deps.metrics ?? new Metrics(),
  };
  watchForMetrics(context);

  const routes = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    routes.set(route.url, [...new Set([...(routes.get(route.url) ?? []), ...methods])]);
  });
  installErrorHandling(app, { bodyLimit: config.bodyLimit, routes: () => routes });
  handleExpectations(app, config.bodyLimit);

  app.addHook('onRequest', async (_request, reply) => {
    if (deps.lifecycle?.closing) {
      reply.header('connection', 'close');
      return sendProblem(reply, makeProblem('shutting-down', 'Cannot take the request: the server is shutting down', { retry_after: 1 }));
    }
    return undefined;
  });
  refuseCrossSiteSimplePosts(app, config);
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (deps.lifecycle?.closing) reply.header('connection', 'close');
    return payload;
  });
  void app.register(requestLog, { metrics: context.metrics });

  void app.register(compress, { global: true, globalDecompression: false, threshold: 1024, customTypes: COMPRESSIBLE });
  if (config.corsOrigins.length > 0) {
    void app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST'],
      exposedHeaders: ['retry-after', 'content-type'],
      maxAge: 600,
    });
  }
  limitClientShare(app, config);
  if (config.rateLimit) {
    const { max, windowMs } = config.rateLimit;
    void app.register(rateLimit, {
      global: true,
      max,
      timeWindow: windowMs,
      // With --redis the count is shared by every replica; while Redis is away requests pass.
      ...(deps.cluster ? { redis: deps.cluster.redis, nameSpace: 'conda-resolve:rate:', skipOnError: true } : {}),
      errorResponseBuilder: (_request, { after, ttl }) =>
        new HttpProblemError(
          'rate-limited',
          `Cannot take the request: more than ${max} requests per minute from this address; retry in ${after}`,
          {
            retry_after: Math.max(1, Math.ceil(ttl / 1000)),
          },
        ),
    });
  }

  // Each route family is an encapsulated plugin; the solving ones share `app.runner`.
  void app.register(solveRunner, { context });
  for (const routes of [resolveRoutes, inspectRoutes, auditRoutes, mcpRoutes, diffRoutes, metaRoutes, docsRoutes, uiRoutes]) {
    void app.register(routes, { context });
  }
  return app;
}

/**
 * `Expect` headers. Node answers `100 Continue` before anything looks at the request, so a client
 * announcing a body over the limit was invited to send it, then cut off by the 413 (or reset). Here
 * the announced size is checked first: over the limit there is no `100 Continue`, the request goes
 * on to its 413 (the body parser refuses it from `Content-Length` alone) and the connection closes
 * after it. Any other expectation gets a 417 problem instead of Node's bare one.
 */
function handleExpectations(app: FastifyInstance, bodyLimit: number): void {
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > bodyLimit) response.setHeader('connection', 'close');
    else response.writeContinue();
    // As Node does without a 'checkContinue' listener (this also lets shutdown count the request).
    app.server.emit('request', request, response);
  });
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const problem = makeProblem(
      'expectation-failed',
      `Cannot meet the request's expectation: this server supports only "Expect: 100-continue"`,
    );
    const body = JSON.stringify(problem);
    response.writeHead(problem.status, {
      'content-type': PROBLEM_MEDIA_TYPE,
      'content-length': Buffer.byteLength(body),
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    response.end(body);
  });
}

/** Points the metrics at the queue and the memory cache this app has. */
function watchForMetrics({ deps, metrics }: AppContext): void {
  if (deps.solveCache) metrics.watchMemoryCache(() => deps.solveCache!.stats());
  const { cluster, pool } = deps;
  if (cluster) {
    metrics.watchQueue(async () => {
      const status = await cluster.status();
      return status.waiting === null ? null : { queue: 'redis', waiting: status.waiting, active: status.active ?? 0 };
    });
  } else if (pool) {
    metrics.watchQueue(async () => ({ queue: 'local', waiting: pool.queued, active: pool.running }));
  }
}
