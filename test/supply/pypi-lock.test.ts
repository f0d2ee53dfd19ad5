/**
 * A pixi.lock v7 with PyPI entries (fixtures/locks/pypi.v7.pixi.lock): the SBOMs list its PyPI
 * packages with `pkg:pypi` purls and their requires_dist edges, and the audit checks them under
 * their own names (requests and urllib3 against our hand-written OSV records of fixtures/osv/own).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/index.js';
import { runCli } from '../cli/run-cli.js';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { cyclonedxErrors, spdxErrors } from './schemas.js';

const LOCK = join(PROJECT_ROOT, 'fixtures', 'locks', 'pypi.v7.pixi.lock');
const RECORDS = join(PROJECT_ROOT, 'fixtures', 'osv', 'own');

describe('a lock with PyPI packages', () => {
  it('puts them into both SBOMs as pypi purls, valid against the schemas', async () => {
    const cdx = await runCli(['-f', LOCK, '--format', 'cyclonedx-json', '-q']);
    expect(cdx.code).toBe(0);
    expect(await cyclonedxErrors(cdx.stdout)).toBeNull();
    const bom = JSON.parse(cdx.stdout) as {
      components: { 'bom-ref': string; purl: string }[];
      dependencies: { ref: string; dependsOn: string[] }[];
    };
    expect(bom.components.map((c) => c.purl)).toEqual(
      expect.arrayContaining([
        'pkg:pypi/requests@2.31.0?file_name=requests-2.31.0-py3-none-any.whl',
        'pkg:pypi/urllib3@2.2.1?file_name=urllib3-2.2.1-py3-none-any.whl',
      ]),
    );
    expect(bom.dependencies.find((d) => d.ref === 'linux-64/pypi/requests')?.dependsOn).toContain('linux-64/pypi/urllib3');
    const spdx = await runCli(['-f', LOCK, '--format', 'spdx-json', '-q']);
    expect(spdx.code).toBe(0);
    expect(spdxErrors(JSON.parse(spdx.stdout))).toBeNull();
    expect(spdx.stdout).toContain('"pkg:pypi/urllib3@2.2.1?file_name=urllib3-2.2.1-py3-none-any.whl"');
  });

  it('audits them under their own names', async () => {
    // --offline: the lock's conda-forge packages would otherwise have the audit fetch conda-forge's
    // PyPI mapping from GitHub (seconds of DNS and TLS, or a download), which this test is not about.
    const { code, stdout, stderr } = await runCli(['audit', '-f', LOCK, '--db', RECORDS, '--json', '-q', '--offline']);
    // The source package is a reference, which the lock reader says; nothing else is said.
    expect(stderr).not.toContain('error');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as AuditReport;
    const linux = report.platforms.find((p) => p.platform === 'linux-64')!;
    expect(linux.findings.map((f) => [f.ecosystem, f.name, f.id]).sort()).toEqual([
      ['pypi', 'requests', 'CR-TEST-0001'],
      ['pypi', 'urllib3', 'CR-TEST-0002'],
    ]);
    // The local source tree has no version: listed, not passed.
    expect(linux.notCovered.map((n) => [n.ecosystem, n.name, n.reason])).toContainEqual([
      'pypi',
      expect.any(String),
      'a source tree without a version',
    ]);
  });
});
