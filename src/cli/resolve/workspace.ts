/**
 * A whole pixi workspace (`-f pixi.toml` without `-e`) into one pixi.lock, as `pixi lock` does:
 * every environment solved, then written together; with `--lock`, `--update`, `--check` and
 * `--diff` applying to every environment.
 */
import { UsageError, userMessage } from '../../errors.js';
import type { ExporterRegistry } from '../../exporters/index.js';
import { renderDiff } from '../../lock/diff.js';
import { renderWorkspace, workspaceAnswers } from '../../lock/answer.js';
import type { PixiLockFormat } from '../../lock/lock-version.js';
import { prepareWorkspace, workspaceDiff, workspaceStaleness, type EnvironmentDiff } from '../../lock/workspace.js';
import type { PrepareOptions, PreparedRequest, ResolveRequest } from '../../request.js';
import type { Resolution } from '../../resolve.js';
import { EXIT_FAILED, EXIT_OK, writeError, writeWarning, type CliIO } from '../io.js';

export interface WorkspaceDeps {
  readonly values: {
    readonly check?: boolean;
    readonly diff?: boolean;
    readonly json?: boolean;
    readonly quiet?: boolean;
    readonly output?: string;
  };
  readonly io: CliIO;
  readonly registry: ExporterRegistry;
  readonly run: (requests: readonly PreparedRequest[]) => Promise<Resolution[]>;
  readonly emit: (output: string | undefined, text: string) => Promise<void>;
  readonly now: Date;
  /** The pixi.lock version written (`src/lock/lock-version.ts`). */
  readonly format: PixiLockFormat;
}

export async function workspaceCommand(input: ResolveRequest, options: PrepareOptions, deps: WorkspaceDeps): Promise<number> {
  const { values, io } = deps;
  const workspace = prepareWorkspace(input, options);
  const warnings = new Set(workspace.environments.flatMap((e) => e.request.warnings));
  for (const warning of warnings) writeWarning(io, warning);

  if (values.check) {
    if (!workspace.lock)
      throw new UsageError('CR_ERR_INPUT_LOCK_USAGE', 'Cannot use --check without --lock: name the lock to compare with');
    const reasons = workspaceStaleness(workspace, io.env);
    const filename = workspace.lock.document.filename;
    if (reasons.length === 0) {
      if (!values.quiet)
        io.stderr.write(
          `conda-resolve: ${filename} satisfies ${workspace.filename} (environments ${workspace.environments.map((e) => e.name).join(', ')})\n`,
        );
      return EXIT_OK;
    }
    writeError(io, `${filename} does not satisfy ${workspace.filename}:${reasons.map((r) => `\n  - ${r}`).join('')}`);
    return EXIT_FAILED;
  }
  if (values.diff && !workspace.lock)
    throw new UsageError('CR_ERR_INPUT_LOCK_USAGE', 'Cannot use --diff without --lock: name the lock to compare with');

  const resolutions = await deps.run(workspace.environments.map((e) => e.request));
  const answers = workspaceAnswers(workspace, resolutions);
  const failed = answers.flatMap((a) => a.platforms.filter((p) => p.error !== null).map((p) => ({ environment: a.name, ...p })));
  if (failed.length > 0) {
    for (const p of failed) writeError(io, `environment "${p.environment}", ${p.platform}: ${p.error}`);
    writeError(io, `no ${deps.format} output: ${failed.length === 1 ? 'a platform' : 'platforms'} failed to solve`);
    return EXIT_FAILED;
  }
  let text: string;
  try {
    text = renderWorkspace(deps.registry, workspace, resolutions, deps.now, deps.format);
  } catch (error) {
    writeError(io, userMessage(error));
    return EXIT_FAILED;
  }
  // --diff: the changes on standard output; the lock only into -o FILE.
  if (!values.diff || values.output !== undefined) await deps.emit(values.output, text);
  if (values.diff) await deps.emit(undefined, diffText(workspaceDiff(workspace, answers), values.json === true));
  return EXIT_OK;
}

function diffText(diff: readonly EnvironmentDiff[], json: boolean): string {
  if (json) return `${JSON.stringify({ environments: diff }, null, 2)}\n`;
  return diff.map((d) => `environment ${d.environment}:\n${renderDiff(d.platforms).replace(/^(?=.)/gm, '  ')}`).join('');
}
