/**
 * conda-forge's conda-to-PyPI mapping is fetched at run time (as pixi does) and cached under
 * `<cache-dir>/pypi-mapping/`: here from a server on 127.0.0.1 publishing our hand-made mapping.
 * A mapping that cannot be had leaves conda-forge packages not covered, saying why and what to do;
 * `cache clean` removes the cached copy.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import type { AuditReport } from '../../src/audit/index.js';
import { cacheUsage, removeCache } from '../../src/cli/cache-usage.js';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { NetworkPolicy } from '../../repodata/net/network.js';
import { loadRemoteMapping } from '../../src/pypi-mapping/remote.js';
import { runCli } from '../cli/run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { serveMapping, type MappingServer } from './mapping-server.js';
import { pythonRecord } from './records.js';

const RECORDS = join(PROJECT_ROOT, 'fixtures', 'osv', 'own');
const dir = mkdtempSync(join(tmpdir(), 'cr-mapping-'));
let server: MappingServer;
const dispatcher = new Agent();
beforeAll(async () => {
  server = await serveMapping();
});
afterAll(async () => {
  await server.close();
  await dispatcher.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on: a server started and closed. */
async function deadUrl(): Promise<string> {
  const gone = await serveMapping();
  await gone.close();
  return gone.url;
}

describe('loading the conda-forge mapping', () => {
  it('fetches it once, caches it in a marked folder, and revalidates it with its ETag', async () => {
    const cacheDir = join(dir, 'cache-a');
    const first = await loadRemoteMapping({ url: server.url, cacheDir, offline: false, dispatcher });
    expect(first.ok && first.table.get('pytorch')).toEqual(['torch']);
    expect(first.ok && first.table.get('python')).toEqual([]);
    // The file names come from the URL (a random port): their order against CACHEDIR.TAG varies.
    const files = readdirSync(join(cacheDir, 'pypi-mapping'));
    expect(files).toHaveLength(3);
    expect(files).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^[0-9a-f]{16}\.json$/),
        expect.stringMatching(/^[0-9a-f]{16}\.state\.json$/),
        'CACHEDIR.TAG',
      ]),
    );
    // The fixture server says max-age=0: the next load asks again, and the server answers 304.
    const before = server.notModified;
    const again = await loadRemoteMapping({ url: server.url, cacheDir, offline: false, dispatcher });
    expect(again.ok && again.table.get('requests')).toEqual(['requests']);
    expect(server.notModified).toBe(before + 1);
  });

  it('offline: uses the cached copy, and without one says so', async () => {
    const cacheDir = join(dir, 'cache-b');
    const none = await loadRemoteMapping({ url: server.url, cacheDir, offline: true, dispatcher });
    expect(none).toEqual({ ok: false, reason: `offline, and the cache has no copy of the conda-forge PyPI mapping (${server.url})` });
    await loadRemoteMapping({ url: server.url, cacheDir, offline: false, dispatcher });
    const requests = server.requests;
    const cached = await loadRemoteMapping({ url: server.url, cacheDir, offline: true, dispatcher });
    expect(cached.ok && cached.table.get('jinja2')).toEqual(['jinja2']);
    expect(server.requests).toBe(requests);
  });

  it('a network failure: the reason without a cached copy, the cached copy with a warning', async () => {
    const url = await deadUrl();
    const failed = await loadRemoteMapping({ url, cacheDir: join(dir, 'cache-c'), offline: false, dispatcher });
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.reason).toMatch(/^Cannot fetch the conda-forge PyPI mapping: /);
    // A 404 (a wrong URL) is a reason too, never a crash.
    const missing = await loadRemoteMapping({
      url: server.url.replace('compressed_mapping', 'nothing'),
      cacheDir: join(dir, 'cache-c'),
      offline: false,
      dispatcher,
    });
    expect(missing).toEqual({
      ok: false,
      reason: `Cannot fetch the conda-forge PyPI mapping: ${server.url.replace('compressed_mapping', 'nothing')} answered HTTP 404`,
    });
    // Fetched once, then the server goes away: the (stale) cached copy serves, with a warning.
    const brief = await serveMapping();
    const cacheDir = join(dir, 'cache-f');
    await loadRemoteMapping({ url: brief.url, cacheDir, offline: false, dispatcher });
    await brief.close();
    const stale = await loadRemoteMapping({
      url: brief.url,
      cacheDir,
      offline: false,
      dispatcher,
      network: new NetworkPolicy({ maxRetries: 0 }),
    });
    expect(stale.ok && stale.table.get('pytorch')).toEqual(['torch']);
    expect(stale.ok && stale.warning).toMatch(/^Cannot fetch the conda-forge PyPI mapping: .*; using the copy cached on \d{4}-/);
  });

  it('`cache clean` removes the cached mapping', async () => {
    const cacheDir = join(dir, 'cache-d');
    await loadRemoteMapping({ url: server.url, cacheDir, offline: false, dispatcher });
    const usage = await cacheUsage(cacheDir);
    expect(usage.parts.find((p) => p.name === 'pypi-mapping')).toMatchObject({ files: 2, others: 0, skipped: null });
    await removeCache(usage);
    expect(existsSync(join(cacheDir, 'pypi-mapping'))).toBe(false);
  });
});

describe('conda-resolve audit and the fetched mapping', () => {
  const lock = join(dir, 'pixi.lock');
  const records = [pythonRecord('requests', '2.31.0'), pythonRecord('python', '3.12.3')].filter((r) => r.channel !== '@');
  writeFileSync(
    lock,
    registerBuiltinExporters().render('pixi', [{ platform: 'linux-64', records, channels: ['conda-forge'] }], {
      toolName: 'conda-resolve',
      toolVersion: '0',
      now: new Date('2026-01-01T00:00:00Z'),
    }),
  );

  it('checks conda-forge packages under the names of the mapping at --pypi-mapping-url', async () => {
    const cacheDir = join(dir, 'cache-e');
    const { code, stdout, stderr } = await runCli(['audit', '-f', lock, '--db', RECORDS, '--json', '--pypi-mapping-url', server.url], {
      cwd: dir,
      cacheDir,
    });
    expect([code, stderr]).toEqual([0, '']);
    expect((JSON.parse(stdout) as AuditReport).platforms[0]!.findings.map((f) => f.name)).toEqual(['requests']);
    // Offline afterwards, the cached copy serves.
    const offline = await runCli(['audit', '-f', lock, '--db', RECORDS, '--json', '--offline', '--pypi-mapping-url', server.url], {
      cwd: dir,
      cacheDir,
    });
    expect((JSON.parse(offline.stdout) as AuditReport).platforms[0]!.findings.map((f) => f.name)).toEqual(['requests']);
  });

  it('offline without a cached copy: conda-forge packages are not covered, saying how to give a mapping', async () => {
    const env = { CONDA_RESOLVE_PYPI_MAPPING_URL: server.url };
    const { code, stdout, stderr } = await runCli(['audit', '-f', lock, '--db', RECORDS, '--json', '--offline'], { cwd: dir, env });
    expect(code).toBe(0);
    expect(stderr).toContain('conda-forge packages are not covered: offline, and the cache has no copy of the conda-forge PyPI mapping');
    const report = JSON.parse(stdout) as AuditReport;
    expect(report.platforms[0]!.findings).toEqual([]);
    expect(report.platforms[0]!.notCovered.map((n) => [n.name, n.reason])).toEqual([
      [
        'python',
        `the conda-forge PyPI mapping could not be had (offline, and the cache has no copy of the conda-forge PyPI mapping (${server.url})); give one with --pypi-mapping conda-forge=FILE`,
      ],
      [
        'requests',
        `the conda-forge PyPI mapping could not be had (offline, and the cache has no copy of the conda-forge PyPI mapping (${server.url})); give one with --pypi-mapping conda-forge=FILE`,
      ],
    ]);
  });

  it('a network failure is reported the same way, and a user mapping file needs no fetch', async () => {
    const url = await deadUrl();
    // No retries: their backoff waited seconds for a port nobody listens on, and retrying is the
    // network layer's own test (repodata/net), not this one's.
    const failed = await runCli(['audit', '-f', lock, '--db', RECORDS, '--json', '--pypi-mapping-url', url], {
      cwd: dir,
      env: { CONDA_REMOTE_MAX_RETRIES: '0' },
    });
    expect(failed.code).toBe(0);
    expect((JSON.parse(failed.stdout) as AuditReport).platforms[0]!.notCovered.map((n) => n.name)).toEqual(['python', 'requests']);
    const file = join(dir, 'map.json');
    writeFileSync(file, JSON.stringify({ requests: 'requests', python: null }));
    const user = await runCli(
      ['audit', '-f', lock, '--db', RECORDS, '--json', '--pypi-mapping', `conda-forge=${file}`, '--pypi-mapping-url', url],
      { cwd: dir },
    );
    expect([user.code, user.stderr]).toEqual([0, '']);
    expect((JSON.parse(user.stdout) as AuditReport).platforms[0]!.findings.map((f) => f.name)).toEqual(['requests']);
  });
});
