/**
 * The PyPI side of why-not on a mixed solve: whether a PyPI requirement is already met (by a PyPI
 * distribution, or by a conda package that provides it through the conda-to-PyPI mapping), which
 * PyPI distributions would change, and the preference that chose the current ones (the mixed
 * solve tries each name's releases newest first, requested names before their dependencies).
 */
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { comparePypiVersions, tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { condaPypiMapping } from '../pypi/mapping.js';
import { pypiRequirementsOn } from '../pypi/request.js';
import type { PreparedRequest } from '../request.js';
import type { PlatformResolution } from '../resolve.js';
import type { PackageChange, Preference } from './why-not.js';

/** The distribution or conda package of the solution that meets the requirement, if any. */
export function presentPypi(
  requirement: PypiRequirement,
  now: PlatformResolution,
  request: PreparedRequest,
): { name: string; version: string; build: string } | undefined {
  const meets = (version: string | null) => {
    const parsed = version === null ? undefined : tryParsePypiVersion(version);
    return parsed !== undefined && requirement.specifier.contains(parsed, { installed: true });
  };
  const name = requirement.normalizedName;
  const pypi = (now.pypi ?? []).find((r) => normalizePypiName(r.name) === name && meets(r.version));
  if (pypi) return { name: pypi.name, version: pypi.version!, build: 'pypi' };
  const mapping = condaPypiMapping(request.pypi?.mappingOverrides ?? {});
  return (now.records ?? []).find((r) => mapping.providedBy(r).includes(name) && meets(r.version));
}

/** PyPI distributions that differ, by normalised name, as `version pypi`. */
export function diffPypi(now: readonly PypiRecord[], next: readonly PypiRecord[]): PackageChange[] {
  const before = new Map(now.map((r) => [normalizePypiName(r.name), r]));
  const after = new Map(next.map((r) => [normalizePypiName(r.name), r]));
  const changes: PackageChange[] = [];
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(name);
    const b = after.get(name);
    if (a && b && a.url === b.url) continue;
    changes.push({ name, current: a ? `${a.version} pypi` : null, alternative: b ? `${b.version} pypi` : null });
  }
  return changes;
}

/** The first changed distribution, requested names first, whose current version is the higher. */
export function pypiPreference(
  now: readonly PypiRecord[],
  next: readonly PypiRecord[],
  request: PreparedRequest,
  platform: string,
): Preference | null {
  const after = new Map(next.map((r) => [normalizePypiName(r.name), r]));
  const requested = request.pypi ? pypiRequirementsOn(request.pypi, platform) : [];
  const order = [...now].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1));
  function rank(record: PypiRecord): number {
    const at = requested.findIndex((r) => r.normalizedName === normalizePypiName(record.name));
    return at < 0 ? requested.length : at;
  }
  for (const record of order) {
    const other = after.get(normalizePypiName(record.name));
    const [a, b] = [record.version, other?.version].map((v) => (v ? tryParsePypiVersion(v) : undefined));
    if (!other || !a || !b || comparePypiVersions(a, b) <= 0) continue;
    const via = requested.find((r) => r.normalizedName === normalizePypiName(record.name));
    const who = via ? `the requested pypi:${via}` : `${record.name} (PyPI)`;
    const current = `${record.name} ${record.version}`;
    return {
      name: record.name,
      via: via ? String(via) : record.name,
      requested: via !== undefined,
      criterion: 'version',
      current,
      alternative: other.version!,
      text: `The solver chose the current one because, for ${who}, it prefers the higher version: ${current} over ${other.version}. Requested specs are settled first, in the order given, then their dependencies.`,
    };
  }
  return null;
}
