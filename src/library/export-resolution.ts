/** `exportResolution`: a resolution as the text of an export format, for library callers. */
import { CondaResolveError } from '../errors.js';
import { registerBuiltinExporters, type ExporterRegistry } from '../exporters/index.js';
import { exportEnvironments, type Resolution } from '../resolve.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import { checkExportOptions, checkFormat, checkResolution } from './argument-schemas.js';

/**
 * The text of an export format (a name or alias, e.g. `explicit`, `environment-yaml`, `pixi`,
 * `conda-lock`) for a resolution whose platforms all solved. `registry` defaults to the built-in
 * exporters; `loadRegistry()` adds installed plugins. `now` is the lock files' `created_at`.
 * Arguments of the wrong type throw an `InvalidArgumentError`.
 */
export function exportResolution(
  resolution: Resolution,
  format: string,
  options?: { registry?: ExporterRegistry; now?: Date } | null,
): string {
  checkResolution(resolution);
  checkFormat(format);
  const opts = checkExportOptions(options);
  const failed = resolution.platforms.filter((p) => p.error !== null);
  if (failed.length > 0) {
    const which = failed.map((p) => p.platform).join(', ');
    throw new CondaResolveError('CR_ERR_EXPORT_UNSOLVED', `Cannot export ${format}: ${which} did not solve (${failed[0]!.error})`);
  }
  const registry = opts.registry ?? registerBuiltinExporters();
  return registry.render(format, exportEnvironments(resolution), {
    toolName: TOOL_NAME,
    toolVersion: TOOL_VERSION,
    now: opts.now ?? new Date(),
  });
}
