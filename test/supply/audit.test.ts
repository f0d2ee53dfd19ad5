/**
 * `conda-resolve audit` against a small OSV database of hand-written records (fixtures/osv/own, described in its
 * README): PyPI ranges with `fixed` and `last_affected`, a withdrawn record ignored, an ecosystem
 * we do not map, conda packages checked under their PyPI names, packages nothing can check listed
 * as not covered; the zip as OSV publishes it, bad databases refused clearly, SARIF valid.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { affects } from '../../src/audit/affected.js';
import { auditEnvironments, loadOsvDatabase, osvDatabaseOf, type AuditReport } from '../../src/audit/index.js';
import { cvss3BaseScore } from '../../src/audit/severity.js';
import { registerBuiltinExporters } from '../../src/exporters/builtin.js';
import { parseMappingFile, pypiMapping } from '../../src/pypi-mapping/index.js';
import { pythonRecord } from './records.js';
import { runCli } from '../cli/run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { sarifErrors } from './schemas.js';
import { MAPPING_FIXTURE, serveMapping, type MappingServer } from './mapping-server.js';

const RECORDS = join(PROJECT_ROOT, 'fixtures', 'osv', 'own');
const dir = mkdtempSync(join(tmpdir(), 'cr-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** OSV's all.zip layout: one <ID>.json per record at the top. */
function writeZip(path: string, extra: Record<string, Uint8Array> = {}): string {
  const files: Record<string, Uint8Array> = { ...extra };
  for (const name of readdirSync(RECORDS)) files[name] = readFileSync(join(RECORDS, name));
  writeFileSync(path, zipSync(files));
  return path;
}

const record = pythonRecord;

/** Our hand-made conda-forge mapping (fixtures/pypi-mapping), in place of the one fetched at run time. */
const condaForge = { table: parseMappingFile(MAPPING_FIXTURE, readFileSync(MAPPING_FIXTURE, 'utf8')), source: 'fixture' };
const withConda = (): ReturnType<typeof pypiMapping> => pypiMapping({ condaForge });

const ENVIRONMENT = [
  record('requests', '2.31.0'), // CR-TEST-0001: < 2.32.2
  record('urllib3', '2.2.1'), // CR-TEST-0002: second range 2.0.0 .. 2.2.2
  record('jinja2', '3.1.4'), // CR-TEST-0003: fixed in 3.1.4 -> not affected
  record('py', '1.11.0'), // CR-TEST-0004: last_affected 1.11.0 -> affected
  record('cryptography', '3.3.1', 'linux-64'), // CR-TEST-0009 is withdrawn -> not reported
  record('python', '3.12.3', 'linux-64'), // not a PyPI package: not covered
  record('__glibc', '2.28', '@', '@'), // virtual: left out
];

describe('OSV ranges', () => {
  const pypi = (events: object[], versions?: string[]) =>
    ({ package: { ecosystem: 'PyPI', name: 'x' }, ranges: [{ type: 'ECOSYSTEM', events }], ...(versions ? { versions } : {}) }) as never;

  it('reads introduced, fixed, last_affected and limit in PEP 440 order', () => {
    expect(affects(pypi([{ introduced: '0' }, { fixed: '2.32.2' }]), '2.31.0')).toBe('affected');
    expect(affects(pypi([{ introduced: '0' }, { fixed: '2.32.2' }]), '2.32.2')).toBe('not-affected');
    expect(affects(pypi([{ introduced: '0' }, { fixed: '2.32.2' }]), '2.32.2rc1')).toBe('affected');
    expect(affects(pypi([{ introduced: '0' }, { last_affected: '1.11.0' }]), '1.11.0')).toBe('affected');
    expect(affects(pypi([{ introduced: '0' }, { last_affected: '1.11.0' }]), '1.11.0.post1')).toBe('not-affected');
    expect(affects(pypi([{ introduced: '2.0.0' }, { fixed: '2.2.2' }]), '1.26.18')).toBe('not-affected');
    // 10.0 > 9.0 under PEP 440, not as strings.
    expect(affects(pypi([{ introduced: '9.0' }, { fixed: '10.1' }]), '10.0')).toBe('affected');
    expect(affects(pypi([{ introduced: '1.0' }, { limit: '2.0' }]), '2.5')).toBe('not-affected');
    expect(affects(pypi([{ introduced: '1.0' }, { limit: '2.0' }]), '1.5')).toBe('affected');
    expect(affects(pypi([], ['3.1', '3.1.1']), '3.1.0')).toBe('affected');
    expect(affects(pypi([{ introduced: '0' }, { fixed: '2.0' }]), 'not a version')).toBe('unknown');
  });

  it('reads SEMVER ranges by semver', () => {
    const entry = {
      package: { ecosystem: 'PyPI', name: 'x' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '1.2.0' }, { fixed: '1.10.0' }] }],
    } as never;
    expect(affects(entry, '1.9.0')).toBe('affected');
    expect(affects(entry, '1.10.0')).toBe('not-affected');
  });

  it('scores CVSS v3.1 vectors as FIRST does', () => {
    // NVD's scores for the fixture records.
    expect(cvss3BaseScore('CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:H/I:H/A:N')).toBe(5.6);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L')).toBe(5.3);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H')).toBe(8.8);
    expect(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H')).toBe(10);
    expect(cvss3BaseScore('CVSS:4.0/AV:N')).toBeUndefined();
  });
});

describe('auditing environments against the OSV test records', () => {
  let report: AuditReport;
  const run = async () =>
    (report ??= auditEnvironments([{ platform: 'linux-64', records: ENVIRONMENT }], await loadOsvDatabase(RECORDS), withConda()));

  it('finds the advisories whose ranges cover the versions, and only those', async () => {
    const r = await run();
    const found = r.platforms[0]!.findings.map((f) => `${f.name} ${f.id} ${f.severity}`);
    expect(found.sort()).toEqual(['py CR-TEST-0004 MODERATE', 'requests CR-TEST-0001 MODERATE', 'urllib3 CR-TEST-0002 MODERATE']);
    expect(r.database).toEqual({ source: RECORDS, records: 9, withdrawn: 1 });
    const urllib3 = r.platforms[0]!.findings.find((f) => f.name === 'urllib3')!;
    expect(urllib3.fixed).toEqual(['2.2.2']);
    expect(urllib3.url).toBe('https://nvd.nist.gov/vuln/detail/CVE-2024-37891');
  });

  it('lists what nothing can check as not covered, and leaves virtual packages out', async () => {
    const r = await run();
    expect(r.platforms[0]!.notCovered).toEqual([
      {
        platform: 'linux-64',
        ecosystem: 'conda',
        name: 'python',
        version: '3.12.3',
        reason: 'not a PyPI package in the conda-forge mapping, and OSV has no conda ecosystem',
      },
    ]);
    expect(r.platforms[0]!.packages).toBe(6);
    expect(r.platforms[0]!.checked).toBe(5);
  });

  it('does not match an advisory of an ecosystem we do not map (npm lodash)', async () => {
    const database = await loadOsvDatabase(RECORDS);
    const r = auditEnvironments(
      [
        {
          platform: 'linux-64',
          records: [record('lodash', '4.17.20', 'noarch', 'https://example.com/channel')],
          pypi: [{ name: 'lodash', version: '4.17.20' }],
        },
      ],
      database,
      pypiMapping({ user: [{ channel: 'https://example.com/channel', file: 'map.json', table: new Map([['lodash', ['lodash']]]) }] }),
    );
    expect(r.platforms[0]!.findings).toEqual([]);
    expect(r.platforms[0]!.checked).toBe(2);
  });

  it('says when a channel has no mapping', () => {
    const r = auditEnvironments(
      [{ platform: 'linux-64', records: [record('requests', '2.31.0', 'noarch', 'https://example.com/channel')] }],
      osvDatabaseOf([], 'empty'),
      pypiMapping(),
    );
    expect(r.platforms[0]!.notCovered[0]!.reason).toBe(
      'no conda-to-PyPI mapping for channel https://example.com/channel (give one with --pypi-mapping)',
    );
  });

  it('checks PyPI packages of a lock under their own names', async () => {
    const r = auditEnvironments(
      [{ platform: 'linux-64', records: [], pypi: [{ name: 'Jinja2', version: '3.1.3' }] }],
      await loadOsvDatabase(RECORDS),
      pypiMapping(),
    );
    expect(r.platforms[0]!.findings.map((f) => [f.ecosystem, f.name, f.id])).toEqual([['pypi', 'Jinja2', 'CR-TEST-0003']]);
  });
});

describe('conda-resolve audit', () => {
  // conda-forge's mapping is fetched at run time: from our server here (CONDA_RESOLVE_PYPI_MAPPING_URL).
  let mappingServer: MappingServer;
  beforeAll(async () => {
    mappingServer = await serveMapping();
    process.env.CONDA_RESOLVE_PYPI_MAPPING_URL = mappingServer.url;
  });
  afterAll(async () => {
    delete process.env.CONDA_RESOLVE_PYPI_MAPPING_URL;
    await mappingServer.close();
  });
  const lock = join(dir, 'pixi.lock');
  writeFileSync(
    lock,
    registerBuiltinExporters().render(
      'pixi',
      [{ platform: 'linux-64', records: ENVIRONMENT.filter((r) => r.channel !== '@'), channels: ['conda-forge'] }],
      {
        toolName: 'conda-resolve',
        toolVersion: '0',
        now: new Date('2026-01-01T00:00:00Z'),
      },
    ),
  );
  const zip = writeZip(join(dir, 'all.zip'));

  it('prints a table for a lock and an OSV zip', async () => {
    const { code, stdout, stderr } = await runCli(['audit', '-f', lock, '--db', zip], { cwd: dir });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`OSV database: ${zip} (9 records, 1 withdrawn, ignored)`);
    expect(stdout).toContain('linux-64: 5 of 6 packages checked, 3 advisories for 3 packages');
    expect(stdout).toMatch(
      /MODERATE {2}requests 2\.31\.0 {2}CR-TEST-0001 {2}fixed in 2\.32\.2 {2}requests: a Session that once sent verify=False/,
    );
    expect(stdout).toContain('    not a PyPI package in the conda-forge mapping, and OSV has no conda ecosystem: python 3.12.3');
  });

  it('sets the exit status with --fail-on', async () => {
    expect((await runCli(['audit', '-f', lock, '--db', zip, '--fail-on', 'MODERATE', '-q'], { cwd: dir })).code).toBe(1);
    expect((await runCli(['audit', '-f', lock, '--db', zip, '--fail-on', 'high', '-q'], { cwd: dir })).code).toBe(0);
    const bad = await runCli(['audit', '-f', lock, '--db', zip, '--fail-on', 'SEVERE'], { cwd: dir });
    expect([bad.code, bad.stderr]).toEqual([2, 'conda-resolve: error: --fail-on must be LOW, MODERATE, HIGH or CRITICAL, not "SEVERE"\n']);
  });

  it('writes JSON and valid SARIF 2.1.0 located in the lock', async () => {
    const json = JSON.parse((await runCli(['audit', '-f', lock, '--db', zip, '--json'], { cwd: dir })).stdout) as AuditReport;
    expect(json.summary).toEqual({ findings: 3, bySeverity: { LOW: 0, MODERATE: 3, HIGH: 0, CRITICAL: 0, UNKNOWN: 0 }, notCovered: 1 });
    const out = join(dir, 'audit.sarif');
    expect((await runCli(['audit', '-f', lock, '--db', zip, '--format', 'sarif', '-o', out], { cwd: dir })).code).toBe(0);
    const sarif = JSON.parse(readFileSync(out, 'utf8')) as {
      runs: {
        results: {
          ruleId: string;
          locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
        }[];
      }[];
    };
    expect(sarifErrors(sarif)).toBeNull();
    const result = sarif.runs[0]!.results.find((r) => r.ruleId === 'CR-TEST-0001')!;
    expect(result.locations[0]!.physicalLocation.artifactLocation.uri).toBe('pixi.lock');
    const line = readFileSync(lock, 'utf8').split('\n')[result.locations[0]!.physicalLocation.region.startLine - 1];
    expect(line).toContain('requests-2.31.0-pyhd8ed1ab_0.conda');
  });

  it('reads a folder of OSV files and a user mapping file', async () => {
    const mapping = join(dir, 'map.json');
    writeFileSync(mapping, JSON.stringify({ python: null, requests: 'requests' }));
    const { code, stdout } = await runCli(['audit', '-f', lock, '--db', RECORDS, '--pypi-mapping', `conda-forge=${mapping}`, '--json'], {
      cwd: dir,
    });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as AuditReport;
    // Only requests is mapped now: the others are not covered.
    expect(report.platforms[0]!.findings.map((f) => f.name)).toEqual(['requests']);
    expect(report.platforms[0]!.notCovered.map((n) => n.name)).toEqual(['cryptography', 'jinja2', 'py', 'python', 'urllib3']);
  });

  it('refuses bad databases clearly, writing nothing', async () => {
    const out = join(dir, 'never.sarif');
    const run = (db: string) => runCli(['audit', '-f', lock, '--db', db, '--format', 'sarif', '-o', out, '-q'], { cwd: dir });
    const corrupt = join(dir, 'corrupt.zip');
    const bytes = readFileSync(zip);
    writeFileSync(corrupt, bytes.subarray(0, Math.floor(bytes.length / 2)));
    let r = await run(corrupt);
    expect([r.code, r.stderr]).toEqual([
      1,
      expect.stringMatching(/^conda-resolve: error: Cannot read OSV database ".*corrupt\.zip": a damaged zip archive/),
    ]);
    writeFileSync(join(dir, 'text.zip'), 'not a zip at all, but long enough to be looked at');
    r = await run(join(dir, 'text.zip'));
    expect(r.stderr).toContain("not a zip archive (give OSV's all.zip or a folder of OSV JSON files)");
    writeZip(join(dir, 'not-osv.zip'), { 'PYSEC-0000-1.json': strToU8('{"name": "requests", "version": "1"}') });
    r = await run(join(dir, 'not-osv.zip'));
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining('Cannot read OSV record "PYSEC-0000-1.json" in "')]);
    expect(r.stderr).toContain('no "id"');
    writeZip(join(dir, 'not-json.zip'), { 'X.json': strToU8('{"id": "X",') });
    r = await run(join(dir, 'not-json.zip'));
    expect(r.stderr).toContain('Cannot read OSV record "X.json"');
    expect(r.stderr).toContain('not JSON');
    r = await run(join(dir, 'missing.zip'));
    expect(r.stderr).toMatch(/Cannot read OSV database ".*missing\.zip": no such file or folder/);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a record that inflates beyond the limit before inflating it (a zip bomb)', async () => {
    const huge = join(dir, 'huge.zip');
    // 17 MiB of zeros, just over the limit, deflate to about 17 KiB.
    const bomb = zipSync({ 'HUGE.json': new Uint8Array(17 * 1024 * 1024) });
    writeFileSync(huge, bomb);
    await expect(loadOsvDatabase(huge)).rejects.toMatchObject({
      code: 'CR_ERR_AUDIT_DB_TOO_LARGE',
      message: expect.stringContaining('entry "HUGE.json" inflates to 17825792 bytes, more than the limit of 16777216 for one record'),
    });
    // The same entry with a header that lies (declares 100 bytes): inflating stops at the limit.
    const lying = Buffer.from(bomb);
    lying.writeUInt32LE(100, 22); // local file header: uncompressed size
    const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lying.writeUInt32LE(100, central + 24); // central directory: uncompressed size
    writeFileSync(join(dir, 'lying.zip'), lying);
    await expect(loadOsvDatabase(join(dir, 'lying.zip'))).rejects.toMatchObject({
      code: 'CR_ERR_AUDIT_DB_TOO_LARGE',
      message: expect.stringContaining('entry "HUGE.json" inflates to more than the limit of 16777216 bytes for one record'),
    });
    const folder = join(dir, 'huge-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'A.json'), '{"id": "A", "modified": "2024-01-01T00:00:00Z"}');
    await expect(loadOsvDatabase(folder, { maxRecordBytes: 10 })).rejects.toMatchObject({ code: 'CR_ERR_AUDIT_DB_TOO_LARGE' });
  });

  it('needs a database', async () => {
    const r = await runCli(['audit', '-f', lock], { cwd: dir, env: { CONDA_OSV_DB: undefined, CONDARC: join(dir, 'none') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('audit needs an OSV database: --db PATH');
  });
});
