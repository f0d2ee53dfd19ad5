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
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { hostSubdir } from '../../vocabulary/platform.js';
import type { AppContext, AppDeps, Clock, ResolveNote } from './app-context.js';
import type { ServerConfig } from './config.js';
import { installErrorHandling } from './error-handler.js';
import { HttpProblemError, makeProblem, sendProblem } from './problem.js';
import { docsRoutes } from './routes/docs.js';
import { formatsRoutes } from './routes/formats.js';
import { metaRoutes } from './routes/meta.js';
import { resolveRoutes } from './routes/resolve.js';
import { buildSchemas } from './schemas.js';

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
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });

  const context: AppContext = {
    config,
    deps,
    schemas: buildSchemas(config),
    clock: deps.clock ?? SYSTEM_CLOCK,
    hostPlatform: deps.hostPlatform ?? hostSubdir(process.platform, process.arch),
    startedAt: performance.now(),
    notes: new WeakMap<FastifyRequest, ResolveNote>(),
  };

  const routes = new Map<string, string[]>();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD');
    routes.set(route.url, [...new Set([...(routes.get(route.url) ?? []), ...methods])]);
  });
  installErrorHandling(app, { bodyLimit: config.bodyLimit, routes: () => routes });

  app.addHook('onRequest', async (_request, reply) => {
    if (deps.lifecycle?.closing) {
      reply.header('connection', 'close');
      return sendProblem(reply, makeProblem('shutting-down', 'Cannot take the request: the server is shutting down', { retry_after: 1 }));
    }
    return undefined;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    if (deps.lifecycle?.closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => accessLog(request, reply, context));

  void app.register(compress, { global: true, globalDecompression: false, threshold: 1024, customTypes: COMPRESSIBLE });
  if (config.corsOrigins.length > 0) {
    void app.register(cors, {
      origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins],
      methods: ['GET', 'POST'],
      exposedHeaders: ['retry-after', 'content-type'],
      maxAge: 600,
    });
  }
  if (config.rateLimit) {
    const { max, windowMs } = config.rateLimit;
    void app.register(rateLimit, {
      global: true,
      max,
      timeWindow: windowMs,
      errorResponseBuilder: (_request, { after, ttl }) =>
        new HttpProblemError('rate-limited', `Cannot take the request: more than ${max} requests per minute from this address; retry in ${after}`, {
          retry_after: Math.max(1, Math.ceil(ttl / 1000)),
        }),
    });
  }

  void app.register(async (scope) => resolveRoutes(scope, context));
  void app.register(async (scope) => formatsRoutes(scope, context));
  void app.register(async (scope) => metaRoutes(scope, context));
  void app.register(async (scope) => docsRoutes(scope, context));
  return app;
}

/** One line per request: timing and outcome, with counts and names only (no spec or file text). */
function accessLog(request: FastifyRequest, reply: FastifyReply, context: AppContext): void {
  const note = context.notes.get(request);
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? '(not found)',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(note
        ? {
            outcome: note.outcome,
            format: note.format,
            specs: note.specs,
            file: note.file,
            platforms: note.platforms,
            channels: note.channels,
            failed: note.failed?.length ? note.failed : undefined,
          }
        : {}),
    },
    'request completed',
  );
}
