/**
 * What a resolve made with a lock gives back, shared by the CLI and the HTTP service: the text in a
 * format (the previous lock's own text, byte for byte, when the answer is what it locks; a pixi.lock
 * of one chosen environment names it), a whole workspace's pixi.lock, and the changes against the
 * lock.
 */
import type { ExporterRegistry } from '../exporters/index.js';
import type { ExportEnvironment } from '../exporters/types.js';
import { exportEnvironments, type Resolution } from '../resolve.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { boundedAnswer } from '../answer-size.js';
import { diffEnvironments, solvedEnvironments, type PlatformDiff } from './diff.js';
import { isPixiLockFormat, type PixiLockFormat } from './lock-version.js';
import { unchangedLockText, type PreviousLock } from './previous-lock.js';
import { unchangedWorkspaceText, type PreparedWorkspace } from './workspace.js';

/**
 * The resolution in `format` (a registry name): the previous lock's text when nothing changed,
 * else the exporter's text. Every platform must have solved.
 */
export function renderResolution(
  registry: ExporterRegistry,
  format: string,
  resolution: Resolution,
  options: { readonly environment?: string; readonly now: Date },
): string {
  const request = resolution.request;
  const unchanged =
    request.previousLock &&
    unchangedLockText(request.previousLock, { format, channels: request.channels.map((c) => c.name), platforms: resolution.platforms });
  if (unchanged) return unchanged;
  const environments = exportEnvironments(resolution);
  // A pixi.lock of one chosen environment (`-e NAME`) names it, as the lock it came from did.
  const named: ExportEnvironment[] =
    isPixiLockFormat(format) && options.environment !== undefined
      ? environments.map((e) => ({ ...e, name: options.environment }))
      : environments;
  return boundedAnswer(
    () => registry.render(format, named, { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now: options.now }),
    `${format} text`,
  );
}

/** The formats that keep a lock's PyPI packages (the native JSON result keeps them too). */
const FORMATS_KEEPING_PYPI = new Set(['rattler-lock-v6', 'rattler-lock-v7', 'conda-lock-v1']);

/**
 * What an answer in `format` (undefined: native JSON) leaves out of the lock it was given: the
 * chosen environment's PyPI packages, on the platforms asked for, when the format cannot hold them.
 */
export function leftOutWarnings(resolution: Resolution, format: string | undefined): string[] {
  const kept = resolution.request.kept;
  if (!kept || format === undefined || FORMATS_KEEPING_PYPI.has(format)) return [];
  const count = new Set([...kept.pypi.values()].flat().map((r) => r.url)).size;
  if (count === 0) return [];
  return [
    `${kept.filename}: environment "${kept.environment}": ${count} PyPI package${count === 1 ? '' : 's'} left out of ${format} (pixi.lock, conda-lock.yml and the native JSON result keep them)`,
  ];
}

/**
 * Every environment of a workspace in one pixi.lock (`resolutions` in the workspace's environment
 * order, every platform solved): the previous lock's text when no environment changed.
 */
export function renderWorkspace(
  registry: ExporterRegistry,
  workspace: PreparedWorkspace,
  resolutions: readonly Resolution[],
  now: Date,
  format: PixiLockFormat,
): string {
  const answers = workspaceAnswers(workspace, resolutions);
  const unchanged = unchangedWorkspaceText(workspace, answers, format);
  if (unchanged !== undefined) return unchanged;
  const environments: ExportEnvironment[] = resolutions.flatMap((resolution, i) =>
    exportEnvironments(resolution).map((e) => ({ ...e, name: answers[i]!.name })),
  );
  return boundedAnswer(
    () => registry.render(format, environments, { toolName: TOOL_NAME, toolVersion: TOOL_VERSION, now }),
    `${format} text`,
  );
}

/** Each environment's name with its platforms' answers. */
export function workspaceAnswers(
  workspace: PreparedWorkspace,
  resolutions: readonly Resolution[],
): { name: string; platforms: Resolution['platforms'] }[] {
  return workspace.environments.map((e, i) => ({ name: e.name, platforms: resolutions[i]!.platforms }));
}

/** The changes from the lock to the solved platforms (failed platforms are left out), PyPI distributions included. */
export function resolutionDiff(lock: PreviousLock, resolution: Resolution): PlatformDiff[] {
  return diffEnvironments(
    Object.assign(new Map(lock.environment.platforms), { pypi: lock.environment.pypi }),
    solvedEnvironments(resolution.platforms, resolution.request.kept),
  );
}
