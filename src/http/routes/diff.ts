/**
 * `POST /diff`: what changed between two inputs with exact packages (pixi.lock, conda-lock.yml,
 * @EXPLICIT, the native JSON result), per platform, as `conda-resolve diff OLD NEW` gives it: JSON
 * (`--json`'s shape) or, with `Accept: text/plain`, the table. Nothing is solved or fetched.
 */
import type { FastifyPluginAsync } from 'fastify';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { diffEnvironments, diffJson, hasChanges, onlyPlatforms, renderDiff, type ExactEnvironments } from '../../lock/diff.js';
import { readExactRecords } from '../../lock/exact-records.js';
import type { AppContext } from '../app-context.js';
import { inputProblem } from '../error-handler.js';
import { wantsText } from '../request-guards.js';
import { HttpProblemError } from '../problem.js';
import { fileName, splitCommas } from './resolve-input.js';
import { acceptOnlyJson } from '../request-guards.js';
import { JSON_MEDIA_TYPE, NATIVE_MEDIA_TYPE } from '../schemas.js';

interface ExactFile {
  readonly content: string;
  readonly filename?: string | null;
}

export interface DiffBody {
  readonly old: ExactFile;
  readonly new: ExactFile;
  readonly environment?: string | null;
  readonly platforms?: string | readonly string[] | null;
}

export const diffRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  acceptOnlyJson(app);
  app.post<{ Body: DiffBody }>(
    '/diff',
    { schema: { body: { content: { [JSON_MEDIA_TYPE]: { schema: context.schemas.diffBody } } } } },
    async (request, reply) => {
      const { body } = request;
      const environment = body.environment?.trim() || undefined;
      const before = exact('old', body.old, environment);
      const after = exact('new', body.new, environment);
      const platforms =
        typeof body.platforms === 'string' ? splitCommas(body.platforms) : body.platforms?.map((p) => p.trim()).filter((p) => p !== '');
      const diff = onlyPlatforms(diffEnvironments(before, after), platforms);
      if (wantsText(request.headers.accept)) return reply.code(200).type('text/plain; charset=utf-8').send(renderDiff(diff));
      return reply
        .code(200)
        .type(NATIVE_MEDIA_TYPE)
        .send(JSON.stringify({ changed: hasChanges(diff), ...diffJson(diff) }));
    },
  );
};

/** One side's records; a file that cannot be read is a 400 naming the side (`old` or `new`). */
function exact(side: 'old' | 'new', file: ExactFile, environment: string | undefined): ExactEnvironments {
  const filename = fileName(file.filename, file.content);
  try {
    return readExactRecords(filename, file.content, { environment });
  } catch (error) {
    const problem = error instanceof CondaResolveError ? inputProblem(error) : undefined;
    if (!problem) throw error;
    // An environment the lock lacks is the `environment` field's fault; anything else the text's.
    const field = problem.field === 'environment' ? 'environment' : `${side}.content`;
    throw new HttpProblemError(problem.kind, problem.detail, { field });
  }
}
