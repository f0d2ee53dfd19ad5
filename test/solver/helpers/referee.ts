/**
 * The referee side of the solver tests: rattler's resolvo (WebAssembly) solving the same request
 * over a channel served on 127.0.0.1, and an independent validity check of our answers.
 */
import { simpleSolve, type Platform } from '@conda-org/rattler';
import { parseMatchSpec } from '../../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../../vocabulary/record.js';

export interface RefereePackage {
  readonly name: string;
  readonly version: string;
  readonly build: string;
}

/** rattler's answer (virtual packages filtered out), or 'unsat' with its message. */
export async function rattlerSolve(
  specs: readonly string[],
  channelUrl: string,
  platform: string,
  virtualPackages: readonly PackageRecord[],
): Promise<RefereePackage[] | { unsat: string }> {
  // rattler takes virtual packages only as locked records (PEERS.md).
  const locked = virtualPackages.map((record) => ({
    url: `https://virtual.invalid/${record.fn}`,
    packageName: record.name,
    version: record.version,
    build: record.build,
    buildNumber: 0n,
    filename: record.fn,
    subdir: platform,
    depends: [],
  }));
  try {
    const solved = await simpleSolve([...specs], [channelUrl], [platform as Platform, 'noarch'], locked);
    return solved
      .filter((p) => !p.packageName.startsWith('__'))
      .map((p) => ({ name: p.packageName, version: p.version, build: p.build }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch (error) {
    return { unsat: String(error) };
  }
}

/**
 * Every way a set of records breaks conda's rules for this request: two records of a name, an
 * unmatched root spec, an unmet dependency, a violated constraint. Empty when valid.
 */
export function validityProblems(
  records: readonly PackageRecord[],
  virtualPackages: readonly PackageRecord[],
  specs: readonly string[],
): string[] {
  const problems: string[] = [];
  const byName = new Map<string, PackageRecord>();
  for (const record of [...records, ...virtualPackages]) {
    if (byName.has(record.name)) problems.push(`two records of ${record.name}`);
    byName.set(record.name, record);
  }
  const satisfied = (text: string): boolean => {
    const spec = parseMatchSpec(text);
    const record = byName.get(spec.name);
    return record !== undefined && spec.matches(record);
  };
  for (const spec of specs) if (!satisfied(spec)) problems.push(`requested ${spec} is not satisfied`);
  for (const record of records) {
    for (const dependency of record.depends) {
      if (!satisfied(dependency)) problems.push(`${record.name} ${record.version} ${record.build} needs ${dependency}`);
    }
    for (const constraint of record.constrains) {
      const spec = parseMatchSpec(constraint);
      const other = byName.get(spec.name);
      if (other && !spec.matches(other)) problems.push(`${record.name} ${record.version} constrains ${constraint}, got ${other.version}`);
    }
  }
  return problems;
}
