/**
 * The PyPI data of one resolve, fetched before and between solves (the solver does no I/O): project
 * pages turned into releases with their wheels, and core metadata per release. A discovery walk
 * fetches, concurrently, the pages of every name reachable from the requirements and the metadata
 * of the release each is likely to get, so the first solve usually has all it needs; what a solve
 * reaches beyond that it asks for (`PypiDataNeeded`), and the walk goes on from there.
 */
import { createHash } from 'node:crypto';
import { PypiIndexClient } from '../../repodata/pypi/client.js';
import { PypiProjectNotFoundError } from '../../repodata/pypi/errors.js';
import type { PypiFile, PypiProject } from '../../repodata/pypi/types.js';
import type { PypiData, PypiProjectData, PypiRelease, PypiReleaseMetadata, PypiWheel } from '../../solver/pypi/types.js';
import { requiresDistOf } from '../../vocabulary/pypi/core-metadata.js';
import { parseDistributionFileName } from '../../vocabulary/pypi/distribution-file-name.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import type { PypiSpecifierSet } from '../../vocabulary/pypi/specifier.js';
import { bestWheel, type TargetTags } from '../../vocabulary/pypi/tags.js';
import { tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import type { ResolutionStrategy } from '../../vocabulary/pypi-record.js';
import { UsageError } from '../errors.js';

/** More projects than this in one resolve is refused (the server sets its own bound). */
export const MAX_PYPI_PROJECTS = 2_000;

export class TooManyPypiProjectsError extends UsageError {
  constructor(limit: number) {
    super(
      'CR_ERR_INPUT_TOO_MANY_PYPI_PROJECTS',
      `Cannot resolve: the PyPI requirements reach more than ${limit} projects, the limit of one request`,
    );
  }
}

export interface DiscoveryOptions {
  /** Tags of the target's possible pythons: a release is likely when one of its wheels fits one of them. */
  readonly tags: readonly TargetTags[];
  readonly resolution: ResolutionStrategy;
  /** `true`: pre-releases count as likely picks too. */
  readonly prereleases: boolean | undefined;
  readonly maxProjects: number;
  readonly signal?: AbortSignal;
  /** Versions a previous lock pins (normalised name -> version): the likely pick when they fit. */
  readonly locked?: ReadonlyMap<string, string>;
}

export class PypiDataStore implements PypiData {
  readonly #client: PypiIndexClient;
  readonly #projects = new Map<string, PypiProjectData | null>();
  readonly #raw = new Map<string, PypiProject>();
  readonly #metadata = new Map<string, PypiReleaseMetadata>();
  readonly #pending = new Map<string, Promise<void>>();
  /** Each fetched project's page state (a hash of what the indexes listed; `-` for none). */
  readonly #identities = new Map<string, string>();
  /** Projects fetched, for the per-request bound. */
  #count = 0;

  constructor(client: PypiIndexClient) {
    this.#client = client;
  }

  get client(): PypiIndexClient {
    return this.#client;
  }

  project(name: string): PypiProjectData | null | undefined {
    return this.#projects.get(name);
  }

  metadata(name: string, version: string): PypiReleaseMetadata | undefined {
    return this.#metadata.get(`${name}==${version}`);
  }

  /** The files the indexes list for a fetched project (null: no index has it). */
  files(name: string): readonly PypiFile[] | null | undefined {
    return this.#projects.has(name) ? (this.#raw.get(name)?.files ?? null) : undefined;
  }

  /** The page state of every project fetched so far: what a solve's answer depends on besides its metadata, which never changes for a file. */
  pageIdentities(): Record<string, string> {
    return Object.fromEntries([...this.#identities].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** The page state of `name` now (fetched if not yet, within the request's bound). */
  async pageIdentity(name: string, options: Pick<DiscoveryOptions, 'maxProjects' | 'signal'>): Promise<string> {
    await this.#fetchProject(name, options);
    return this.#identities.get(name) ?? '-';
  }

  /**
   * Fetches the pages of `names` and the metadata of `releases`, then walks on: for each project
   * fetched, the metadata of its likely release, and the projects that release requires.
   */
  async discover(
    names: Iterable<string>,
    releases: Iterable<{ name: string; version: string }>,
    wanted: ReadonlyMap<string, readonly PypiRequirement[]>,
    options: DiscoveryOptions,
  ): Promise<void> {
    const specs = new Map<string, PypiSpecifierSet[]>();
    const addSpec = (requirement: PypiRequirement): string => {
      const name = normalizePypiName(requirement.name);
      const list = specs.get(name) ?? [];
      list.push(requirement.specifier);
      specs.set(name, list);
      return name;
    };
    for (const list of wanted.values()) for (const r of list) addSpec(r);
    // Visits start one another without awaiting: a cycle (a plugin that requires its host and back)
    // would otherwise have a visit wait for itself. The walk ends when no visit adds work.
    const work: Promise<void>[] = [];
    const track = (visit: Promise<void>): void => {
      // Handled here so that one failing after another already failed is no unhandled rejection.
      visit.catch(() => undefined);
      work.push(visit);
    };
    // A walk without tags (the prefetch that runs while the conda repodata loads) is kept apart
    // from the walks with tags: those walk again over what it fetched, choosing with the tags.
    const walk = options.tags.length === 0 ? 'untagged:' : '';
    const visitRelease = (name: string, version: string): Promise<void> =>
      this.#once(`${walk}m:${name}==${version}`, async () => {
        await this.#fetchMetadata(name, version, options);
        const metadata = this.#metadata.get(`${name}==${version}`);
        if (!metadata) return;
        for (const r of metadata.requiresDist) if (!r.marker || !String(r.marker).includes('extra')) track(visitProject(addSpec(r)));
      });
    // Each requirement that reaches a project chooses its likely release again with every
    // specifier known by then, so a later, narrower one (`dep<2` after `dep>=1`) fetches the
    // release the solve will want now rather than in another round after the solve.
    const visitProject = async (name: string): Promise<void> => {
      await this.#fetchProject(name, options);
      const project = this.#projects.get(name);
      if (!project) return;
      const likely = this.#likely(project, specs.get(name) ?? [], options, options.locked?.get(name));
      if (likely) track(visitRelease(name, likely.text));
    };
    for (const name of names) track(visitProject(normalizePypiName(name)));
    for (const { name, version } of releases) track(visitRelease(name, version));
    for (let settled = 0; settled < work.length; ) {
      const batch = work.slice(settled);
      settled = work.length;
      await Promise.all(batch);
    }
  }

  #once(key: string, task: () => Promise<void>): Promise<void> {
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = task();
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** Fetches a project's pages once per resolve, however many walks ask at once. */
  #fetchProject(name: string, options: Pick<DiscoveryOptions, 'maxProjects' | 'signal'>): Promise<void> {
    return this.#once(`fetch-project:${name}`, () => this.#loadProject(name, options));
  }

  async #loadProject(name: string, options: Pick<DiscoveryOptions, 'maxProjects' | 'signal'>): Promise<void> {
    if (this.#projects.has(name)) return;
    if (++this.#count > options.maxProjects) throw new TooManyPypiProjectsError(options.maxProjects);
    try {
      const project = await this.#client.getProject(name, { signal: options.signal });
      this.#raw.set(name, project);
      this.#projects.set(name, releasesOf(project));
      this.#identities.set(name, pageIdentity(project));
    } catch (error) {
      if (error instanceof PypiProjectNotFoundError) {
        this.#projects.set(name, null);
        this.#identities.set(name, '-');
      } else throw error;
    }
  }

  /** Fetches a release's metadata once per resolve (wheels of one release carry the same metadata). */
  #fetchMetadata(name: string, version: string, options: DiscoveryOptions): Promise<void> {
    return this.#once(`fetch-metadata:${name}==${version}`, () => this.#loadMetadata(name, version, options));
  }

  async #loadMetadata(name: string, version: string, options: DiscoveryOptions): Promise<void> {
    const key = `${name}==${version}`;
    if (this.#metadata.has(key)) return;
    if (!this.#projects.has(name)) await this.#fetchProject(name, options);
    const release = this.#projects.get(name)?.releases.find((r) => r.text === version);
    if (!release) return;
    // Wheels of one release carry the same metadata (as pip and uv assume): read the one the
    // newest python prefers, else any.
    const wheel =
      options.tags
        .map((t) =>
          bestWheel(
            t,
            release.wheels.map((w) => ({ ...w, tags: w.name.tags, build: w.name.build })),
          ),
        )
        .find((w) => w !== undefined) ?? release.wheels[0];
    const read = await this.#client.getMetadata(wheel.file as PypiFile, { signal: options.signal, project: name });
    const metadata = read.metadata;
    this.#metadata.set(key, {
      name: metadata.displayName,
      version: metadata.versionText,
      requiresDist: requiresDistOf(metadata),
      requiresPython: metadata.requiresPythonSpecifier ?? null,
      requiresPythonText: metadata.requiresPython ?? null,
    });
  }

  /** The release a project will likely get: the preferred version the specifiers allow with a wheel for one of the pythons. */
  #likely(
    project: PypiProjectData,
    specs: readonly PypiSpecifierSet[],
    options: DiscoveryOptions,
    locked: string | undefined,
  ): PypiRelease | undefined {
    const lowest = options.resolution !== 'highest';
    const ordered = [...project.releases].sort((a, b) => (lowest ? a.version.compare(b.version) : b.version.compare(a.version)));
    const fits = (release: PypiRelease): boolean =>
      !release.yanked &&
      specs.every((s) => s.contains(release.version, { prereleases: true })) &&
      (options.tags.length === 0 ||
        options.tags.some(
          (t) =>
            bestWheel(
              t,
              release.wheels.map((w) => ({ ...w, tags: w.name.tags, build: w.name.build })),
            ) !== undefined,
        ));
    // The locked release is what the solve tries first (solver/pypi/provider.ts).
    const pinned = locked === undefined ? undefined : tryParsePypiVersion(locked);
    const kept = pinned && ordered.find((r) => r.version.compare(pinned) === 0 && fits(r));
    return kept || (ordered.find((r) => (options.prereleases === true || !r.version.isPrerelease) && fits(r)) ?? ordered.find(fits));
  }
}

/**
 * A hash of everything a project's pages list that a solve reads (files, hashes, Requires-Python,
 * yanked, which index): a page that changes in any of these, whatever its ETag says, has a new one.
 */
function pageIdentity(project: PypiProject): string {
  const files = project.files.map((f) => [f.filename, f.url, f.hashes, f.requiresPython, f.yanked, f.index, f.indexRank, f.coreMetadata]);
  return createHash('sha256')
    .update(JSON.stringify([project.indexes, files]))
    .digest('hex');
}

/** A project's wheels grouped by release (sdists left out: conda-resolve never builds). */
export function releasesOf(project: PypiProject): PypiProjectData {
  const byVersion = new Map<string, { release: Omit<PypiRelease, 'wheels' | 'yanked'>; wheels: PypiWheel[] }>();
  for (const file of project.files) {
    let name;
    try {
      name = parseDistributionFileName(file.filename, { project: project.name });
    } catch {
      continue;
    }
    if (name?.kind !== 'wheel' || name.name !== project.name) continue;
    const key = name.version.toString();
    let entry = byVersion.get(key);
    if (!entry) {
      entry = { release: { version: name.version, text: name.versionText }, wheels: [] };
      byVersion.set(key, entry);
    }
    entry.wheels.push({ file, name });
  }
  const releases: PypiRelease[] = [];
  for (const { release, wheels } of byVersion.values()) {
    const live = wheels.filter((w) => w.file.yanked === false);
    releases.push({ ...release, wheels: live.length > 0 ? live : wheels, yanked: live.length === 0 });
  }
  return { name: project.name, releases };
}
