/**
 * `cyclonedx-json`: a CycloneDX 1.6 SBOM (cyclonedx.org/docs/1.6/json) of every platform's
 * packages: one component per package and platform with its purl, hashes and license, the
 * dependency graph, and conda-resolve as the tool that wrote it. The environment itself is the
 * metadata component; it depends on each platform's top-level packages.
 */
import { contentUuid } from './sbom/content-uuid.js';
import { inventory, type SbomPackage } from './sbom/inventory.js';
import type { ExportContext, ExportEnvironment, Exporter } from './types.js';

const ROOT_REF = 'environment';

function component(pkg: SbomPackage): Record<string, unknown> {
  const hashes = [...(pkg.sha256 ? [{ alg: 'SHA-256', content: pkg.sha256 }] : []), ...(pkg.md5 ? [{ alg: 'MD5', content: pkg.md5 }] : [])];
  // A single identifier is a license `id`; anything with operators is an `expression` (CycloneDX 1.6).
  const licenses =
    pkg.license === null
      ? undefined
      : 'name' in pkg.license
        ? [{ license: { name: pkg.license.name } }]
        : /[\s()]/.test(pkg.license.expression) || pkg.license.expression.startsWith('LicenseRef-') || pkg.license.expression.endsWith('+')
          ? [{ expression: pkg.license.expression }]
          : [{ license: { id: pkg.license.expression } }];
  return {
    type: 'library',
    'bom-ref': pkg.ref,
    name: pkg.name,
    ...(pkg.version ? { version: pkg.version } : {}),
    ...(hashes.length > 0 ? { hashes } : {}),
    ...(licenses ? { licenses } : {}),
    purl: pkg.purl,
    ...(/^https?:\/\//.test(pkg.url) ? { externalReferences: [{ type: 'distribution', url: pkg.url }] } : {}),
    properties: [
      { name: 'conda-resolve:platform', value: pkg.platform },
      { name: 'conda-resolve:ecosystem', value: pkg.ecosystem },
    ],
  };
}

export function cyclonedxJson(environments: readonly ExportEnvironment[], context: ExportContext): string {
  const packages = inventory(environments);
  const components = packages.map(component);
  const dependencies = [
    { ref: ROOT_REF, dependsOn: packages.filter((p) => p.topLevel).map((p) => p.ref) },
    ...packages.map((p) => ({ ref: p.ref, dependsOn: p.dependsOn })),
  ];
  const body = { components, dependencies };
  const bom = {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${contentUuid(JSON.stringify(body))}`,
    version: 1,
    metadata: {
      timestamp: context.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      tools: { components: [{ type: 'application', name: context.toolName, version: context.toolVersion }] },
      component: {
        type: 'application',
        'bom-ref': ROOT_REF,
        name: 'conda environment',
        description: `Solved for ${environments.map((e) => e.platform).join(', ')}`,
      },
      properties: environments.map((e) => ({ name: 'conda-resolve:platform', value: e.platform })),
    },
    ...body,
  };
  return `${JSON.stringify(bom, null, 2)}\n`;
}

export const cyclonedxJsonExporter: Exporter = {
  name: 'cyclonedx-json',
  aliases: ['cyclonedx', 'cdx'],
  description: 'CycloneDX 1.6 SBOM (JSON) of every platform',
  category: 'lockfile',
  mediaType: 'application/vnd.cyclonedx+json',
  defaultFilenames: ['*.cdx.json', 'bom.json'],
  exportMultiplatform: cyclonedxJson,
};
