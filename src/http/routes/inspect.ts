/**
 * `POST /tree`, `POST /why` and `POST /why-not`: the `/resolve` JSON body plus each route's own
 * fields (`inspect-schemas.ts`), admitted and solved by the shared runner, answered from the solved
 * records (src/inspect/) as one JSON result per platform (a platform that did not solve carries its
 * `error`). The MCP tools `tree`, `why` and `why_not` ask the same questions (`inspectOnServer`).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import {
  parseExtraSpec,
  treeOf,
  whyNot,
  whyOf,
  withAddedSpec,
  type PlatformTree,
  type PlatformWhy,
  type TriedSpec,
  type WhyNotAnswer,
} from '../../inspect/index.js';
import type { Resolution } from '../../resolve.js';
import type { AppContext } from '../app-context.js';
import { inputProblem, inputProblemExtras } from '../error-handler.js';
import { buildInspectSchemas } from '../inspect-schemas.js';
import { boundedError } from '../plugins/solve-runner.js';
import { HttpProblemError } from '../problem.js';
import { acceptOnlyJson } from '../request-guards.js';
import { JSON_MEDIA_TYPE, NATIVE_MEDIA_TYPE } from '../schemas.js';
import { inputFromJson, type ResolveBody, type ResolveInput } from './resolve-input.js';

export type InspectQuestion =
  | { readonly kind: 'tree'; readonly depth?: number; readonly invert?: string }
  | { readonly kind: 'why'; readonly name: string; readonly limit?: number }
  | { readonly kind: 'why-not'; readonly spec: string };

export type InspectAnswer = readonly PlatformTree[] | readonly PlatformWhy[] | readonly WhyNotAnswer[];

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

export const inspectRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  acceptOnlyJson(app);
  const schemas = buildInspectSchemas(context.schemas.resolveBody);
  const body = (schema: object) => ({ schema: { body: { content: { [JSON_MEDIA_TYPE]: { schema } } } } });

  app.post<{ Body: TreeBody }>('/tree', body(schemas.treeBody), (request, reply) => {
    const { depth, invert, ...rest } = request.body;
    return answer({ kind: 'tree', depth: depth ?? undefined, invert: invert ?? undefined }, rest, request, reply);
  });
  app.post<{ Body: WhyBody }>('/why', body(schemas.whyBody), (request, reply) => {
    const { name, limit, ...rest } = request.body;
    return answer({ kind: 'why', name, limit: limit ?? undefined }, rest, request, reply);
  });
  app.post<{ Body: WhyNotBody }>('/why-not', body(schemas.whyNotBody), (request, reply) => {
    const { spec, ...rest } = request.body;
    return answer({ kind: 'why-not', spec }, rest, request, reply);
  });
};

async function answer(question: InspectQuestion, body: ResolveBody, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const input = inputFromJson(body, {});
  request.server.runner.begin(request, input);
  const items = await inspectOnServer(question, input, request, reply);
  if (items === undefined) return reply;
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(items));
}

/** The answer, or undefined when the client went away (nothing is to be written then). */
export async function inspectOnServer(
  question: InspectQuestion,
  input: ResolveInput,
  request: FastifyRequest,
  reply: FastifyReply | null,
): Promise<InspectAnswer | undefined> {
  const { runner } = request.server;
  // The spec to try is checked before the request, so a typo costs no fetch.
  const extra = question.kind === 'why-not' ? specOf(question.spec) : undefined;
  const prepared = await runner.admit(input, request);
  // why-not solves the request with and without the spec at once.
  const solved = await runner.within(
    request,
    reply,
    (signal): Promise<[Resolution, Resolution | undefined]> =>
      Promise.all([
        runner.resolve(prepared, request, signal),
        extra ? runner.resolve(withAddedSpec(prepared, extra), request, signal) : undefined,
      ]),
  );
  if (solved === undefined) return undefined;
  const [current, withSpec] = solved;
  if (withSpec) runner.failures(request, [{ resolution: withSpec }]);
  runner.failures(request, [{ resolution: current }]);
  switch (question.kind) {
    case 'tree':
      return treeOf(current, { depth: question.depth, invert: question.invert }).map((t) => ({ ...t, error: bounded(t.error) }));
    case 'why':
      return whyOf(current, question.name, question.limit).map((w) => ({ ...w, error: bounded(w.error) }));
    case 'why-not':
      return whyNot(current, withSpec!, extra!).map((a) => ({ ...a, text: boundedError(a.text) }));
  }
}

function specOf(text: string): TriedSpec {
  try {
    return parseExtraSpec(text);
  } catch (error) {
    const problem = error instanceof CondaResolveError ? inputProblem(error) : undefined;
    if (problem) throw new HttpProblemError(problem.kind, problem.detail, { ...inputProblemExtras(problem), field: 'spec' });
    throw error;
  }
}

function bounded(error: string | null): string | null {
  return error === null ? null : boundedError(error);
}
