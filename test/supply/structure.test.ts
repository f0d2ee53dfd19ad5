/**
 * The SPDX 2.3 and SARIF 2.1.0 checks the supply-chain tests rely on: our structural checks (always
 * run) accept a minimal valid document and name what is wrong in a broken one; the official schemas,
 * when present under ../shared/third-party, agree on the same documents.
 */
import { describe, expect, it } from 'vitest';
import { officialSarif, officialSpdx, sarifErrors, spdxErrors } from './schemas.js';
import { sarifStructureErrors, spdxStructureErrors } from './structure.js';

const spdx = {
  spdxVersion: 'SPDX-2.3',
  dataLicense: 'CC0-1.0',
  SPDXID: 'SPDXRef-DOCUMENT',
  name: 'environment',
  documentNamespace: 'https://example.com/spdxdocs/environment-1',
  creationInfo: { created: '2026-01-01T00:00:00Z', creators: ['Tool: conda-resolve-0'] },
  packages: [
    {
      SPDXID: 'SPDXRef-Package-requests',
      name: 'requests',
      versionInfo: '2.32.3',
      downloadLocation: 'NOASSERTION',
      filesAnalyzed: false,
      checksums: [{ algorithm: 'SHA256', checksumValue: 'ab'.repeat(32) }],
      externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:conda/requests@2.32.3' }],
    },
  ],
  relationships: [{ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-Package-requests' }],
};

const sarif = {
  $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
  version: '2.1.0',
  runs: [
    {
      tool: { driver: { name: 'conda-resolve', rules: [{ id: 'CR-TEST-0001', defaultConfiguration: { level: 'warning' } }] } },
      results: [
        {
          ruleId: 'CR-TEST-0001',
          ruleIndex: 0,
          level: 'warning',
          message: { text: 'requests 2.31.0 is affected' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'pixi.lock' }, region: { startLine: 12 } } }],
        },
      ],
    },
  ],
};

describe('SPDX 2.3 structure', () => {
  it('accepts a minimal valid document', () => {
    expect(spdxStructureErrors(spdx)).toEqual([]);
    expect(spdxErrors(spdx)).toBeNull();
  });

  it('names each required field that is missing or malformed', () => {
    const { name: _name, ...unnamed } = spdx;
    expect(spdxStructureErrors(unnamed)).toEqual(['name is required (6.4)']);
    expect(spdxStructureErrors({ ...spdx, spdxVersion: 'SPDX-2.2' })).toEqual(['spdxVersion must be "SPDX-2.3" (6.1)']);
    expect(spdxStructureErrors({ ...spdx, documentNamespace: 'https://example.com/doc#1' })).toHaveLength(1);
    expect(spdxStructureErrors({ ...spdx, creationInfo: { created: '2026-01-01', creators: [] } })).toHaveLength(2);
    const [pkg] = spdx.packages;
    expect(spdxStructureErrors({ ...spdx, packages: [{ ...pkg, SPDXID: 'SPDXRef-a_b', downloadLocation: undefined }] })).toEqual([
      'packages[0].SPDXID must be SPDXRef- and letters, digits, "." or "-" (7.2)',
      'packages[0].downloadLocation is required (7.7)',
      'relationships[0]: known elements and an upper-case type (11.1)',
    ]);
    expect(
      spdxStructureErrors({ ...spdx, packages: [{ ...pkg, checksums: [{ algorithm: 'sha256', checksumValue: 'AB' }] }] }),
    ).toHaveLength(1);
    expect(spdxErrors({ ...spdx, dataLicense: 'MIT' })).not.toBeNull();
  });
});

describe('SARIF 2.1.0 structure', () => {
  it('accepts a minimal valid log', () => {
    expect(sarifStructureErrors(sarif)).toEqual([]);
    expect(sarifErrors(sarif)).toBeNull();
  });

  it('names what is wrong', () => {
    expect(sarifStructureErrors({ version: '2.1.0' })).toEqual(['runs is required (3.13.4)']);
    expect(sarifErrors({ version: '2.1.0' })).not.toBeNull();
    const [run] = sarif.runs;
    const [result] = run!.results;
    const broken = {
      ...sarif,
      runs: [
        {
          ...run,
          results: [
            {
              ...result,
              ruleIndex: 1,
              level: 'fatal',
              message: {},
              locations: [{ physicalLocation: { artifactLocation: { uri: 'pixi.lock' }, region: { startLine: 0 } } }],
            },
          ],
        },
      ],
    };
    expect(sarifStructureErrors(broken)).toEqual([
      'runs[0].results[0].message needs text or id (3.27.11, 3.11.7)',
      'runs[0].results[0].level (3.27.10)',
      'runs[0].results[0].ruleIndex must index tool.driver.rules (3.27.6)',
      'runs[0].results[0].locations[0].physicalLocation.region.startLine >= 1 (3.30.5)',
    ]);
    expect(sarifStructureErrors({ version: '2.1.0', runs: [{ tool: {} }] })).toEqual(['runs[0].tool.driver is required (3.14.6, 3.18.2)']);
  });
});

// Skipped (the helper says which file is missing) without ../shared/third-party.
describe.skipIf(officialSpdx() === null)('the official SPDX 2.3 schema', () => {
  it('agrees with the structural check on these documents', () => {
    const validate = officialSpdx()!;
    expect(validate(spdx)).toBe(true);
    expect(validate({ ...spdx, SPDXID: undefined })).toBe(false);
  });
});

describe.skipIf(officialSarif() === null)('the official SARIF 2.1.0 schema', () => {
  it('agrees with the structural check on these logs', () => {
    const validate = officialSarif()!;
    expect(validate(sarif)).toBe(true);
    expect(validate({ version: '2.1.0' })).toBe(false);
  });
});
