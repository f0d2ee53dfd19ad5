/**
 * `audit --osv-api URL` goes through the same network configuration as the channels (issue 36):
 * .condarc's `proxy_servers` and `ssl_verify`. The OSV API stand-in is on a made-up host
 * (`conda.internal.test`) that only the forward proxy written for the tests can reach, over HTTP
 * (absolute-form POST) and HTTPS (CONNECT, its self-signed certificate trusted through
 * `ssl_verify: <path>`). Before, the API client used Node's own network and never saw the proxy.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { call, injectTestServer } from '../http/helpers/test-server.js';
import { NO_PROXY_ENV } from '../helpers/proxy-env.js';

const TLS = join(PROJECT_ROOT, 'fixtures', 'tls');
const HOST = 'conda.internal.test';
const LOCK = join(PROJECT_ROOT, 'fixtures', 'action', 'audit.pixi.lock');
const MAPPING = join(PROJECT_ROOT, 'fixtures', 'pypi-mapping', 'conda-forge.json');
const RECORD = readFileSync(join(PROJECT_ROOT, 'fixtures', 'osv', 'own', 'CR-TEST-0001.json'), 'utf8');

/** api.osv.dev's v1 as far as the audit asks it: requests has CR-TEST-0001, nothing else has any. */
function osvApi(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/v1/querybatch') {
      const { queries } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { queries: { package: { name: string } }[] };
      const results = queries.map((q) => (q.package.name === 'requests' ? { vulns: [{ id: 'CR-TEST-0001' }] } : {}));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    } else if (req.method === 'GET' && req.url === '/v1/vulns/CR-TEST-0001') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(RECORD);
    } else {
      res.writeHead(404).end();
    }
  });
}

let plain: Server;
let secure: Server;
let proxy: ForwardProxy;
const port = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  plain = createHttpServer(osvApi);
  secure = createHttpsServer({ key: readFileSync(join(TLS, 'channel.key')), cert: readFileSync(join(TLS, 'channel.crt')) }, osvApi);
  await Promise.all([plain, secure].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  proxy = await startForwardProxy({ [HOST]: '127.0.0.1' });
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([plain, secure].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

const NO_PROXY_VARS = NO_PROXY_ENV;

function homeWith(condarc: string): Record<string, string | undefined> {
  const dir = tempDir('cr-osv-home-');
  writeFileSync(join(dir, '.condarc'), condarc);
  return {
    ...NO_PROXY_VARS,
    HOME: dir,
    CONDARC: undefined,
    REQUESTS_CA_BUNDLE: undefined,
    SSL_CERT_FILE: undefined,
    CONDA_REMOTE_MAX_RETRIES: '0',
  };
}

async function auditThrough(api: string, condarc: string): Promise<{ code: number | null; stderr: string; ids: string[] }> {
  const { code, stdout, stderr } = await runCli(
    ['audit', '-f', LOCK, '--osv-api', api, '--pypi-mapping', `conda-forge=${MAPPING}`, '--json', '-q'],
    { env: homeWith(condarc) },
  );
  const report = stdout ? (JSON.parse(stdout) as { platforms: { findings: { id: string; name: string }[] }[] }) : { platforms: [] };
  return { code, stderr, ids: report.platforms.flatMap((p) => p.findings.map((f) => `${f.name} ${f.id}`)) };
}

describe("audit --osv-api through .condarc's network settings", () => {
  it('proxy_servers http: the batch query and the record go through the proxy', async () => {
    const api = `http://${HOST}:${port(plain)}`;
    const before = proxy.log.length;
    const run = await auditThrough(api, `proxy_servers:\n  http: ${proxy.url}\n`);
    expect(run.stderr).not.toContain('Cannot query the OSV API');
    expect(run.code).toBe(0);
    expect(run.ids).toEqual(['requests CR-TEST-0001']);
    expect(proxy.log.slice(before)).toEqual([`POST ${api}/v1/querybatch`, `GET ${api}/v1/vulns/CR-TEST-0001`]);
  });

  it("proxy_servers https and ssl_verify: a CONNECT tunnel, the API's certificate checked against the CA bundle", async () => {
    const api = `https://${HOST}:${port(secure)}`;
    const before = proxy.log.length;
    const run = await auditThrough(api, `proxy_servers:\n  https: ${proxy.url}\nssl_verify: ${join(TLS, 'channel.crt')}\n`);
    expect(run.stderr).not.toContain('Cannot query the OSV API');
    expect(run.ids).toEqual(['requests CR-TEST-0001']);
    expect(proxy.log.slice(before)).toContain(`CONNECT ${HOST}:${port(secure)}`);
  });

  it("without the CA bundle the API's self-signed certificate is refused, saying so", async () => {
    const run = await auditThrough(`https://${HOST}:${port(secure)}`, `proxy_servers:\n  https: ${proxy.url}\n`);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/Cannot query the OSV API at https:\/\/conda\.internal\.test:\d+\/v1\/querybatch: .*certificate/i);
  });
});

describe('POST /audit on a server with --osv-api and --condarc', () => {
  it("asks the operator's OSV API through the proxy of serve --condarc", async () => {
    const api = `http://${HOST}:${port(plain)}`;
    const condarc = join(tempDir('cr-osv-serve-'), 'server.condarc');
    writeFileSync(condarc, `proxy_servers:\n  http: ${proxy.url}\nremote_max_retries: 0\n`);
    const server = await injectTestServer({ condarc, 'osv-api': api, 'pypi-mapping': MAPPING, 'allow-channel': ['conda-forge'] });
    try {
      const before = proxy.log.length;
      const answer = await call(server.app, 'POST', '/audit', { json: { file: readFileSync(LOCK, 'utf8'), filename: 'pixi.lock' } });
      expect(answer.status, answer.text).toBe(200);
      const report = answer.json<{ platforms: { findings: { id: string; name: string }[] }[] }>();
      expect(report.platforms.flatMap((p) => p.findings.map((f) => `${f.name} ${f.id}`))).toEqual(['requests CR-TEST-0001']);
      expect(proxy.log.slice(before)).toEqual([`POST ${api}/v1/querybatch`, `GET ${api}/v1/vulns/CR-TEST-0001`]);
    } finally {
      await server.close();
    }
  });
});
