/**
 * One platform's solve over conda and PyPI: discover the PyPI data the requirements reach, solve,
 * and when the search reaches data not fetched yet, fetch it (and walk on from it) and solve again.
 * Each solve is fast next to a round trip, and the walk fetches ahead, so there are few rounds.
 */
import { solveMixed, type MixedSolveOutcome } from '../../solver/pypi/solve.js';
import { PypiDataNeeded } from '../../solver/pypi/types.js';
import { pythonInterpreter } from '../../vocabulary/pypi/marker-environment.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { tagTargetOf, targetTags, type TargetTags } from '../../vocabulary/pypi/tags.js';
import type { ResolutionStrategy } from '../../vocabulary/pypi-record.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import type { MixedAnswerStore, PlatformSolveInput } from '../solving/types.js';
import { cachedMixedAnswer, mixedAnswerKey, rememberMixedAnswer } from './answer-cache.js';
import { MAX_PYPI_PROJECTS, type DiscoveryOptions, type PypiDataStore } from './data.js';
import { condaPypiMapping } from './mapping.js';
import { pypiRequirementsOn, type PreparedPypi } from './request.js';

/** Rounds of fetch-and-solve before giving up (each round fetches everything the last solve reached). */
const MAX_ROUNDS = 500;

export interface MixedPlatformOptions {
  readonly resolution: ResolutionStrategy;
  readonly signal?: AbortSignal;
  readonly maxProjects?: number;
  /** Versions a previous lock pins on this platform (normalised name -> version), kept when they fit. */
  readonly locked?: ReadonlyMap<string, string>;
  /** The server's cache of answers (in memory or Redis): looked up first, told each new answer. */
  readonly answers?: MixedAnswerStore;
}

export async function solvePlatformMixed(
  input: PlatformSolveInput,
  platform: string,
  pypi: PreparedPypi,
  data: PypiDataStore,
  options: MixedPlatformOptions,
): Promise<MixedSolveOutcome> {
  const requirements = pypiRequirementsOn(pypi, platform);
  const mapping = condaPypiMapping(pypi.mappingOverrides);
  const prereleases = pypi.prerelease === 'allow' ? true : pypi.prerelease === 'disallow' ? false : undefined;
  const discovery: DiscoveryOptions = {
    tags: pythonTags(input, platform),
    resolution: options.resolution,
    prereleases,
    maxProjects: options.maxProjects ?? MAX_PYPI_PROJECTS,
    signal: options.signal,
    ...(options.locked ? { locked: options.locked } : {}),
  };
  const key = options.answers
    ? mixedAnswerKey(options.answers, input, {
        platform,
        requirements,
        pypi,
        resolution: options.resolution,
        ...(options.locked ? { locked: options.locked } : {}),
      })
    : null;
  if (key !== null) {
    const cached = await cachedMixedAnswer(options.answers!, key, input, data, discovery);
    if (cached) return cached;
  }
  const outcome = await solveRounds(input, platform, requirements, data, { ...discovery, mapping });
  if (key !== null) await rememberMixedAnswer(options.answers!, key, outcome, data);
  return outcome;
}

async function solveRounds(
  input: PlatformSolveInput,
  platform: string,
  requirements: readonly PypiRequirement[],
  data: PypiDataStore,
  discovery: DiscoveryOptions & { readonly mapping: ReturnType<typeof condaPypiMapping> },
): Promise<MixedSolveOutcome> {
  const { mapping, prereleases, resolution, signal } = discovery;
  const wanted = new Map([['', requirements]]);
  await data.discover(
    requirements.map((r) => normalizePypiName(r.name)),
    [],
    wanted,
    discovery,
  );
  for (let round = 0; ; round++) {
    try {
      return solveMixed({
        ...input,
        signal,
        pypi: {
          platform,
          virtualPackages: input.virtualPackages,
          requirements,
          data,
          prereleases,
          resolution,
          providedBy: (record) => mapping.providedBy(record),
          providers: (name) => mapping.providers(name),
          ...(discovery.locked ? { locked: discovery.locked } : {}),
        },
      });
    } catch (error) {
      if (!(error instanceof PypiDataNeeded) || round >= MAX_ROUNDS) throw error;
      await data.discover(error.projects, error.releases, wanted, discovery);
    }
  }
}

/**
 * Starts the walk over every platform's root requirements before the conda repodata is loaded, so
 * the PyPI round trips overlap that load instead of following it. Without the pythons' tags it
 * guesses each project's release from the specifiers alone; the walks with tags then reuse what it
 * fetched. Never rejects: a failure shows again in the walk with tags, which awaits the same fetch.
 */
export function prefetchPypi(
  pypi: PreparedPypi,
  platforms: readonly string[],
  data: PypiDataStore,
  options: MixedPlatformOptions,
): Promise<void> {
  const wanted = new Map(platforms.map((platform) => [platform, pypiRequirementsOn(pypi, platform)] as const));
  const names = [...new Set([...wanted.values()].flat().map((r) => normalizePypiName(r.name)))];
  return data
    .discover(names, [], wanted, {
      tags: [],
      resolution: options.resolution,
      prereleases: pypi.prerelease === 'allow' ? true : pypi.prerelease === 'disallow' ? false : undefined,
      maxProjects: options.maxProjects ?? MAX_PYPI_PROJECTS,
      signal: options.signal,
      ...(options.locked ? { locked: options.locked } : {}),
    })
    .catch(() => undefined);
}

/** The wheel tags of the pythons the channels have for the platform, newest first (for discovery). */
function pythonTags(input: PlatformSolveInput, platform: string): TargetTags[] {
  const seen = new Map<string, TargetTags>();
  const records = input.channels.flatMap((channel) => channel.sources.flatMap((source) => source.records('python')));
  records.sort((a, b) => (a.version < b.version ? 1 : -1));
  for (const record of records) {
    try {
      const interpreter = pythonInterpreter(record);
      const key = `${interpreter.implementationName}${interpreter.pythonVersion}${interpreter.freeThreaded}`;
      if (!seen.has(key)) seen.set(key, targetTags(tagTargetOf(platform, interpreter, input.virtualPackages)));
    } catch {
      // Not an interpreter the tags can describe.
    }
  }
  return [...seen.values()];
}
