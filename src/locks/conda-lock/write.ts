/**
 * `conda-lock-v1` (alias `conda-lock`): conda-lock's `conda-lock.yml` version 1, one document for
 * all platforms, byte for byte as conda-lockfiles 0.2.x writes it.
 *
 * - `metadata`: `content_hash: {}`, the request's channels (each with `used_env_vars: []`), the
 *   platforms sorted, `sources: ['']`, `created_at` (UTC, whole seconds) and `created_by` naming
 *   the tool. conda-lock's `git_metadata` and `inputs_metadata` are never written.
 * - `package`: one entry per platform and record (a noarch package appears once per platform),
 *   sorted by platform, then URL. `dependencies` maps each dependency's name to its version spec
 *   (build strings are dropped; `''` when the dependency has no version); `hash` leaves out a
 *   digest the channel does not publish.
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import { requireEnvironments, validateUrls } from '../write-common.js';
import { sortByKeys } from '../../exporters/python-sort.js';
import { dependencyVersion } from '../../exporters/spec-forms.js';
import type { ExportContext, ExportEnvironment, Exporter } from '../../exporters/types.js';
import { emitYaml, type YamlValue } from '../../exporters/yaml/index.js';

const FORMAT = 'conda-lock-v1';

export function exportCondaLockV1(environments: readonly ExportEnvironment[], context: ExportContext): string {
  return emitYaml(condaLockV1Document(environments, context));
}

/** The conda-lock.yml data, before it is written as YAML. */
export function condaLockV1Document(environments: readonly ExportEnvironment[], context: ExportContext): YamlValue {
  requireEnvironments(environments, FORMAT);
  validateUrls(environments, FORMAT);
  const entries = sortByKeys(
    environments.flatMap((environment) => environment.records.map((record) => ({ record, platform: environment.platform }))),
    ({ record, platform }) => [platform, record.url],
  );
  return {
    version: 1,
    metadata: {
      content_hash: {},
      channels: environments[0].channels.map((url) => ({ url, used_env_vars: [] })),
      platforms: sortByKeys(
        environments.map((environment) => environment.platform),
        (platform) => [platform],
      ),
      sources: [''],
      time_metadata: { created_at: formatCreatedAt(context.now) },
      custom_metadata: { created_by: `${context.toolName} ${context.toolVersion}` },
    },
    package: entries.map(({ record, platform }) => packageEntry(record, platform)),
  };
}

function packageEntry(record: PackageRecord, platform: string): YamlValue {
  // A Map keeps dependency order even for names a plain object would reorder; like Python's dict,
  // a repeated name keeps its first position and its last value.
  const dependencies = new Map<string, YamlValue>();
  for (const dep of record.depends) {
    const { name, version } = dependencyVersion(dep);
    dependencies.set(name, version);
  }
  const hash: Record<string, YamlValue> = {};
  if (record.md5 !== null) hash.md5 = record.md5;
  if (record.sha256 !== null) hash.sha256 = record.sha256;
  return {
    name: record.name,
    version: record.version,
    manager: 'conda',
    platform,
    dependencies,
    url: record.url,
    hash,
    category: 'main',
    optional: false,
  };
}

/** `datetime.now(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')`. */
export function formatCreatedAt(now: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${pad(now.getUTCFullYear(), 4)}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}` +
    `T${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}Z`
  );
}

export const condaLockV1Exporter: Exporter = {
  name: FORMAT,
  aliases: ['conda-lock'],
  description: 'Multi-platform lockfile format with exact package versions',
  category: 'lockfile',
  mediaType: 'application/yaml',
  defaultFilenames: ['conda-lock.yml', 'conda-lock.yaml'],
  exportMultiplatform: exportCondaLockV1,
};
