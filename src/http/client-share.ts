/**
 * One client's share of the solve queue: with a rate limit on (`--rate-limit`), an address may have
 * at most a quarter of the queue (`--max-queue`, at least 2) of solving requests being answered at
 * once; more is a 429 until one is done. The rate limit counts requests per minute, so without this
 * one client could fill the queue in a second (the MCP batch of issue 32 did it in one request)
 * and every other client got 503s.
 */
import type { FastifyInstance } from 'fastify';
import type { ServerConfig } from './config.js';
import { HttpProblemError } from './problem.js';

/** The routes whose requests put solves on the queue. */
const SOLVING_ROUTES = new Set(['/resolve', '/tree', '/why', '/why-not', '/mcp']);

export function clientShareLimit(config: Pick<ServerConfig, 'rateLimit' | 'maxQueue'>): number | null {
  return config.rateLimit ? Math.max(2, Math.ceil(config.maxQueue / 4)) : null;
}

export function limitClientShare(app: FastifyInstance, config: Pick<ServerConfig, 'rateLimit' | 'maxQueue'>): void {
  const max = clientShareLimit(config);
  if (max === null) return;
  const inFlight = new Map<string, number>();
  app.addHook('onRequest', async (request, reply) => {
    if (!SOLVING_ROUTES.has(request.routeOptions.url ?? '')) return;
    const client = request.ip;
    const count = inFlight.get(client) ?? 0;
    if (count >= max) {
      throw new HttpProblemError(
        'rate-limited',
        `Cannot take the request: ${max} requests from this address are being answered; retry when one is done`,
        { retry_after: 1 },
      );
    }
    inFlight.set(client, count + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (inFlight.get(client) ?? 1) - 1;
      if (left <= 0) inFlight.delete(client);
      else inFlight.set(client, left);
    };
    // 'finish' when the answer was written, 'close' when the connection went first.
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
  });
}
