/**
 * What a lock file locks, read with js-yaml alone and none of our reader: per environment and
 * platform, the set of packages as `conda <url>`, `pypi <url or path>` and `source <reference>` (a
 * v7 `conda_source`, or a v6 `conda:` that names a path rather than a URL).
 * The round-trip tests compare what our reader and writers keep against this.
 *
 * Formats: pixi.lock v4 to v7 (rattler_lock: environments reference `packages` by `conda:`,
 * `pypi:` or, v7, `conda_source:`), pixi.lock v3 and conda-lock.yml (one `package` list with
 * `platform` and `manager`, conda-lock's own layout). Platforms are given by subdir, so that a v7
 * named platform (`p1` with `subdir: linux-64`) compares with a conda-lock.yml, which has subdirs only.
 */
import yaml from 'js-yaml';

/** environment -> platform subdir -> package keys. */
export type LockContents = Map<string, Map<string, Set<string>>>;

export interface ReadContents {
  readonly kind: 'pixi' | 'conda-lock';
  readonly version: number;
  readonly contents: LockContents;
}

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function lockContents(text: string): ReadContents {
  const doc = yaml.load(text);
  if (!isMapping(doc)) throw new Error('not a mapping');
  const version = Number(doc.version);
  if (Array.isArray(doc.package))
    return { kind: isMapping(doc.environments) ? 'pixi' : 'conda-lock', version, contents: packageList(doc.package) };
  if (!isMapping(doc.environments)) throw new Error('neither "package" nor "environments"');
  // v7: a named platform stands for its subdir.
  const subdirs = new Map<string, string>();
  for (const platform of Array.isArray(doc.platforms) ? doc.platforms : []) {
    if (isMapping(platform) && typeof platform.name === 'string')
      subdirs.set(platform.name, typeof platform.subdir === 'string' ? platform.subdir : platform.name);
  }
  const contents: LockContents = new Map();
  for (const [name, environment] of Object.entries(doc.environments)) {
    const platforms = new Map<string, Set<string>>();
    const packages = isMapping(environment) && isMapping(environment.packages) ? environment.packages : {};
    for (const [platform, refs] of Object.entries(packages)) {
      const keys = new Set<string>();
      for (const ref of Array.isArray(refs) ? refs : []) keys.add(referenceKey(ref));
      platforms.set(subdirs.get(platform) ?? platform, keys);
    }
    contents.set(name, platforms);
  }
  return { kind: 'pixi', version, contents };
}

function referenceKey(ref: unknown): string {
  if (!isMapping(ref)) throw new Error(`a package reference is not a mapping: ${JSON.stringify(ref)}`);
  // A v6 `conda:` that is no URL (`conda: .`, `conda: child-package`) is a package built from source.
  if (typeof ref.conda === 'string') return ref.conda.includes('://') ? `conda ${ref.conda}` : `source ${ref.conda}`;
  if (typeof ref.pypi === 'string') return `pypi ${ref.pypi}`;
  if (typeof ref.conda_source === 'string') return `source ${ref.conda_source}`;
  throw new Error(`an unknown package reference: ${JSON.stringify(ref)}`);
}

/** conda-lock.yml (and pixi.lock v3): one environment, `default`. */
function packageList(entries: readonly unknown[]): LockContents {
  const platforms = new Map<string, Set<string>>();
  for (const entry of entries) {
    if (!isMapping(entry)) throw new Error('a package entry is not a mapping');
    const platform = String(entry.platform);
    const manager = entry.manager === 'pip' ? 'pypi' : String(entry.manager);
    let keys = platforms.get(platform);
    if (!keys) platforms.set(platform, (keys = new Set()));
    keys.add(`${manager} ${String(entry.url)}`);
  }
  return new Map([['default', platforms]]);
}

/** Counts for a message: `120 conda, 14 pypi`. */
export function describeKeys(keys: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const kind = key.slice(0, key.indexOf(' '));
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ') || 'nothing';
}

/** The contents without packages built from source: only a pixi.lock holds those (as references). */
export function withoutSources(platforms: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  return new Map([...platforms].map(([platform, keys]) => [platform, new Set([...keys].filter((key) => !key.startsWith('source ')))]));
}

/** One environment's contents as plain data, for `toEqual` with a readable diff. */
export function plain(platforms: ReadonlyMap<string, ReadonlySet<string>> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [platform, keys] of [...(platforms ?? new Map<string, Set<string>>())].sort(([a], [b]) => a.localeCompare(b))) {
    // A platform without packages has no entry to hold it in a conda-lock.yml.
    if (keys.size > 0) out[platform] = [...keys].sort();
  }
  return out;
}
