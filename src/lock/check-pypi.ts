/**
 * The PyPI part of `--check --lock FILE`, for a request with PyPI requirements: the indexes the
 * lock was solved from (pixi.lock's `indexes`) are the request's, each root requirement that
 * applies on the platform (its marker evaluated for the locked Python) is met by a locked PyPI
 * distribution or by a conda package that provides it, and the lock holds no PyPI distribution
 * that no requirement reaches (a removed requirement). pixi's `pixi lock --check` asks the same
 * of a lock (its satisfiability check: indexes, then each requirement against the locked records).
 */
import { markerEnvironment } from '../../vocabulary/pypi/marker-environment.js';
import type { MarkerEnvironment } from '../../vocabulary/pypi/markers.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import { pypiLabel, requirementName, type PypiRecord } from '../../vocabulary/pypi-record.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { VirtualPackage } from '../../vocabulary/virtual-packages.js';
import { condaPypiMapping } from '../pypi/mapping.js';
import { pypiRequirementsOn, type PreparedPypi } from '../pypi/request.js';
import type { StaleReason } from './check.js';

/** Whether the lock's indexes (when it records them) are the request's, in order. */
export function pypiIndexReasons(pypi: PreparedPypi, lockIndexes: readonly string[]): StaleReason[] {
  // conda-lock.yml records no index list: nothing to compare.
  if (lockIndexes.length === 0) return [];
  const requested = [pypi.indexUrl, ...pypi.extraIndexUrls];
  const key = (url: string) => url.trim().replace(/\/+$/, '');
  if (requested.length === lockIndexes.length && requested.every((url, i) => key(url) === key(lockIndexes[i]!))) return [];
  return [{ reason: `the PyPI indexes differ: the request has ${requested.join(', ')}, the lock ${lockIndexes.join(', ')}` }];
}

/** One platform's PyPI requirements against its locked records. */
export function pypiRequirementReasons(
  platform: string,
  pypi: PreparedPypi,
  records: readonly PackageRecord[],
  locked: readonly PypiRecord[],
  virtualPackages: readonly VirtualPackage[],
): StaleReason[] {
  const reasons: StaleReason[] = [];
  const environment = environmentOf(platform, records, virtualPackages);
  const byName = new Map(locked.map((r) => [normalizePypiName(r.name), r]));
  const mapping = condaPypiMapping(pypi.mappingOverrides);
  const roots: string[] = [];
  for (const requirement of pypiRequirementsOn(pypi, platform)) {
    if (!applies(requirement, environment)) continue;
    const name = requirement.normalizedName;
    roots.push(name);
    const record = byName.get(name);
    if (record) {
      const version = record.version === null ? undefined : tryParsePypiVersion(record.version);
      if (version === undefined || !requirement.specifier.contains(version, { installed: true })) {
        reasons.push({ platform, reason: `the PyPI requirement "${requirement}" is not met by the locked ${pypiLabel(record)}` });
      }
      continue;
    }
    const providers = records.filter((r) => mapping.providedBy(r).includes(name));
    if (providers.length === 0)
      reasons.push({ platform, reason: `the PyPI requirement "${requirement}" is not met: the lock has no ${name}` });
    else if (!providers.some((r) => requirement.specifier.contains(tryParsePypiVersion(r.version) ?? r.version, { installed: true }))) {
      reasons.push({
        platform,
        reason: `the PyPI requirement "${requirement}" is not met by the locked conda package ${providers[0]!.name} ${providers[0]!.version}`,
      });
    }
  }
  // What the roots reach through Requires-Dist (markers and extras not evaluated: never too little).
  const reached = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (reached.has(name)) continue;
    reached.add(name);
    for (const text of byName.get(name)?.requires_dist ?? []) {
      const next = requirementName(text);
      if (next !== undefined) stack.push(normalizePypiName(next));
    }
  }
  for (const [name, record] of byName) {
    if (!reached.has(name))
      reasons.push({ platform, reason: `the lock has ${pypiLabel(record)} (pypi), which no PyPI requirement of the request needs` });
  }
  return reasons;
}

/** The platform's marker environment with the locked Python; undefined without one. */
function environmentOf(
  platform: string,
  records: readonly PackageRecord[],
  virtualPackages: readonly VirtualPackage[],
): MarkerEnvironment | undefined {
  const python = records.find((r) => r.name === 'python');
  if (!python) return undefined;
  try {
    return markerEnvironment({ platform, python, records, virtualPackages });
  } catch {
    return undefined;
  }
}

/** A requirement without a marker applies; with one, when it holds (without a locked Python: assumed to). */
function applies(requirement: PypiRequirement, environment: MarkerEnvironment | undefined): boolean {
  if (!requirement.marker || !environment) return true;
  try {
    return requirement.marker.evaluate(environment, { extras: [] });
  } catch {
    return false;
  }
}
