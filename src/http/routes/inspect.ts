/**
 * `POST /tree`, `POST /why` and `POST /why-not`: the `/resolve` JSON body plus each route's own
 * fields (`inspect-schemas.ts`), the same limits and channel policy, answered as one JSON result
 * per platform (a platform that did not solve carries its `error`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext, ResolveNote } from '../app-context.js';
import { inspectOnServer, type InspectQuestion } from '../plugins/solve-runner.js';
import { buildInspectSchemas } from '../inspect-schemas.js';
import { inputFromJson, type ResolveBody } from './resolve-input.js';
import { acceptOnlyJson } from '../request-guards.js';
import { JSON_MEDIA_TYPE } from '../schemas.js';

const NATIVE_MEDIA_TYPE = 'application/json; charset=utf-8';

interface TreeBody extends ResolveBody {
  readonly depth?: number | null;
  readonly invert?: string | null;
}
interface WhyBody extends ResolveBody {
  readonly name: string;
  readonly limit?: number | null;
}
interface WhyNotBody extends ResolveBody {
  readonly spec: string;
}

export async function inspectRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  acceptOnlyJson(app);
  const schemas = buildInspectSchemas(context.schemas.resolveBody);
  const body = (schema: object) => ({ schema: { body: { content: { [JSON_MEDIA_TYPE]: { schema } } } } });

  app.post<{ Body: TreeBody }>('/tree', body(schemas.treeBody), (request, reply) => {
    const { depth, invert, ...rest } = request.body;
    return handle({ kind: 'tree', depth: depth ?? undefined, invert: invert ?? undefined }, rest, request, reply, context);
  });
  app.post<{ Body: WhyBody }>('/why', body(schemas.whyBody), (request, reply) => {
    const { name, limit, ...rest } = request.body;
    return handle({ kind: 'why', name, limit: limit ?? undefined }, rest, request, reply, context);
  });
  app.post<{ Body: WhyNotBody }>('/why-not', body(schemas.whyNotBody), (request, reply) => {
    const { spec, ...rest } = request.body;
    return handle({ kind: 'why-not', spec }, rest, request, reply, context);
  });
}

async function handle(question: InspectQuestion, body: ResolveBody, request: FastifyRequest, reply: FastifyReply, context: AppContext): Promise<FastifyReply> {
  const input = inputFromJson(body, {});
  const note: ResolveNote = { format: undefined, file: input.hasFile, specs: input.request.specs?.length ?? 0, platforms: input.request.platforms ?? [], outcome: 'refused' };
  context.notes.set(request, note);
  const answer = await inspectOnServer(question, input, context, note, request, reply);
  if (answer === null) {
    // Nobody is listening: no answer is written (and no access log line); this line stands for it.
    request.log.info({ method: request.method, route: request.routeOptions.url, outcome: 'cancelled', reason: 'client disconnected' }, 'request cancelled');
    reply.hijack();
    reply.raw.destroy();
    return reply;
  }
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(answer));
}
