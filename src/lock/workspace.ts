/**
 * A pixi workspace as a whole (`-f pixi.toml` without `-e`, written to a pixi.lock), as `pixi lock`
 * does it: every environment the manifest defines is prepared and solved on its own, and all of
 * them go into one lock. With `--lock pixi.lock`, each environment stays close to the lock's
 * environment of the same name (one the lock lacks is solved afresh), and `--update NAME` applies
 * to every environment that locks NAME. `--check` checks each environment against its locked one.
 */
import { UsageError } from '../errors.js';
import { isPixiManifest, parsePixiManifest } from '../inputs/pixi-manifest.js';
import { lockFormatOf, readLockFile } from '../locks/lock-file.js';
import { prepareRequest, type PrepareOptions, type PreparedRequest, type ResolveRequest } from '../request.js';
import type { PlatformResolution } from '../resolve.js';
import { lockStaleReasons, staleText, type StaleReason } from './check.js';
import { diffEnvironments, solvedEnvironments, type PlatformDiff } from './diff.js';
import { locksName, previousLockOf, sameAnswer } from './previous-lock.js';
import type { LockDocument } from '../locks/types.js';
import { isPixiLockFormat } from './lock-version.js';

export interface WorkspaceEnvironment {
  readonly name: string;
  readonly request: PreparedRequest;
}

export interface PreparedWorkspace {
  /** The manifest's file name. */
  readonly filename: string;
  /** In the manifest's order, `default` first. */
  readonly environments: readonly WorkspaceEnvironment[];
  /** The previous lock (`--lock`), read once. */
  readonly lock?: { readonly document: LockDocument; readonly text: string };
}

/**
 * Whether the request is a whole workspace: a pixi manifest among the files, no `-e`, and the
 * answer is a pixi.lock (`format`, or the `--lock` file's own format when no format is chosen).
 */
export function isWorkspaceRequest(request: ResolveRequest, format: string | undefined): boolean {
  if (request.environment !== undefined) return false;
  if (!(request.files ?? []).some((file) => isPixiManifest(file.filename, file.content))) return false;
  const lockFormat = request.lock ? lockFormatOf(request.lock.filename, request.lock.content) : undefined;
  return isPixiLockFormat(format ?? lockFormat);
}

export function prepareWorkspace(request: ResolveRequest, options: PrepareOptions): PreparedWorkspace {
  const file = (request.files ?? []).find((f) => isPixiManifest(f.filename, f.content))!;
  const names = [...parsePixiManifest(file.filename, file.content).environments.keys()];
  if ((request.update ?? []).length > 0 && request.lock === undefined) {
    throw new UsageError(
      'CR_ERR_INPUT_LOCK_USAGE',
      'Cannot use --update without --lock: name the lock whose other packages should stay as they are',
    );
  }
  const document = request.lock ? readLockFile(request.lock.filename, request.lock.content) : undefined;
  const update = [...new Set((request.update ?? []).map((name) => name.trim()))];
  if (document) {
    const unknown = update.filter((name) => ![...document.environments.values()].some((environment) => locksName(environment, name)));
    if (unknown.length > 0) {
      throw new UsageError(
        'CR_ERR_INPUT_LOCK_UPDATE',
        `Cannot update ${unknown.map((n) => `"${n}"`).join(', ')}: no environment of "${document.filename}" locks a package of that name`,
      );
    }
  }
  const environments = names.map((name) => {
    const prepared = prepareRequest({ ...request, environment: name, lock: undefined, update: undefined }, options);
    const locked = document?.environments.get(name);
    if (!locked) return { name, request: prepared };
    const previousLock = previousLockOf(
      document!,
      request.lock!.content,
      locked,
      update.filter((n) => locksName(locked, n)),
    );
    return { name, request: { ...prepared, previousLock } };
  });
  return { filename: file.filename, environments, ...(document ? { lock: { document, text: request.lock!.content } } : {}) };
}

/** Why the lock does not answer the workspace, each reason naming its environment; empty when it does. */
export function workspaceStaleness(workspace: PreparedWorkspace, env: Readonly<Record<string, string | undefined>>): string[] {
  return workspaceStaleReasons(workspace, env).map((r) =>
    r.environment === undefined ? r.reason : `environment "${r.environment}": ${staleText(r)}`,
  );
}

/** A reason the lock does not answer the workspace: about one environment (and platform), or the whole lock. */
export interface WorkspaceStaleReason extends StaleReason {
  readonly environment?: string;
}

/** The reasons of `workspaceStaleness` as data. */
export function workspaceStaleReasons(
  workspace: PreparedWorkspace,
  env: Readonly<Record<string, string | undefined>>,
): WorkspaceStaleReason[] {
  const lock = workspace.lock;
  if (!lock) return [];
  const reasons: WorkspaceStaleReason[] = [];
  for (const { name, request } of workspace.environments) {
    if (!request.previousLock) reasons.push({ reason: `the lock has no environment "${name}", which ${workspace.filename} defines` });
    else reasons.push(...lockStaleReasons(request, request.previousLock, env).map((reason) => ({ environment: name, ...reason })));
  }
  const defined = new Set(workspace.environments.map((e) => e.name));
  for (const name of lock.document.environments.keys()) {
    if (!defined.has(name)) reasons.push({ reason: `the lock has an environment "${name}", which ${workspace.filename} does not define` });
  }
  return reasons;
}

/**
 * The lock's own text when every environment's answer is its locked one and the lock has no
 * other environment; otherwise undefined (write anew).
 */
export function unchangedWorkspaceText(
  workspace: PreparedWorkspace,
  answers: readonly { readonly name: string; readonly platforms: readonly PlatformResolution[] }[],
  format: string,
): string | undefined {
  const lock = workspace.lock;
  if (!lock || lock.document.format !== format || lock.document.environments.size !== workspace.environments.length) return undefined;
  for (const { name, request } of workspace.environments) {
    const answer = answers.find((a) => a.name === name);
    if (!request.previousLock || !answer) return undefined;
    if (!sameAnswer(request.previousLock, { channels: request.channels.map((c) => c.name), platforms: answer.platforms })) return undefined;
  }
  return lock.text;
}

export interface EnvironmentDiff {
  readonly environment: string;
  readonly platforms: readonly PlatformDiff[];
}

/** Per environment, what the solve changes against the lock (an environment the lock lacks: all added). */
export function workspaceDiff(
  workspace: PreparedWorkspace,
  answers: readonly { readonly name: string; readonly platforms: readonly PlatformResolution[] }[],
): EnvironmentDiff[] {
  return answers.map(({ name, platforms }) => {
    const locked = workspace.lock?.document.environments.get(name);
    const before = Object.assign(new Map(locked?.platforms ?? []), { pypi: locked?.pypi ?? new Map() });
    const kept = workspace.environments.find((e) => e.name === name)?.request.kept;
    return { environment: name, platforms: diffEnvironments(before, solvedEnvironments(platforms, kept)) };
  });
}
