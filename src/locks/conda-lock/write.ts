/**
 * `conda-lock-v1` (alias `conda-lock`): conda-lock's `conda-lock.yml` version 1 (CEP 37), one
 * document for all platforms, byte for byte as conda-lockfiles 0.2.x writes it. A conda-lock.yml read
 * back keeps what CEP 37 defines beyond records; the layout is on `condaLockV1Document`.
 */
import type { PackageRecord } from '../../../vocabulary/record.js';
import { requirementName, requirementNeedsExtra, type PypiRecord } from '../../../vocabulary/pypi-record.js';
import { condaLockEntryKey } from './facts.js';
import { requireEnvironments, validateUrls, withSubdirPlatforms } from '../write-common.js';
import { sortByKeys } from '../../exporters/python-sort.js';
import { dependencyVersion } from '../../exporters/spec-forms.js';
import type { ExportContext, ExportEnvironment, Exporter } from '../../exporters/types.js';
import { emitYaml, type YamlValue } from '../../exporters/yaml/index.js';

const FORMAT = 'conda-lock-v1';

export function exportCondaLockV1(environments: readonly ExportEnvironment[], context: ExportContext): string {
  return emitYaml(condaLockV1Document(environments, context));
}

/**
 * The conda-lock.yml data, before it is written as YAML.
 *
 * - `metadata`: `content_hash: {}`, the request's channels (each with `used_env_vars: []`), the
 *   platforms sorted, `sources: ['']`, `created_at` (UTC, whole seconds) and `created_by` naming
 *   the tool. conda-lock's `git_metadata` and `inputs_metadata` are never written.
 * - `package`: one entry per platform and record (a noarch package appears once per platform),
 *   sorted by platform, then URL; PyPI packages (`manager: pip`) after each platform's conda ones.
 *   `dependencies` maps each dependency's name to its version spec (build strings are dropped; `''`
 *   when the dependency has no version); `hash` leaves out a digest the channel does not publish.
 * - A conda-lock.yml read back (`ExportEnvironment.lock`) keeps what CEP 37 defines beyond
 *   records: its metadata (content_hash of the platforms written, channels with used_env_vars,
 *   sources, time, git, inputs and custom metadata) and each entry's source, build, category and
 *   optional.
 */
export function condaLockV1Document(given: readonly ExportEnvironment[], context: ExportContext): YamlValue {
  requireEnvironments(given, FORMAT);
  validateUrls(given, FORMAT);
  // conda-lock's `platform` is a subdir: a pixi.lock v7 named platform is written as its subdir.
  const environments = withSubdirPlatforms(given, FORMAT);
  // A conda-lock.yml read back carries what CEP 37 defines beyond records; it is written back.
  const kept = environments.find((environment) => environment.lock?.condaLock)?.lock?.condaLock;
  const extras = (platform: string, manager: 'conda' | 'pip', url: string) => kept?.entries.get(condaLockEntryKey(platform, manager, url));
  const entries = sortByKeys(
    environments.flatMap((environment) => [
      ...environment.records.map((record) => ({
        url: record.url,
        platform: environment.platform,
        rank: '0',
        entry: () => packageEntry(record, environment.platform, extras(environment.platform, 'conda', record.url)),
      })),
      // CEP 37: conda packages are installed first; pip entries follow each platform's conda ones.
      ...(environment.pypi ?? []).map((record) => ({
        url: record.url,
        platform: environment.platform,
        rank: '1',
        entry: () => pipEntry(record, environment.platform, extras(environment.platform, 'pip', record.url)),
      })),
    ]),
    ({ platform, rank, url }) => [platform, rank, url],
  );
  const platforms = sortByKeys(
    environments.map((environment) => environment.platform),
    (platform) => [platform],
  );
  const metadata = kept?.metadata ?? {};
  const contentHash = metadata.content_hash;
  return {
    version: 1,
    metadata: {
      content_hash: isRecord(contentHash)
        ? Object.fromEntries(platforms.filter((p) => contentHash[p] !== undefined).map((p) => [p, contentHash[p]!]))
        : {},
      channels:
        (kept ? environments.find((environment) => environment.lock?.condaLock)?.lock?.channels : undefined) ??
        environments[0].channels.map((url) => ({ url, used_env_vars: [] })),
      platforms,
      sources: metadata.sources ?? [''],
      time_metadata: 'time_metadata' in metadata ? metadata.time_metadata! : { created_at: formatCreatedAt(context.now) },
      ...(metadata.git_metadata !== undefined ? { git_metadata: metadata.git_metadata } : {}),
      ...(metadata.inputs_metadata !== undefined ? { inputs_metadata: metadata.inputs_metadata } : {}),
      custom_metadata:
        'custom_metadata' in metadata ? metadata.custom_metadata! : { created_by: `${context.toolName} ${context.toolVersion}` },
    },
    package: entries.map(({ entry }) => entry()),
  };
}

function isRecord(value: YamlValue | undefined): value is Record<string, YamlValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

/** CEP 37's optional entry fields a lock had (source, build, category, optional), else conda-lockfiles' defaults. */
function entryTail(extra: YamlValue | undefined): Record<string, YamlValue> {
  const had = isRecord(extra) ? extra : {};
  return {
    ...(had.source !== undefined ? { source: had.source } : {}),
    ...(had.build !== undefined ? { build: had.build } : {}),
    category: had.category ?? 'main',
    optional: had.optional ?? false,
  };
}

function packageEntry(record: PackageRecord, platform: string, extra?: YamlValue): YamlValue {
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
    ...entryTail(extra),
  };
}

/**
 * A PyPI package as CEP 37's `manager: pip` entry: `dependencies` maps each requirement's name to
 * the rest of it (the two joined give the PEP 508 requirement back); requirements that apply only
 * with an extra are not dependencies of the install and are left out.
 */
function pipEntry(record: PypiRecord, platform: string, extra?: YamlValue): YamlValue {
  const dependencies = new Map<string, YamlValue>();
  for (const requirement of record.requires_dist) {
    const name = requirementName(requirement);
    if (name === undefined || requirementNeedsExtra(requirement)) continue;
    dependencies.set(name, requirement.trim().slice(name.length).trim());
  }
  const hash: Record<string, YamlValue> = {};
  if (record.md5 !== null) hash.md5 = record.md5;
  if (record.sha256 !== null) hash.sha256 = record.sha256;
  return {
    name: record.name,
    version: record.version ?? '',
    manager: 'pip',
    platform,
    dependencies,
    url: record.url,
    hash,
    ...entryTail(extra),
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
