/**
 * `POST /audit` and the MCP `audit` tool: the request passes what `/resolve` requires (limits,
 * validation, channel policy: `admit`), is solved (or its lock read) on the server within its time
 * limit, and each solved platform is checked against the operator's OSV database (`--osv-db`, read
 * once and kept while unchanged) or OSV API (`--osv-api`). Without either the route is a 404.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { audit, type AuditReport } from '../audit/index.js';
import { readFile } from 'node:fs/promises';
import { parseMappingFile, pypiMapping, type PypiMapping } from '../pypi-mapping/index.js';
import { exportEnvironments } from '../resolve.js';
import type { AppContext, ResolveNote } from './app-context.js';
import { settled, wholeRequestFailures } from './inspect-run.js';
import { HttpProblemError } from './problem.js';
import type { ResolveInput } from './resolve-input.js';
import { admit, boundedError, resolveHere, runWithin } from './routes/resolve.js';

/**
 * The server fetches no conda-forge mapping (it reaches only the channels its operator allows): it
 * reads the operator's file (`--pypi-mapping FILE`, once), else reports conda-forge packages as
 * not covered, saying so.
 */
const serverMappings = new Map<string, Promise<PypiMapping>>();

function serverMapping(file: string | undefined): Promise<PypiMapping> {
  if (file === undefined) return Promise.resolve(pypiMapping({ condaForge: { unavailable: 'this server has none; its operator gives one with serve --pypi-mapping FILE' } }));
  let loaded = serverMappings.get(file);
  if (!loaded) {
    loaded = readFile(file, 'utf8')
      .then((text) => parseMappingFile("the server's mapping", text))
      .then(
        (table) => pypiMapping({ condaForge: { table, source: 'serve --pypi-mapping' } }),
        // The file's place and contents are the operator's business: the reason names neither.
        () => pypiMapping({ condaForge: { unavailable: "this server's mapping file cannot be read" } }),
      );
    serverMappings.set(file, loaded);
  }
  return loaded;
}

export interface ServerAudit extends AuditReport {
  /** Platforms that did not solve, and why; their packages were not audited. */
  readonly failed: readonly { readonly platform: string; readonly error: string }[];
}

export function checkAuditConfigured(context: AppContext): void {
  if (!context.config.osvDb && !context.config.osvApi) {
    throw new HttpProblemError('not-found', 'This server has no OSV database to audit against (its operator starts it with --osv-db PATH or --osv-api URL)');
  }
}

/** The report, or null when the client went away. */
export async function auditOnServer(input: ResolveInput, context: AppContext, note: ResolveNote, request: FastifyRequest, reply: FastifyReply | null): Promise<ServerAudit | null> {
  checkAuditConfigured(context);
  const prepared = await admit(input, context, note);
  const outcome = await runWithin(request, reply, context, (signal) => resolveHere(prepared, context, signal, request));
  const resolution = settled(outcome, context, note);
  if (resolution === null) return null;
  wholeRequestFailures(resolution, context, note);
  const failed = resolution.platforms.filter((p) => p.error !== null).map((p) => ({ platform: p.platform, error: boundedError(p.error!) }));
  note.failed = failed.map((f) => f.platform);
  note.outcome = failed.length > 0 ? 'partial' : 'solved';
  const environments = exportEnvironments(resolution).filter((e) => !failed.some((f) => f.platform === e.platform));
  const api = context.deps.osvDispatcher ? { api: { dispatcher: context.deps.osvDispatcher } } : {};
  const report = await audit(environments, { source: { db: context.config.osvDb, osvApi: context.config.osvApi }, mapping: await serverMapping(context.config.pypiMapping), ...api });
  // The database's place on the server's disk is the operator's business.
  return { ...report, database: { ...report.database, source: context.config.osvDb ? 'osv-db' : report.database.source }, failed };
}
