/**
 * The SBOM exporters (`cyclonedx-json`, `spdx-json`): valid against the official schemas for a
 * multi-platform solve of real conda-forge records and for a lock given with -f, one component
 * per package and platform, purls, hashes, licenses and the dependency graph.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exportResolution, resolveEnvironments, type Resolution } from '../../src/index.js';
import { condaPurl, pypiPurl } from '../../src/exporters/sbom/inventory.js';
import { spdxExpression } from '../../src/exporters/sbom/spdx-license.js';
import { runCli } from '../cli/run-cli.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { cyclonedxErrors, spdxErrors } from './schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'cr-sbom-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = new Date('2026-01-01T00:00:00Z');

interface Cdx {
  components: {
    'bom-ref': string;
    name: string;
    purl: string;
    hashes?: { alg: string }[];
    licenses?: unknown[];
    properties: { name: string; value: string }[];
  }[];
  dependencies: { ref: string; dependsOn: string[] }[];
  metadata: { tools: { components: { name: string; version: string }[] } };
}
interface Spdx {
  packages: { SPDXID: string; name: string; licenseDeclared: string; externalRefs: { referenceLocator: string }[]; checksums: unknown[] }[];
  relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[];
  creationInfo: { creators: string[] };
}

describe('purls and licenses', () => {
  it('writes conda purls with build, channel, subdir and type qualifiers, sorted', () => {
    const record = {
      name: 'absl-py',
      version: '0.4.1',
      build: 'py36h06a4308_0',
      channel: 'main',
      subdir: 'linux-64',
      fn: 'absl-py-0.4.1-py36h06a4308_0.tar.bz2',
    };
    // The example of the purl specification's conda type.
    expect(condaPurl(record as never)).toBe('pkg:conda/absl-py@0.4.1?build=py36h06a4308_0&channel=main&subdir=linux-64&type=tar.bz2');
    expect(condaPurl({ ...record, channel: 'https://repo.example.com/my channel', fn: 'x.conda' } as never)).toBe(
      'pkg:conda/absl-py@0.4.1?build=py36h06a4308_0&channel=https:%2F%2Frepo.example.com%2Fmy%20channel&subdir=linux-64&type=conda',
    );
  });

  it('writes pypi purls with the PEP 503 name and the file name', () => {
    expect(pypiPurl('Jinja2', '3.1.4', 'https://files.pythonhosted.org/packages/x/Jinja2-3.1.4-py3-none-any.whl')).toBe(
      'pkg:pypi/jinja2@3.1.4?file_name=Jinja2-3.1.4-py3-none-any.whl',
    );
  });

  it('tells SPDX expressions from free text', () => {
    expect(spdxExpression('MIT')).toBe('MIT');
    expect(spdxExpression('bsd-3-clause')).toBe('BSD-3-Clause');
    expect(spdxExpression('GPL-2.0-or-later WITH GCC-exception-3.1')).toBe('GPL-2.0-or-later WITH GCC-exception-3.1');
    expect(spdxExpression('(MIT OR Apache-2.0) AND Zlib')).toBe('(MIT OR Apache-2.0) AND Zlib');
    expect(spdxExpression('LicenseRef-Proprietary')).toBe('LicenseRef-Proprietary');
    for (const text of ['BSD', 'Python Software Foundation', 'MIT and Apache-2.0', 'MIT OR', 'GPL WITH x', ''])
      expect(spdxExpression(text)).toBeUndefined();
  });
});

describeShared('SBOMs of a multi-platform solve of real conda-forge records', () => {
  const channel = join(CHANNELS_DIR, 'conda-forge-py39');
  let resolution: Resolution;
  const solve = async () =>
    (resolution ??= await resolveEnvironments(
      { specs: ['python=3.9', 'pip'], channels: [channel], platforms: ['linux-64', 'osx-arm64', 'win-64'] },
      { cacheDir: dir, env: {} },
    ));

  it('cyclonedx-json is valid CycloneDX 1.6 with one component per package and platform', async () => {
    const r = await solve();
    const text = exportResolution(r, 'cyclonedx-json', { now });
    expect(await cyclonedxErrors(text)).toBeNull();
    const bom = JSON.parse(text) as Cdx;
    const total = r.platforms.reduce((n, p) => n + p.records!.length, 0);
    expect(bom.components).toHaveLength(total);
    expect(new Set(bom.components.map((c) => c['bom-ref'])).size).toBe(total);
    // pip is noarch: three components, one per platform, each naming its platform.
    const pips = bom.components.filter((c) => c.name === 'pip');
    expect(pips.map((c) => c.properties.find((p) => p.name === 'conda-resolve:platform')?.value)).toEqual([
      'linux-64',
      'osx-arm64',
      'win-64',
    ]);
    expect(pips[0]!.purl).toMatch(/^pkg:conda\/pip@[^?]+\?build=[^&]+&channel=[^&]+&subdir=noarch&type=(conda|tar\.bz2)$/);
    expect(pips[0]!.hashes?.map((h) => h.alg)).toContain('SHA-256');
    expect(bom.metadata.tools.components[0]!.name).toBe('conda-resolve');
    // python depends on openssl on linux-64: the graph says so.
    const python = bom.dependencies.find((d) => d.ref === 'linux-64/conda/python')!;
    expect(python.dependsOn).toContain('linux-64/conda/openssl');
    expect(bom.dependencies.find((d) => d.ref === 'environment')!.dependsOn).toContain('linux-64/conda/pip');
    // Same packages, same serial number: the SBOM changes only when the environment does.
    expect(JSON.parse(exportResolution(r, 'cyclonedx-json', { now: new Date() })).serialNumber).toBe(
      (bom as unknown as { serialNumber: string }).serialNumber,
    );
  });

  it('spdx-json is valid SPDX 2.3 with purls, checksums, licenses and DEPENDS_ON', async () => {
    const r = await solve();
    const text = exportResolution(r, 'spdx-json', { now });
    const doc = JSON.parse(text) as Spdx;
    expect(spdxErrors(doc)).toBeNull();
    expect(doc.creationInfo.creators[0]).toMatch(/^Tool: conda-resolve-\d/);
    const total = r.platforms.reduce((n, p) => n + p.records!.length, 0);
    expect(doc.packages).toHaveLength(total);
    const python = doc.packages.find((p) => p.SPDXID === 'SPDXRef-Package-linux-64-conda-python')!;
    expect(python.licenseDeclared).toBe('Python-2.0');
    expect(python.externalRefs[0]!.referenceLocator).toMatch(/^pkg:conda\/python@3\.9/);
    expect(doc.relationships).toContainEqual({
      spdxElementId: 'SPDXRef-Package-linux-64-conda-python',
      relationshipType: 'DEPENDS_ON',
      relatedSpdxElement: 'SPDXRef-Package-linux-64-conda-openssl',
    });
  });

  it('renders both from a lock given with -f, on the command line', async () => {
    const r = await solve();
    const lock = join(dir, 'pixi.lock');
    writeFileSync(lock, exportResolution(r, 'pixi', { now }));
    for (const format of ['cyclonedx-json', 'spdx-json']) {
      const result = await runCli(['-f', lock, '--format', format], { cacheDir: dir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      if (format === 'spdx-json') expect(spdxErrors(JSON.parse(result.stdout))).toBeNull();
      else expect(await cyclonedxErrors(result.stdout)).toBeNull();
      expect(result.stdout).toContain('"pkg:conda/python@3.9');
    }
  });
});
