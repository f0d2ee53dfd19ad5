/**
 * An OSV-compatible API (api.osv.dev's v1: `POST /v1/querybatch`, then `GET /v1/vulns/{id}`) as
 * the database: the batch names the advisories of each package and version, and each advisory is
 * fetched once. Requests go through the network settings the channels use (proxies, TLS, the
 * dispatcher of repodata/net), with a time limit and a bound on each answer.
 */
import { request, type Dispatcher } from 'undici';
import { osvDatabaseOf, type OsvDatabase } from './database.js';
import { AuditError } from './errors.js';
import { asOsvRecord, type OsvRecord } from './osv.js';
import type { AuditQuery } from './audit.js';

export interface OsvApiOptions {
  readonly dispatcher?: Dispatcher;
  readonly signal?: AbortSignal;
  /** Per request; default 30 s. */
  readonly timeoutMs?: number;
  /** Per answer; default 32 MiB. */
  readonly maxResponseBytes?: number;
}

/** api.osv.dev takes at most 1000 queries per batch. */
const BATCH = 1000;
const PARALLEL = 8;

async function call(url: string, body: unknown, options: OsvApiOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const shown = url.replace(/\/\/[^/@]*@/, '//');
  let response;
  try {
    response = await request(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
  } catch (error) {
    throw new AuditError(
      'CR_ERR_AUDIT_API',
      `Cannot query the OSV API at ${shown}: ${timeout.aborted ? 'no answer in time' : (error as Error).message}`,
      { cause: error },
    );
  }
  const limit = options.maxResponseBytes ?? 32 * 1024 ** 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      response.body.destroy();
      throw new AuditError('CR_ERR_AUDIT_API', `Cannot query the OSV API at ${shown}: the answer is larger than ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  if (response.statusCode !== 200)
    throw new AuditError('CR_ERR_AUDIT_API', `Cannot query the OSV API at ${shown}: HTTP ${response.statusCode}`);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new AuditError('CR_ERR_AUDIT_API', `Cannot query the OSV API at ${shown}: the answer is not JSON`);
  }
}

export async function queryOsvApi(baseUrl: string, queries: readonly AuditQuery[], options: OsvApiOptions = {}): Promise<OsvDatabase> {
  const base = baseUrl.replace(/\/+$/, '');
  const ids = new Set<string>();
  for (let start = 0; start < queries.length; start += BATCH) {
    const batch = queries.slice(start, start + BATCH);
    const answer = (await call(
      `${base}/v1/querybatch`,
      { queries: batch.map((q) => ({ package: { name: q.name, ecosystem: q.ecosystem }, version: q.version })) },
      options,
    )) as {
      results?: { vulns?: { id?: unknown }[] }[];
    };
    if (!Array.isArray(answer?.results))
      throw new AuditError('CR_ERR_AUDIT_API', `Cannot query the OSV API at ${base}: the batch answer has no "results" list`);
    for (const result of answer.results) for (const vuln of result?.vulns ?? []) if (typeof vuln?.id === 'string') ids.add(vuln.id);
  }
  const records: OsvRecord[] = [];
  const queue = [...ids].sort();
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      records.push(asOsvRecord(await call(`${base}/v1/vulns/${encodeURIComponent(id)}`, undefined, options), `"${id}" from ${base}`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
  records.sort((a, b) => a.id.localeCompare(b.id));
  return osvDatabaseOf(records, base);
}
