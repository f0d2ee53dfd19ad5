/**
 * The environment model that `environment-yaml` and `environment-json` both write (conda's
 * `to_dict` in `conda/plugins/environment_exporters/environment_yml.py`, conda 26.x).
 *
 * Key order is fixed: `name`, `channels` (only when there are some), `dependencies` (always, `[]`
 * when empty), `variables` (only when there are some), `prefix` (only when set). Dependencies are
 * the requested specs in conda's environment-file form when there are any, otherwise every record
 * as `name=version=build`. PyPI distributions follow as one `pip:` list of `name==version` pins,
 * as `conda env export` writes an environment's pip-installed packages (its external packages,
 * keyed by installer, after the conda dependencies).
 */
import { condaEnvForm } from './spec-forms.js';
import type { ExportEnvironment } from './types.js';

// A type alias (not an interface) so it is assignable to the YAML emitter's mapping type.
export type EnvironmentDocument = {
  readonly name: string | null;
  readonly channels?: readonly string[];
  readonly dependencies: readonly (string | { readonly pip: readonly string[] })[];
  readonly variables?: Readonly<Record<string, string>>;
  readonly prefix?: string;
};

export function environmentDocument(environment: ExportEnvironment): EnvironmentDocument {
  const requested = environment.requestedSpecs ?? [];
  const dependencies =
    requested.length > 0
      ? requested.map(condaEnvForm)
      : environment.records.map((record) => `${record.name}=${record.version}=${record.build}`);
  const pypi = environment.pypi ?? [];
  // A local source tree a lock keeps by path has no version: pip's `name @ location` names it.
  const pip =
    pypi.length > 0
      ? [{ pip: pypi.map((record) => (record.version === null ? `${record.name} @ ${record.url}` : `${record.name}==${record.version}`)) }]
      : [];
  const channels = environment.environmentChannels ?? [];
  const variables = environment.variables ?? {};
  return {
    name: environment.name ?? null,
    ...(channels.length > 0 ? { channels: [...channels] } : {}),
    dependencies: [...dependencies, ...pip],
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
    ...(environment.prefix ? { prefix: environment.prefix } : {}),
  };
}
