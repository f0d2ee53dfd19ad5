/**
 * `spdx-json`: an SPDX 2.3 document (spdx.github.io/spdx-spec/v2.3) of every platform's packages:
 * one package per record and platform with its purl (`externalRefs`), checksums, declared license
 * and download location, `DEPENDS_ON` relationships, and conda-resolve as the creator. A license
 * that is not an SPDX expression becomes a `LicenseRef-` with its text (section 10).
 */
import { contentUuid } from './sbom/content-uuid.js';
import { inventory, type SbomPackage } from './sbom/inventory.js';
import type { ExportContext, ExportEnvironment, Exporter } from './types.js';

/** SPDX identifiers allow letters, digits, `.` and `-` (section 7.2). */
function idPart(text: string): string {
  return text.replace(/[^A-Za-z0-9.-]+/g, '-');
}

export function spdxJson(environments: readonly ExportEnvironment[], context: ExportContext): string {
  const packages = inventory(environments);
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const pkg of packages) {
    let id = `SPDXRef-Package-${idPart(pkg.platform)}-${pkg.ecosystem}-${idPart(pkg.name)}`;
    for (let n = 2; used.has(id); n++) id = `SPDXRef-Package-${idPart(pkg.platform)}-${pkg.ecosystem}-${idPart(pkg.name)}-${n}`;
    used.add(id);
    ids.set(pkg.ref, id);
  }
  const extracted = new Map<string, string>();
  const declared = (pkg: SbomPackage): string => {
    if (pkg.license === null) return 'NOASSERTION';
    if ('expression' in pkg.license) return pkg.license.expression;
    const id = `LicenseRef-${idPart(pkg.license.name)}`;
    extracted.set(id, pkg.license.name);
    return id;
  };
  const spdxPackages = packages.map((pkg) => ({
    SPDXID: ids.get(pkg.ref)!,
    name: pkg.name,
    ...(pkg.version ? { versionInfo: pkg.version } : {}),
    downloadLocation: /^https?:\/\//.test(pkg.url) ? pkg.url : 'NOASSERTION',
    filesAnalyzed: false,
    checksums: [
      ...(pkg.sha256 ? [{ algorithm: 'SHA256', checksumValue: pkg.sha256 }] : []),
      ...(pkg.md5 ? [{ algorithm: 'MD5', checksumValue: pkg.md5 }] : []),
    ],
    licenseConcluded: 'NOASSERTION',
    licenseDeclared: declared(pkg),
    copyrightText: 'NOASSERTION',
    externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: pkg.purl }],
    primaryPackagePurpose: 'LIBRARY',
    comment: `platform ${pkg.platform}`,
  }));
  const relationships = [
    ...packages
      .filter((p) => p.topLevel)
      .map((p) => ({ spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: ids.get(p.ref)! })),
    ...packages.flatMap((p) =>
      p.dependsOn.map((target) => ({
        spdxElementId: ids.get(p.ref)!,
        relationshipType: 'DEPENDS_ON',
        relatedSpdxElement: ids.get(target)!,
      })),
    ),
  ];
  const hasExtractedLicensingInfos = [...extracted].map(([licenseId, text]) => ({ licenseId, extractedText: text, name: text }));
  const body = { packages: spdxPackages, relationships, hasExtractedLicensingInfos };
  const platforms = environments.map((e) => e.platform).join(', ');
  const document = {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `conda environment (${platforms})`,
    documentNamespace: `https://spdx.org/spdxdocs/conda-resolve-${contentUuid(JSON.stringify(body))}`,
    creationInfo: {
      created: context.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      creators: [`Tool: ${context.toolName}-${context.toolVersion}`],
    },
    ...(hasExtractedLicensingInfos.length > 0 ? { hasExtractedLicensingInfos } : {}),
    packages: spdxPackages,
    relationships,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

export const spdxJsonExporter: Exporter = {
  name: 'spdx-json',
  aliases: ['spdx'],
  description: 'SPDX 2.3 SBOM (JSON) of every platform',
  category: 'lockfile',
  mediaType: 'application/spdx+json',
  defaultFilenames: ['*.spdx.json'],
  exportMultiplatform: spdxJson,
};
