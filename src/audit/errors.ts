/**
 * The audit's errors: an OSV database that cannot be read (missing, not a zip, too large, a record
 * that is not OSV), an OSV API that does not answer, and no database at all.
 */
import { CondaResolveError, type ErrorCode } from '../../vocabulary/errors.js';

export const AUDIT_ERROR_CODES = {
  CR_ERR_AUDIT_NO_DATABASE: 'audit: no OSV database was given (--db PATH, --osv-api URL, or audit.db / audit.osv_api in configuration).',
  CR_ERR_AUDIT_DB_UNREADABLE: 'audit: the OSV database (a zip or a folder) cannot be read: missing, a file of another kind, no permission.',
  CR_ERR_AUDIT_DB_CORRUPT: 'audit: the OSV zip is not a valid zip archive (truncated, damaged, or another kind of file).',
  CR_ERR_AUDIT_DB_TOO_LARGE:
    'audit: the OSV database, or one record in it, is larger than the limit (a zip bomb is refused before it is inflated).',
  CR_ERR_AUDIT_RECORD_INVALID:
    'audit: a file of the OSV database is not an OSV record (not JSON, or no "id"/"modified", or "affected" of the wrong shape).',
  CR_ERR_AUDIT_API: 'audit: the OSV API did not answer, or answered something that is not OSV.',
} as const;

type AuditErrorCodes = typeof AUDIT_ERROR_CODES;
declare module '../../vocabulary/errors.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging
  interface ErrorCodes extends AuditErrorCodes {}
}

export class AuditError extends CondaResolveError {
  constructor(code: Extract<ErrorCode, `CR_ERR_AUDIT_${string}`>, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
