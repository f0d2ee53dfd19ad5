/**
 * `GET /resolve` and `POST /resolve`.
 *
 * Without `format` the answer is the native JSON array, with per-platform errors and status 200;
 * with `format` it is the exporter's text with the exporter's media type, and any failed platform
 * or exporter makes it a 500. With `lock`, `check` answers whether the lock still holds (nothing is
 * solved) and `diff` what a new solve changes. Admission, the time limit and the solve itself are
 * the shared runner's (`plugins/solve-runner.ts`).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { CondaResolveError } from '../../../vocabulary/errors.js';
import { AnswerTooLargeError, boundedAnswer } from '../../answer-size.js';
import { errorSpec, userMessage } from '../../errors.js';
import type { Exporter } from '../../exporters/types.js';
import { renderResolution, renderWorkspace, resolutionDiff, workspaceAnswers } from '../../lock/answer.js';
import { lockStaleReasons } from '../../lock/check.js';
import { renderDiff, type PlatformDiff } from '../../lock/diff.js';
import { chosenPixiLockFormat, isPixiLockFormat } from '../../lock/lock-version.js';
import {
  isWorkspaceRequest,
  prepareWorkspace,
  workspaceDiff,
  workspaceStaleReasons,
  type WorkspaceStaleReason,
} from '../../lock/workspace.js';
import type { PreparedRequest } from '../../request.js';
import { toNative, type Resolution } from '../../resolve.js';
import type { AppContext } from '../app-context.js';
import { boundedError } from '../plugins/solve-runner.js';
import { HttpProblemError, type PlatformFailure } from '../problem.js';
import { wantsText } from '../request-guards.js';
import { JSON_MEDIA_TYPE, NATIVE_MEDIA_TYPE, RAW_FILE_MEDIA_TYPES } from '../schemas.js';
import { inputFromJson, inputFromQuery, inputFromUpload, type ResolveBody, type ResolveInput, type ResolveQuery } from './resolve-input.js';

export const resolveRoutes: FastifyPluginAsync<{ context: AppContext }> = async (app, { context }) => {
  const { schemas } = context;

  // A raw environment file is read as text; anything else that is not JSON is a 415.
  app.addContentTypeParser([...RAW_FILE_MEDIA_TYPES], { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.get<{ Querystring: ResolveQuery }>('/resolve', { schema: { querystring: schemas.resolveQuery } }, (request, reply) =>
    handle(inputFromQuery(request.query), request, reply, context),
  );

  app.post<{ Querystring: ResolveQuery; Body: ResolveBody | string | undefined }>(
    '/resolve',
    {
      schema: {
        querystring: schemas.resolveQuery,
        body: {
          content: {
            [JSON_MEDIA_TYPE]: { schema: schemas.resolveBody },
            ...Object.fromEntries(RAW_FILE_MEDIA_TYPES.map((type) => [type, { schema: schemas.rawFileBody }])),
          },
        },
      },
    },
    (request, reply) => {
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      let input: ResolveInput;
      if (typeof request.body === 'string') input = inputFromUpload(request.body, mediaType, request.query);
      else if (request.body && typeof request.body === 'object') input = inputFromJson(request.body, request.query);
      else input = inputFromQuery(request.query); // no body at all: the query is the request
      return handle(input, request, reply, context);
    },
  );
};

async function handle(input: ResolveInput, request: FastifyRequest, reply: FastifyReply, context: AppContext): Promise<FastifyReply> {
  const { deps } = context;
  const { runner } = request.server;
  runner.begin(request, input, input.format);

  // The exporter, when one is asked for: an unknown name is a 400 before any work.
  const exporter = input.format === undefined ? undefined : exporterNamed(input.format, context);
  // A pixi manifest without `environment` answered as a pixi.lock is every environment, as `pixi lock`.
  if (isWorkspaceRequest(input.request, exporter?.name) && (exporter !== undefined || input.check || input.diff)) {
    return handleWorkspace(input, request, reply, context);
  }
  const prepared = await runner.admit(input, request);

  // check: whether the lock still answers, with no solve and nothing fetched.
  if (input.check) {
    const reasons = () => lockStaleReasons(prepared, prepared.previousLock!, deps.env);
    return answerCheck(
      [{ name: input.request.environment ?? 'default', request: prepared }],
      prepared.previousLock!.filename,
      reasons,
      request,
      reply,
    );
  }

  const resolution = await runner.within(request, reply, (signal) => runner.resolve(prepared, request, signal), prepared.platforms);
  if (resolution === undefined) return reply;
  textNeedsEveryPlatform(runner.failures(request, [{ resolution }]), exporter, input.diff);
  const render =
    exporter &&
    (() =>
      renderResolution(deps.registry, exporter.name, resolution, { environment: input.request.environment, now: context.clock.now() }));
  if (input.diff) {
    const output = render ? renderOrFail(render, reply) : undefined;
    return answerDiff({ platforms: resolutionDiff(prepared.previousLock!, resolution) }, exporter, output, request, reply);
  }
  if (!render) return answerNative(resolution, reply);
  // The previous lock's own text when nothing changed; a pixi.lock of one environment names it.
  // As bytes, so the media type goes out exactly as the exporter states it (fastify would append a
  // charset to a JSON type given a string).
  return reply
    .code(200)
    .type(exporter!.mediaType)
    .send(Buffer.from(renderOrFail(render, reply), 'utf8'));
}

/** A whole pixi workspace: every environment prepared, checked, solved and written into one pixi.lock. */
async function handleWorkspace(
  input: ResolveInput,
  request: FastifyRequest,
  reply: FastifyReply,
  context: AppContext,
): Promise<FastifyReply> {
  const { deps } = context;
  const { runner } = request.server;
  const options = runner.prepareOptions(input);
  const workspace = runner.validated(input, () => prepareWorkspace(input.request, options));
  const environments = workspace.environments;
  const platforms = [...new Set(environments.flatMap((e) => e.request.platforms))];
  for (const { request: prepared } of environments) runner.checkPrepared(input, prepared);
  const channels = [...new Set(environments.flatMap((e) => e.request.channels.map((c) => c.name)))];
  runner.noteAdmitted(
    request,
    environments.reduce((n, e) => n + e.request.specs.length, 0),
    platforms,
    channels,
  );
  for (const { request: prepared } of environments) await runner.checkChannels(input, prepared);

  if (input.check)
    return answerCheck(environments, workspace.lock!.document.filename, () => workspaceStaleReasons(workspace, deps.env), request, reply);

  const work = (signal: AbortSignal) => Promise.all(environments.map((e) => runner.resolve(e.request, request, signal)));
  const resolutions = await runner.within(request, reply, work, platforms);
  if (resolutions === undefined) return reply;
  // The format is a pixi.lock (or none, for a check or a diff against a pixi.lock).
  // A pixi format named by its alias is that version; otherwise the lock's, or v7 for a manifest.
  const named = input.format === undefined ? undefined : deps.registry.get(input.format).name;
  const formatName =
    named === undefined
      ? undefined
      : isPixiLockFormat(named)
        ? named
        : chosenPixiLockFormat({ lock: input.request.lock, files: input.request.files });
  const format = formatName === undefined ? undefined : deps.registry.get(formatName);
  const failures = runner.failures(
    request,
    resolutions.map((resolution, i) => ({ environment: environments[i]!.name, resolution })),
  );
  textNeedsEveryPlatform(failures, format, input.diff);
  const text = format
    ? renderOrFail(() => renderWorkspace(deps.registry, workspace, resolutions, context.clock.now(), formatName!), reply)
    : undefined;
  if (input.diff)
    return answerDiff({ environments: workspaceDiff(workspace, workspaceAnswers(workspace, resolutions)) }, format, text, request, reply);
  return reply.code(200).type(format!.mediaType).send(Buffer.from(text!, 'utf8'));
}

function exporterNamed(name: string, context: AppContext): Exporter {
  try {
    return context.deps.registry.get(name);
  } catch (error) {
    if (errorSpec(error)?.problem === 'unknown-format') {
      throw new HttpProblemError('unknown-format', userMessage(error), {
        field: 'format',
        available_formats: context.deps.registry.names(),
      });
    }
    throw error;
  }
}

function answerCheck(
  environments: readonly { readonly name: string; readonly request: PreparedRequest }[],
  lock: string,
  reasons: () => readonly WorkspaceStaleReason[],
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const platforms = [...new Set(environments.flatMap((e) => e.request.platforms))];
  // One environment: its reasons carry its name, as a workspace's do.
  const named = environments.length === 1 ? reasons().map((r) => ({ environment: environments[0]!.name, ...r })) : reasons();
  request.solveLog!.outcome = 'checked';
  const body = { satisfied: named.length === 0, lock, environments: environments.map((e) => e.name), platforms, reasons: named };
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(body));
}

/** The changes of one environment (`platforms`) or of a workspace (`environments`). */
type DiffChanges =
  | { readonly platforms: readonly PlatformDiff[] }
  | { readonly environments: readonly { readonly environment: string; readonly platforms: readonly PlatformDiff[] }[] };

function answerDiff(
  changes: DiffChanges,
  format: Exporter | undefined,
  output: string | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  request.solveLog!.outcome = 'solved';
  if (wantsText(request.headers.accept)) {
    const text =
      'platforms' in changes
        ? renderDiff(changes.platforms)
        : changes.environments.map((e) => `environment ${e.environment}:\n${renderDiff(e.platforms).replace(/^(?=.)/gm, '  ')}`).join('');
    return reply.code(200).type('text/plain; charset=utf-8').send(text);
  }
  const all = 'platforms' in changes ? changes.platforms : changes.environments.flatMap((e) => e.platforms);
  const body = {
    changed: all.some((p) => p.changes.length > 0),
    ...changes,
    ...(format && output !== undefined ? { format: format.name, media_type: format.mediaType, output } : {}),
  };
  return reply.code(200).type(NATIVE_MEDIA_TYPE).send(JSON.stringify(body));
}

function renderOrFail(render: () => string, reply: FastifyReply): string {
  try {
    return render();
  } catch (error) {
    if (error instanceof AnswerTooLargeError) throw error;
    if (!(error instanceof CondaResolveError)) reply.log.error({ err: error }, 'exporter failed unexpectedly');
    throw new HttpProblemError('export-failed', userMessage(error, { hidePaths: true }), { field: 'format' });
  }
}

/** Native JSON carries per-platform errors; text (a format or a diff) needs every platform solved: else a 500. */
function textNeedsEveryPlatform(failures: readonly PlatformFailure[], exporter: Exporter | undefined, diff: boolean | undefined): void {
  if (failures.length === 0 || (!exporter && !diff)) return;
  const names = failures.map((f) => (f.environment !== undefined ? `${f.environment}/${f.platform}` : f.platform)).join(', ');
  const what = exporter ? `export ${exporter.name}` : 'compare with the lock';
  throw new HttpProblemError('solve-failed', `Cannot ${what}: the solve failed for ${names}: ${failures[0]!.error}`, {
    field: 'platforms',
    platforms: failures,
  });
}

function answerNative(resolution: Resolution, reply: FastifyReply): FastifyReply {
  const warnings = resolution.request.warnings;
  const results = toNative(resolution).map((result) => ({
    ...result,
    error: result.error === null ? null : boundedError(result.error),
    ...(warnings.length > 0 ? { warnings: [...warnings] } : {}),
  }));
  return reply
    .code(200)
    .type(NATIVE_MEDIA_TYPE)
    .send(boundedAnswer(() => JSON.stringify(results), 'native JSON result'));
}
