/**
 * `audit` for every caller (CLI, HTTP, MCP, library): open the database (a zip or folder on disk,
 * kept in memory while unchanged so a server reads it once; or an OSV API, asked only about the
 * packages at hand), then check the environments against it.
 */
import { stat } from 'node:fs/promises';
import type { PypiMapping } from '../pypi-mapping/index.js';
import { auditEnvironments, auditQueries, type AuditEnvironment, type AuditReport } from './audit.js';
import { loadOsvDatabase, type OsvDatabase, type OsvDatabaseLimits } from './database.js';
import { AuditError } from './errors.js';
import { queryOsvApi, type OsvApiOptions } from './osv-api.js';

export {
  auditEnvironments,
  auditQueries,
  failsAt,
  type AuditEnvironment,
  type AuditFinding,
  type AuditReport,
  type NotCovered,
  type PlatformAudit,
} from './audit.js';
export { loadOsvDatabase, osvDatabaseOf, type OsvDatabase, type OsvDatabaseLimits } from './database.js';
export { AUDIT_ERROR_CODES, AuditError } from './errors.js';
export { renderAuditTable, renderSarif, type SarifArtifact } from './render.js';
export { parseSeverity, SEVERITIES, type Severity } from './severity.js';

export interface AuditSource {
  /** OSV's all.zip or a folder of OSV JSON files. */
  readonly db?: string;
  /** An OSV-compatible API's base URL. */
  readonly osvApi?: string;
}

const opened = new Map<string, { readonly key: string; readonly database: Promise<OsvDatabase> }>();

/** The database at `path`, read once while the file (or folder) keeps its size and time. */
export async function openOsvDatabase(path: string, limits?: OsvDatabaseLimits): Promise<OsvDatabase> {
  let key = '';
  try {
    const info = await stat(path);
    key = `${info.size}:${info.mtimeMs}`;
  } catch {
    // loadOsvDatabase says what is wrong with the path.
  }
  const cached = opened.get(path);
  if (cached && key !== '' && cached.key === key) return cached.database;
  const database = loadOsvDatabase(path, limits);
  if (key !== '') opened.set(path, { key, database });
  database.catch(() => opened.delete(path));
  return database;
}

export async function audit(
  environments: readonly AuditEnvironment[],
  options: {
    readonly source: AuditSource;
    readonly mapping: PypiMapping;
    readonly limits?: OsvDatabaseLimits;
    readonly api?: OsvApiOptions;
  },
): Promise<AuditReport> {
  const { source, mapping } = options;
  let database: OsvDatabase;
  if (source.db) database = await openOsvDatabase(source.db, options.limits);
  else if (source.osvApi) database = await queryOsvApi(source.osvApi, auditQueries(environments, mapping), options.api);
  else
    throw new AuditError(
      'CR_ERR_AUDIT_NO_DATABASE',
      "Cannot audit: no OSV database. Give --db PATH (OSV's all.zip or a folder of OSV JSON files) or --osv-api URL, or set osv_db / osv_api in configuration",
    );
  return auditEnvironments(environments, database, mapping);
}
