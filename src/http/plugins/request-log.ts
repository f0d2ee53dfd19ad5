/**
 * One access log line per request, and the per-request account behind it (`request.solveLog`):
 * counts and names of what a solving route was sent and how it ended, never spec or file text.
 * Fastify's own request logging is off (it would log query strings, which hold specs).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics.js';

export type SolveOutcome = 'refused' | 'solved' | 'partial' | 'failed' | 'timeout' | 'overloaded' | 'cancelled' | 'checked';

/** What the access log line of a solving request says. */
export interface SolveLog {
  format: string | undefined;
  file: boolean;
  specs: number;
  platforms: readonly string[];
  channels?: readonly string[];
  failed?: readonly string[];
  /** How a request that was answered with success (or abandoned) ended; an error answer's comes from its status. */
  outcome?: SolveOutcome;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Null on routes that solve nothing. */
    solveLog: SolveLog | null;
  }
}

/** How a request that did not succeed ended, from its status: the problem kinds map onto these. */
export function outcomeOfStatus(status: number): SolveOutcome {
  if (status === 504) return 'timeout';
  if (status === 503) return 'overloaded';
  return status >= 500 ? 'failed' : 'refused';
}

export const requestLog = fp<{ metrics: Metrics }>(
  async (app: FastifyInstance, { metrics }) => {
    app.decorateRequest('solveLog', null);
    app.addHook('onResponse', async (request, reply) => {
      metrics.request(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode);
      accessLog(request, reply);
    });
  },
  { name: 'request-log' },
);

function accessLog(request: FastifyRequest, reply: FastifyReply): void {
  const log = request.solveLog;
  request.log.info(
    {
      method: request.method,
      route: request.routeOptions.url ?? '(not found)',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(log
        ? {
            outcome: reply.statusCode >= 400 ? outcomeOfStatus(reply.statusCode) : (log.outcome ?? 'solved'),
            format: log.format,
            specs: log.specs,
            file: log.file,
            platforms: log.platforms,
            channels: log.channels,
            failed: log.failed?.length ? log.failed : undefined,
          }
        : {}),
    },
    'request completed',
  );
}
