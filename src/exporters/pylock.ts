/**
 * `pylock` (aliases `pylock.toml`, `pep751`): PEP 751's `pylock.toml` with the PyPI distributions of
 * a resolve, for `pip install -r pylock.toml` (pip >= 25.1) or `uv pip install` into an environment
 * that already has the conda part (conda packages are left out). Several platforms make one file:
 * each platform's marker is listed in `environments`; a version chosen on every platform is one
 * `[[packages]]` entry with every platform's wheel, a version chosen on some gets their `marker`, so
 * entries of one name are mutually exclusive, as the PEP requires. Key order follows the PEP's example.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { markerEnvironment } from '../../vocabulary/pypi/marker-environment.js';
import { normalizePypiName, requirementName, requirementNeedsExtra, type PypiRecord } from '../../vocabulary/pypi-record.js';
import { ExportError, type ExportContext, type ExportEnvironment, type Exporter } from './types.js';
import { lockPlatformSubdir } from '../locks/facts.js';

const FORMAT = 'pylock';

/** The PEP 508 marker of a platform, e.g. `sys_platform == 'linux' and platform_machine == 'x86_64'`. */
function platformMarker(environment: ExportEnvironment): string {
  const python = environment.records.find((r) => r.name === 'python');
  if (!python) {
    throw new ExportError(
      'CR_ERR_EXPORT_PYLOCK',
      FORMAT,
      `Cannot export pylock.toml for ${environment.platform}: it has PyPI packages but no conda python`,
    );
  }
  const env = markerEnvironment({
    platform: lockPlatformSubdir(environment.lock, environment.platform),
    python,
    records: environment.records,
  });
  return `sys_platform == '${env.sys_platform}' and platform_machine == '${env.platform_machine}'`;
}

const str = (value: string): string => JSON.stringify(value);

/** PEP 751: `upload-time` is a TOML offset date-time (UTC). */
function datetime(iso: string): string | undefined {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * The wheel's hashes; a wheel in a local folder (find-links, a `file://` index) that lists none
 * gets its sha256 computed from the file, since PEP 751 requires a hash for every file.
 */
function hashesOf(wheel: PypiRecord): Readonly<Record<string, string>> {
  // A lock's record carries sha256 and md5 only; a solved one every hash the index gives.
  const given =
    wheel.hashes ??
    Object.fromEntries(Object.entries({ sha256: wheel.sha256, md5: wheel.md5 }).filter((e): e is [string, string] => e[1] !== null));
  if (Object.keys(given).length > 0 || !wheel.url.startsWith('file:')) return given;
  try {
    return {
      sha256: createHash('sha256')
        .update(readFileSync(fileURLToPath(wheel.url)))
        .digest('hex'),
    };
  } catch {
    return {};
  }
}

function fileName(record: PypiRecord): string {
  return record.filename ?? decodeURIComponent(record.url.split(/[?#]/)[0]!.split('/').pop()!);
}

/** The solve's edges, or (a lock's record) the names its Requires-Dist gives without an extra. */
function dependsOf(record: PypiRecord): readonly string[] {
  if (record.depends) return record.depends;
  return record.requires_dist
    .filter((r) => !requirementNeedsExtra(r))
    .flatMap((r) => {
      const name = requirementName(r);
      return name === undefined ? [] : [normalizePypiName(name)];
    });
}

interface Entry {
  readonly name: string;
  readonly version: string;
  readonly record: PypiRecord;
  readonly wheels: Map<string, PypiRecord>;
  readonly markers: string[];
  /** Every platform's edges: a dependency named by a marker on one platform only is still listed. */
  readonly depends: Set<string>;
}

export function exportPylock(environments: readonly ExportEnvironment[], context: ExportContext): string {
  if (environments.length === 0) throw new ExportError('CR_ERR_EXPORT_NO_ENVIRONMENTS', FORMAT, 'Cannot export pylock.toml: no platforms');
  const withPypi = environments.filter((e) => (e.pypi ?? []).length > 0);
  if (withPypi.length === 0) {
    throw new ExportError(
      'CR_ERR_EXPORT_PYLOCK',
      FORMAT,
      'Cannot export pylock.toml: the environment has no PyPI packages (a pylock.toml lists PyPI distributions only)',
    );
  }
  const markers = new Map(environments.map((e) => [e.platform, (e.pypi ?? []).length > 0 ? platformMarker(e) : undefined] as const));
  const all = environments.map((e) => markers.get(e.platform)).filter((m): m is string => m !== undefined);
  const entries = new Map<string, Entry>();
  for (const environment of withPypi) {
    for (const record of environment.pypi!) {
      if (record.version === null) {
        throw new ExportError(
          'CR_ERR_EXPORT_PYLOCK',
          FORMAT,
          `Cannot export pylock.toml: ${record.name} is a local source tree (${record.url}), which a pylock.toml cannot lock without a version`,
        );
      }
      const key = `${record.name.toLowerCase()}\u0000${record.version}`;
      let entry = entries.get(key);
      if (!entry)
        entries.set(
          key,
          (entry = { name: record.name, version: record.version, record, wheels: new Map(), markers: [], depends: new Set() }),
        );
      entry.wheels.set(fileName(record), record);
      entry.markers.push(markers.get(environment.platform)!);
      for (const name of dependsOf(record)) entry.depends.add(name);
    }
  }
  const pythons = new Set(
    withPypi.map((e) =>
      e.records
        .find((r) => r.name === 'python')!
        .version.split('.')
        .slice(0, 2)
        .join('.'),
    ),
  );
  const lines = ['lock-version = "1.0"'];
  if (environments.length > 1) lines.push(`environments = [${all.map(str).join(', ')}]`);
  if (pythons.size === 1) lines.push(`requires-python = ${str(`==${[...pythons][0]}.*`)}`);
  lines.push(`created-by = ${str(context.toolName)}`);
  const sorted = [...entries.values()].sort((a, b) =>
    a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0,
  );
  for (const entry of sorted) {
    lines.push('', '[[packages]]', `name = ${str(entry.name)}`, `version = ${str(entry.version)}`);
    if (entry.markers.length < all.length)
      lines.push(`marker = ${str(entry.markers.map((m) => (entry.markers.length > 1 ? `(${m})` : m)).join(' or '))}`);
    if (entry.record.requires_python) lines.push(`requires-python = ${str(entry.record.requires_python)}`);
    if (entry.depends.size > 0)
      lines.push(
        `dependencies = [${[...entry.depends]
          .sort()
          .map((d) => `{name = ${str(d)}}`)
          .join(', ')}]`,
      );
    // pixi.lock v7 leaves pypi.org out of a package's index.
    lines.push(`index = ${str(entry.record.index ?? 'https://pypi.org/simple')}`);
    for (const [filename, wheel] of [...entry.wheels].sort(([a], [b]) => (a < b ? -1 : 1))) {
      // PEP 751: a wheel is one of `[[packages.wheels]]`, an sdist (a lock may keep one) `[packages.sdist]`.
      lines.push('', filename.endsWith('.whl') ? '[[packages.wheels]]' : '[packages.sdist]', `name = ${str(filename)}`);
      const uploaded = wheel.upload_time ? datetime(wheel.upload_time) : undefined;
      if (uploaded) lines.push(`upload-time = ${uploaded}`);
      lines.push(`url = ${str(wheel.url)}`);
      if (wheel.size !== undefined && wheel.size !== null) lines.push(`size = ${wheel.size}`);
      const hashes = Object.entries(hashesOf(wheel)).sort(([a], [b]) => (a < b ? -1 : 1));
      if (hashes.length === 0)
        throw new ExportError('CR_ERR_EXPORT_PYLOCK', FORMAT, `Cannot export pylock.toml: ${filename} has no hash (PEP 751 requires one)`);
      lines.push(`hashes = {${hashes.map(([k, v]) => `${k} = ${str(v)}`).join(', ')}}`);
    }
  }
  return lines.join('\n');
}

export const pylockExporter: Exporter = {
  name: FORMAT,
  aliases: ['pylock.toml', 'pep751'],
  description: "PEP 751 pylock.toml: the resolve's PyPI distributions (all platforms in one file)",
  category: 'lockfile',
  mediaType: 'application/toml',
  defaultFilenames: ['pylock.toml', 'pylock.*.toml'],
  exportMultiplatform: exportPylock,
};
