/**
 * OSV records (the Open Source Vulnerability format, ossf.github.io/osv-schema), reduced to what
 * an audit reads, and the check that a parsed JSON value is one.
 */
import { AuditError } from './errors.js';

export type OsvEvent =
  | { readonly introduced: string }
  | { readonly fixed: string }
  | { readonly last_affected: string }
  | { readonly limit: string };

export interface OsvRange {
  readonly type: string;
  readonly events: readonly OsvEvent[];
}

export interface OsvAffected {
  readonly package?: { readonly ecosystem: string; readonly name: string; readonly purl?: string };
  readonly ranges?: readonly OsvRange[];
  readonly versions?: readonly string[];
  readonly severity?: readonly OsvSeverity[];
  readonly database_specific?: Readonly<Record<string, unknown>>;
}

export interface OsvSeverity {
  readonly type: string;
  readonly score: string;
}

export interface OsvRecord {
  readonly id: string;
  readonly modified: string;
  readonly withdrawn?: string;
  readonly aliases?: readonly string[];
  readonly summary?: string;
  readonly details?: string;
  readonly severity?: readonly OsvSeverity[];
  readonly affected?: readonly OsvAffected[];
  readonly references?: readonly { readonly type: string; readonly url: string }[];
  readonly database_specific?: Readonly<Record<string, unknown>>;
}

/** The record, or an `AuditError` naming `where` and the field at fault. */
export function asOsvRecord(value: unknown, where: string): OsvRecord {
  const bad = (why: string) => new AuditError('CR_ERR_AUDIT_RECORD_INVALID', `Cannot read OSV record ${where}: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('expected a JSON object');
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || record.id === '') throw bad('no "id"');
  if (typeof record.modified !== 'string') throw bad(`"${record.id}" has no "modified" date`);
  if (record.affected !== undefined) {
    if (!Array.isArray(record.affected)) throw bad(`"${record.id}": "affected" must be a list`);
    record.affected.forEach((entry: unknown, i) => {
      if (typeof entry !== 'object' || entry === null) throw bad(`"${record.id}": affected[${i}] must be an object`);
      const { package: pkg, ranges, versions } = entry as Record<string, unknown>;
      if (
        pkg !== undefined &&
        (typeof pkg !== 'object' ||
          pkg === null ||
          typeof (pkg as Record<string, unknown>).name !== 'string' ||
          typeof (pkg as Record<string, unknown>).ecosystem !== 'string')
      ) {
        throw bad(`"${record.id}": affected[${i}].package needs "ecosystem" and "name"`);
      }
      if (
        ranges !== undefined &&
        (!Array.isArray(ranges) ||
          ranges.some((r) => typeof r !== 'object' || r === null || !Array.isArray((r as Record<string, unknown>).events)))
      ) {
        throw bad(`"${record.id}": affected[${i}].ranges must be a list of ranges with "events"`);
      }
      if (versions !== undefined && (!Array.isArray(versions) || versions.some((v) => typeof v !== 'string'))) {
        throw bad(`"${record.id}": affected[${i}].versions must be a list of strings`);
      }
    });
  }
  return value as OsvRecord;
}
