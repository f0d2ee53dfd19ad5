/**
 * What both SBOM formats list: one package per record and platform (a noarch package solved for
 * three platforms is three components, as each platform's environment holds its own copy), with
 * its package URL, hashes, license and the packages it depends on in the same environment.
 *
 * Package URLs follow the purl specification (github.com/package-url/purl-spec): the `conda` type
 * with `build`, `channel`, `subdir` and `type` qualifiers, sorted by key; `pypi` with the PEP 503
 * name and a `file_name` qualifier.
 */
import { dependencyName } from '../../../vocabulary/match-spec.js';
import { normalizePypiName } from '../../../vocabulary/pypi/name.js';
import type { PackageRecord } from '../../../vocabulary/record.js';
import type { ExportEnvironment } from '../types.js';
import { spdxExpression } from './spdx-license.js';

export interface SbomPackage {
  /** Unique in the document: the platform, the ecosystem and the name. */
  readonly ref: string;
  readonly platform: string;
  readonly ecosystem: 'conda' | 'pypi';
  readonly name: string;
  readonly version: string;
  readonly purl: string;
  readonly url: string;
  readonly sha256: string | null;
  readonly md5: string | null;
  /** An SPDX expression in canonical form, or the record's free text as a name, or neither. */
  readonly license: { readonly expression: string } | { readonly name: string } | null;
  /** Refs of the packages this one depends on, sorted. */
  readonly dependsOn: readonly string[];
  /**
   * Nothing else in its environment depends on it, or it stands for a cycle nothing outside
   * reaches (conda-forge's python and pip depend on each other): from these, the graph reaches all.
   */
  readonly topLevel: boolean;
}

/** Percent-encoding of a purl component; `:` stays as the purl specification's canonical form has it. */
function encode(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ':');
}

export function condaPurl(record: PackageRecord): string {
  const type = record.fn.endsWith('.conda') ? 'conda' : record.fn.endsWith('.tar.bz2') ? 'tar.bz2' : undefined;
  const qualifiers: [string, string][] = [
    ['build', record.build],
    ['channel', record.channel],
    ['subdir', record.subdir],
  ];
  if (type) qualifiers.push(['type', type]);
  const query = qualifiers
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}=${encode(value)}`)
    .join('&');
  return `pkg:conda/${encode(record.name)}@${encode(record.version)}?${query}`;
}

/** PEP 503 normalisation, which the purl `pypi` type asks for. */
export function pypiPurlName(name: string): string {
  return normalizePypiName(name);
}

export function pypiPurl(name: string, version: string | null, url: string): string {
  const file = url.split(/[?#]/)[0]!.split('/').pop() ?? '';
  const base = `pkg:pypi/${encode(pypiPurlName(name))}${version ? `@${encode(version)}` : ''}`;
  return /\.(whl|tar\.gz|zip)$/.test(file) ? `${base}?file_name=${encode(file)}` : base;
}

function licenseOf(text: string | null): SbomPackage['license'] {
  if (!text || text.trim() === '') return null;
  const expression = spdxExpression(text);
  return expression ? { expression } : { name: text.trim() };
}

/** The packages of every environment, in platform order then by name, with their edges. */
export function inventory(environments: readonly ExportEnvironment[]): SbomPackage[] {
  return environments.flatMap(platformInventory);
}

function platformInventory(environment: ExportEnvironment): SbomPackage[] {
  const { platform } = environment;
  const condaRef = (name: string) => `${platform}/conda/${name}`;
  const pypiRef = (name: string) => `${platform}/pypi/${pypiPurlName(name)}`;
  const condaNames = new Set(environment.records.map((r) => r.name));
  const pypi = environment.pypi ?? [];
  const pypiNames = new Set(pypi.map((p) => pypiPurlName(p.name)));
  const edges = new Map<string, string[]>();
  for (const record of environment.records) {
    const targets = record.depends.map(dependencyName).filter((n): n is string => n !== null && n !== record.name && condaNames.has(n));
    edges.set(condaRef(record.name), [...new Set(targets.map(condaRef))].sort());
  }
  for (const dist of pypi) {
    const targets = dist.requires_dist
      .filter((line) => !/;.*\bextra\s*==/.test(line))
      .map((line) => /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line)?.[1])
      .filter((n): n is string => n !== undefined && pypiNames.has(pypiPurlName(n)) && pypiPurlName(n) !== pypiPurlName(dist.name));
    edges.set(pypiRef(dist.name), [...new Set(targets.map(pypiRef))].sort());
  }
  const roots = topLevel(edges);
  const conda = environment.records.map((record): SbomPackage => {
    const ref = condaRef(record.name);
    return {
      ref,
      platform,
      ecosystem: 'conda',
      name: record.name,
      version: record.version,
      purl: condaPurl(record),
      url: record.url,
      sha256: record.sha256,
      md5: record.md5,
      license: licenseOf(record.license),
      dependsOn: edges.get(ref) ?? [],
      topLevel: roots.has(ref),
    };
  });
  const dists = pypi.map((dist): SbomPackage => {
    const ref = pypiRef(dist.name);
    return {
      ref,
      platform,
      ecosystem: 'pypi',
      name: dist.name,
      version: dist.version ?? '',
      purl: pypiPurl(dist.name, dist.version, dist.url),
      url: dist.url,
      sha256: dist.sha256,
      md5: dist.md5,
      license: null,
      dependsOn: edges.get(ref) ?? [],
      topLevel: roots.has(ref),
    };
  });
  return [...conda, ...dists];
}

function topLevel(edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const dependedOn = new Set([...edges.values()].flat());
  const roots = new Set([...edges.keys()].filter((ref) => !dependedOn.has(ref)));
  const reached = new Set<string>();
  const reach = (start: string) => {
    const stack = [start];
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (reached.has(ref)) continue;
      reached.add(ref);
      stack.push(...(edges.get(ref) ?? []));
    }
  };
  for (const root of roots) reach(root);
  for (const ref of [...edges.keys()].sort()) {
    if (reached.has(ref)) continue;
    roots.add(ref);
    reach(ref);
  }
  return roots;
}
