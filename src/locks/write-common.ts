/** What the two lock formats share: conda-lockfiles' check that every package has a URL. */
import type { PackageRecord } from '../../vocabulary/record.js';
import { ExportError, type ExportEnvironment } from '../exporters/types.js';
import { lockPlatformSubdir } from './facts.js';

/** conda's `str(PackageRecord)`: `channel/subdir::name==version=build`. */
export function recordLabel(record: PackageRecord): string {
  return `${record.channel}/${record.subdir}::${record.name}==${record.version}=${record.build}`;
}

/** conda-lockfiles' `validate_urls`: a lock file cannot hold a package without a URL. */
export function validateUrls(environments: readonly ExportEnvironment[], format: string): void {
  const missing = environments.flatMap((environment) => environment.records.filter((record) => !record.url));
  if (missing.length > 0) {
    throw new ExportError(
      'CR_ERR_EXPORT_NO_URL',
      format,
      `The specified environment cannot be exporting to lockfile format ${format}. ` +
        `The following packages have no URL: ${missing.map((record) => `\n  - ${recordLabel(record)}`).join('')}`,
    );
  }
}

/** The environments a multi-platform exporter needs: at least one. */
export function requireEnvironments(environments: readonly ExportEnvironment[], format: string): void {
  if (environments.length === 0) {
    throw new ExportError('CR_ERR_EXPORT_NO_ENVIRONMENTS', format, `Cannot export ${format}: no platforms to export`);
  }
}

/**
 * The environments with each platform given as its conda subdir, for formats that name platforms
 * by subdir (conda-lock.yml's `platform`, pixi.lock v6's keys). A pixi.lock v7 named platform
 * (`p2` with `subdir: linux-64`) becomes its subdir; two platforms of one environment that target
 * the same subdir cannot both be written, and are refused naming both (choose one with --platform).
 */
export function withSubdirPlatforms(environments: readonly ExportEnvironment[], format: string): ExportEnvironment[] {
  const seen = new Map<string, string>();
  return environments.map((environment) => {
    const subdir = lockPlatformSubdir(environment.lock, environment.platform);
    const key = `${environment.name ?? ''}\u0000${subdir}`;
    const other = seen.get(key);
    if (other !== undefined) {
      const where = environment.name ? ` of environment "${environment.name}"` : '';
      throw new ExportError(
        'CR_ERR_EXPORT_SHARED_SUBDIR',
        format,
        `Cannot export ${format}: the platforms "${other}" and "${environment.platform}"${where} both target ${subdir}, and ${format} names a platform by its subdir only; choose which to export with --platform (${other} or ${environment.platform})`,
      );
    }
    seen.set(key, environment.platform);
    return subdir === environment.platform ? environment : { ...environment, platform: subdir };
  });
}
