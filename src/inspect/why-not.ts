/**
 * Why the solution does not have SPEC (a conda match spec, or `pypi:REQUIREMENT`): solve the
 * request with SPEC added, per platform, and compare. Three answers:
 * - `present`: a selected record already satisfies SPEC;
 * - `unsatisfiable`: with SPEC there is no solution; the explanation says why, worded as the reason
 *   the current solution lacks it (SPEC is added last, so it is always the spec that cannot join);
 * - `possible`: there is a solution with SPEC; the packages that would change, and the preference
 *   that made the solver choose the current one. The solver settles the requested specs in order,
 *   each with its most preferred candidate (fewer track_features, the higher-priority channel,
 *   the higher version, the higher build number, the newer timestamp), then their dependencies
 *   the same way; the first package in that order that differs names the preference.
 */
import { redactSecrets } from '../../vocabulary/channel.js';
import { CondaResolveError } from '../../vocabulary/errors.js';
import { parseMatchSpec, type MatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { compareVersions } from '../../vocabulary/version.js';
import { UsageError } from '../errors.js';
import { nativeExplanation, type NativeExplanation } from '../explanation-data.js';
import type { PreparedRequest } from '../request.js';
import type { PlatformResolution, Resolution } from '../resolve.js';
import { buildGraph } from './graph.js';
import { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { parsePypiInput, preparePypi } from '../pypi/request.js';
import { diffPypi, presentPypi, pypiPreference } from './why-not-pypi.js';

export interface PackageChange {
  readonly name: string;
  /** "version build" in the current solution, null when the package would be added. */
  readonly current: string | null;
  /** "version build" with the spec, null when the package would be removed. */
  readonly alternative: string | null;
}

export interface Preference {
  /** The package whose choice decided: the first in the solver's order that differs. */
  readonly name: string;
  /** How the solver reached it: a requested spec, or a dependency (then the spec that pulled it). */
  readonly via: string;
  readonly requested: boolean;
  /** What the solver prefers (its candidate order, first difference wins). */
  readonly criterion: 'track_features' | 'channel' | 'version' | 'build_number' | 'timestamp';
  readonly current: string;
  readonly alternative: string;
  readonly text: string;
}

export type WhyNotAnswer =
  | { readonly platform: string; readonly kind: 'present'; readonly spec: string; readonly record: string; readonly text: string }
  | {
      readonly platform: string;
      readonly kind: 'unsatisfiable';
      readonly spec: string;
      readonly text: string;
      readonly explanation: NativeExplanation | null;
    }
  | {
      readonly platform: string;
      readonly kind: 'possible';
      readonly spec: string;
      readonly changes: readonly PackageChange[];
      readonly preference: Preference | null;
      readonly text: string;
    }
  /** The request fails without SPEC already, or the solve with SPEC failed for another reason. */
  | { readonly platform: string; readonly kind: 'failed'; readonly spec: string; readonly text: string };

/** What why-not tries: a conda match spec, or a PyPI requirement (`pypi:flask<3`). */
export type TriedSpec = MatchSpec | PypiRequirement;

/** Answers per platform, given the current resolution and one with `spec` appended to the request. */
export function whyNot(current: Resolution, withSpec: Resolution, spec: TriedSpec): WhyNotAnswer[] {
  return current.platforms.map((now, i) => withoutSecrets(answerPlatform(now, withSpec.platforms[i]!, spec, current.request)));
}

/**
 * The answer with channel tokens and passwords redacted, as every other output has them: the spec
 * tried (`https://user:pass@host/channel::numpy`) is echoed in the text and the explanation.
 */
function withoutSecrets(answer: WhyNotAnswer): WhyNotAnswer {
  return redactDeep(answer) as WhyNotAnswer;
}

/** Plain data (strings, arrays, objects) with every string redacted. */
function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item)]));
  return value;
}

/**
 * The spec why-not tries, parsed: a conda match spec, or after `pypi:` a PEP 508 requirement; a bad
 * one is the user's input error, as a bad requested spec is.
 */
export function parseExtraSpec(text: string): TriedSpec {
  const pypi = /^\s*pypi:(?!:)(.*)$/s.exec(text);
  if (pypi) return parsePypiInput({ requirement: pypi[1]! });
  try {
    return parseMatchSpec(text.trim());
  } catch (error) {
    if (error instanceof CondaResolveError) throw new UsageError('CR_ERR_INPUT_SPEC', error.message, { cause: error });
    throw error;
  }
}

/** The request with `spec` added last (a PyPI requirement to its PyPI part, made with the default index when it has none). */
export function withAddedSpec(request: PreparedRequest, spec: TriedSpec): PreparedRequest {
  if (!(spec instanceof PypiRequirement)) return { ...request, specs: [...request.specs, spec] };
  const pypi = request.pypi;
  if (!pypi) {
    const sources = request.pypiSources;
    const prepared = preparePypi(
      [{ requirement: String(spec) }],
      undefined,
      sources?.options ?? {},
      sources?.fileOptions ?? [],
      sources?.mappingOverrides,
    );
    return { ...request, pypi: prepared! };
  }
  const platformRequirements =
    pypi.platformRequirements && new Map([...pypi.platformRequirements].map(([platform, list]) => [platform, [...list, spec]] as const));
  return {
    ...request,
    pypi: { ...pypi, requirements: [...pypi.requirements, spec], ...(platformRequirements ? { platformRequirements } : {}) },
  };
}

function answerPlatform(now: PlatformResolution, next: PlatformResolution, spec: TriedSpec, request: PreparedRequest): WhyNotAnswer {
  const platform = now.platform;
  const shown = spec instanceof PypiRequirement ? `pypi:${spec}` : spec.source;
  if (now.records === null)
    return { platform, kind: 'failed', spec: shown, text: `The request itself does not solve on ${platform}: ${now.error}` };
  const present = spec instanceof PypiRequirement ? presentPypi(spec, now, request) : now.records.find((record) => spec.matches(record));
  if (present) {
    const label = `${present.name} ${present.version} ${present.build}`;
    return { platform, kind: 'present', spec: shown, record: label, text: `The solution already has ${shown}: ${label}` };
  }
  if (next.records === null) {
    if (next.explanation) {
      const text = next.error!.replace(
        `${next.explanation.spec} cannot be installed because `,
        `The solution cannot have ${shown} because `,
      );
      return { platform, kind: 'unsatisfiable', spec: shown, text, explanation: nativeExplanation(next.explanation) };
    }
    return { platform, kind: 'failed', spec: shown, text: `Cannot tell: the solve with ${shown} failed: ${next.error}` };
  }
  const changes = [...diff(now.records, next.records), ...diffPypi(now.pypi ?? [], next.pypi ?? [])];
  const preference =
    decidingPreference(now.records, next.records, request, changes) ?? pypiPreference(now.pypi ?? [], next.pypi ?? [], request, platform);
  const lines = [`The solution could have ${shown}; ${changes.length} package${changes.length === 1 ? '' : 's'} would change:`];
  for (const change of changes) {
    if (change.current === null) lines.push(`  + ${change.name} ${change.alternative}`);
    else if (change.alternative === null) lines.push(`  - ${change.name} ${change.current}`);
    else lines.push(`  ~ ${change.name} ${change.current} -> ${change.alternative}`);
  }
  lines.push(preference ? preference.text : 'Both solutions are valid; the solver met the current one first in its order of decisions.');
  return { platform, kind: 'possible', spec: shown, changes, preference, text: lines.join('\n') };
}

function label(record: PackageRecord): string {
  return `${record.version} ${record.build}`;
}

function diff(now: readonly PackageRecord[], next: readonly PackageRecord[]): PackageChange[] {
  const before = new Map(now.map((r) => [r.name, r]));
  const after = new Map(next.map((r) => [r.name, r]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: PackageChange[] = [];
  for (const name of names) {
    const a = before.get(name);
    const b = after.get(name);
    if (a && b && a.version === b.version && a.build === b.build && a.channel === b.channel && a.subdir === b.subdir) continue;
    changes.push({ name, current: a ? label(a) : null, alternative: b ? label(b) : null });
  }
  return changes;
}

/**
 * The first changed package in the solver's order (requested specs in order, then dependencies
 * breadth first) whose current record the solver prefers to the alternative one, and why.
 */
function decidingPreference(
  now: readonly PackageRecord[],
  next: readonly PackageRecord[],
  request: PreparedRequest,
  changes: readonly PackageChange[],
): Preference | null {
  const changed = new Set(changes.filter((c) => c.current !== null && c.alternative !== null).map((c) => c.name));
  if (changed.size === 0) return null;
  const graph = buildGraph(now, request.specs);
  const after = new Map(next.map((r) => [r.name, r]));
  // Channel order is a preference only under flexible priority (strict excludes the others outright).
  const channels = request.channelPriority === 'flexible' ? request.channels.map((c) => c.name) : null;
  // The solver's order: requested specs first, then breadth first through dependencies.
  const order: { name: string; via: string; requested: boolean }[] = [];
  const queued = new Set<string>();
  for (const edge of graph.roots) {
    if (!queued.has(edge.to)) order.push({ name: edge.to, via: edge.spec, requested: true });
    queued.add(edge.to);
  }
  for (let i = 0; i < order.length; i++) {
    for (const edge of graph.dependencies.get(order[i]!.name) ?? []) {
      if (queued.has(edge.to)) continue;
      queued.add(edge.to);
      order.push({ name: edge.to, via: `${edge.from} depends on ${edge.spec}`, requested: false });
    }
  }
  for (const step of order) {
    if (!changed.has(step.name)) continue;
    const a = graph.records.get(step.name)!;
    const b = after.get(step.name)!;
    const criterion = preferred(a, b, channels);
    if (criterion === null) continue;
    const [current, alternative] = describe(criterion, a, b);
    const who = step.requested ? `the requested ${step.via}` : `${step.name} (${step.via})`;
    const text = `The solver chose the current one because, for ${who}, it prefers ${CRITERIA[criterion]}: ${current} over ${alternative}. Requested specs are settled first, in the order given, then their dependencies.`;
    return { name: step.name, via: step.via, requested: step.requested, criterion, current, alternative, text };
  }
  return null;
}

const CRITERIA = {
  track_features: 'fewer track_features',
  channel: 'the higher-priority channel',
  version: 'the higher version',
  build_number: 'the higher build number',
  timestamp: 'the newer build',
} as const;

/** The criterion on which the solver ranks `a` above `b` (rattler's candidate order), or null when it ranks `b` higher. */
function preferred(a: PackageRecord, b: PackageRecord, channels: readonly string[] | null): Preference['criterion'] | null {
  const steps: [Preference['criterion'], number][] = [
    ['track_features', b.track_features.length - a.track_features.length],
    ['channel', channels ? channelIndex(b, channels) - channelIndex(a, channels) : 0],
    ['version', compareVersions(a.version, b.version)],
    ['build_number', a.build_number - b.build_number],
    ['timestamp', (a.timestamp ?? -1) - (b.timestamp ?? -1)],
  ];
  for (const [criterion, sign] of steps) {
    if (sign > 0) return criterion;
    if (sign < 0) return null;
  }
  return null;
}

function channelIndex(record: PackageRecord, channels: readonly string[]): number {
  const index = channels.indexOf(record.channel);
  return index < 0 ? channels.length : index;
}

function describe(criterion: Preference['criterion'], a: PackageRecord, b: PackageRecord): [string, string] {
  switch (criterion) {
    case 'channel':
      return [`${a.name} from ${a.channel}`, `from ${b.channel}`];
    case 'build_number':
      return [`${a.name} ${a.version} build ${a.build_number}`, `build ${b.build_number}`];
    case 'track_features':
      return [`${a.name} ${label(a)} (${a.track_features.length} tracked)`, `${label(b)} (${b.track_features.length} tracked)`];
    case 'timestamp':
      return [`${a.name} ${label(a)}`, label(b)];
    default:
      return [`${a.name} ${a.version}`, b.version];
  }
}
