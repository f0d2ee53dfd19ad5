/** What the two lock formats share: conda-lockfiles' check that every package has a URL. */
import type { PackageRecord } from '../../vocabulary/record.js';
import { ExportError, type ExportEnvironment } from '../exporters/types.js';

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
