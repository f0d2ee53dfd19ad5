/**
 * `--check --lock FILE`: whether a lock still answers the request, without solving and without
 * loading any repodata (pixi's `pixi lock --check`, conda-lock's staleness check). The lock
 * satisfies the request when it has the same channels (in order) and platforms, every root spec
 * is met by a locked record on every platform, every locked record's dependencies are met by the
 * others or by the platform's virtual packages, no constraint is broken, and no record is newer
 * than the request's exclude-newer date. With PyPI requirements, also the indexes and each
 * requirement against the locked PyPI distributions (./check-pypi.ts).
 */
import { tryParseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { normalizePypiName, pypiLabel, requirementName, requirementNeedsExtra, type PypiRecord } from '../../vocabulary/pypi-record.js';
import { virtualPackageList, virtualPackages } from '../../vocabulary/virtual-packages.js';
import { specsOn, subdirOn, virtualPackagesOn, type PreparedRequest } from '../request.js';
import { tryParseRequirement } from '../../vocabulary/pypi/requirement.js';
import { tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import { pypiIndexReasons, pypiRequirementReasons } from './check-pypi.js';
import { sameChannels, type PreviousLock } from './previous-lock.js';

/** One reason a lock does not satisfy the request: about one platform, or (no platform) the whole lock. */
export interface StaleReason {
  readonly platform?: string;
  readonly reason: string;
}

/** Empty when the lock satisfies the request; otherwise each reason it does not, as a sentence. */
export function lockStaleness(request: PreparedRequest, lock: PreviousLock, env: Readonly<Record<string, string | undefined>>): string[] {
  return lockStaleReasons(request, lock, env).map(staleText);
}

/** A reason as one sentence, its platform first. */
export function staleText(reason: StaleReason): string {
  return reason.platform === undefined ? reason.reason : `${reason.platform}: ${reason.reason}`;
}

/** The reasons of `lockStaleness` as data, for answers that group them by platform. */
export function lockStaleReasons(
  request: PreparedRequest,
  lock: PreviousLock,
  env: Readonly<Record<string, string | undefined>>,
): StaleReason[] {
  const reasons: StaleReason[] = [];
  const locked = lock.environment;
  const requestChannels = request.channels.map((c) => c.name);
  if (!sameChannels(requestChannels, locked.channels)) {
    reasons.push({ reason: `the channels differ: the request has ${listOf(requestChannels)}, the lock ${listOf(locked.channels)}` });
  }
  const lockPlatforms = [...locked.platforms.keys()];
  const missing = request.platforms.filter((p) => !locked.platforms.has(p));
  const extra = lockPlatforms.filter((p) => !request.platforms.includes(p));
  if (missing.length > 0) reasons.push({ reason: `the lock has no ${listOf(missing)} (it locks ${listOf(lockPlatforms)})` });
  if (extra.length > 0) reasons.push({ reason: `the lock also locks ${listOf(extra)}, which the request does not ask for` });
  if (request.pypi) reasons.push(...pypiIndexReasons(request.pypi, locked.pypiIndexes));

  for (const platform of request.platforms) {
    const records = locked.platforms.get(platform);
    if (!records) continue;
    const byName = new Map(records.map((r) => [r.name, r]));
    const system = new Map(virtualPackages(subdirOn(request, platform), env, virtualPackagesOn(request, platform)).map((r) => [r.name, r]));
    if (request.pypi) {
      reasons.push(
        ...pypiRequirementReasons(
          platform,
          request.pypi,
          records,
          locked.pypi.get(platform) ?? [],
          virtualPackageList(subdirOn(request, platform), env, virtualPackagesOn(request, platform)),
        ),
      );
    }
    for (const spec of specsOn(request, platform)) {
      if (spec.name.startsWith('__')) continue;
      const record = byName.get(spec.name);
      if (!record) reasons.push({ platform, reason: `the spec "${spec.source}" is not met: the lock has no ${spec.name}` });
      else if (!spec.matches(record))
        reasons.push({ platform, reason: `the spec "${spec.source}" is not met by the locked ${label(record)}` });
    }
    for (const record of records) {
      for (const dep of record.depends) {
        const spec = tryParseMatchSpec(dep);
        if (!spec) {
          reasons.push({ platform, reason: `${label(record)} has a dependency "${dep}" that cannot be parsed` });
          continue;
        }
        const target = (spec.name.startsWith('__') ? system : byName).get(spec.name);
        if (!target) reasons.push({ platform, reason: `${label(record)} depends on "${dep}", which the lock does not hold` });
        else if (!spec.matches(target))
          reasons.push({ platform, reason: `${label(record)} depends on "${dep}", but the lock has ${label(target)}` });
      }
      for (const constraint of record.constrains) {
        const spec = tryParseMatchSpec(constraint);
        const target = spec ? byName.get(spec.name) : undefined;
        if (spec && target && !spec.matches(target))
          reasons.push({ platform, reason: `${label(record)} constrains "${constraint}", but the lock has ${label(target)}` });
      }
      if (request.excludeNewer !== undefined && record.timestamp !== null && record.timestamp > request.excludeNewer) {
        reasons.push({
          platform,
          reason: `${label(record)} was published after the exclude-newer date ${new Date(request.excludeNewer).toISOString()}`,
        });
      }
    }
    reasons.push(...pypiStaleReasons(platform, records, locked.pypi.get(platform) ?? []));
  }
  return reasons;
}

/**
 * The lock's PyPI packages hold together: each requirement that applies without an extra names a
 * PyPI package of the lock whose version it allows (PEP 440), or a conda package of that name
 * (conda-forge packages PyPI projects under their own names). Markers are not evaluated, so a
 * requirement with a marker is skipped (it may be for another platform).
 */
function pypiStaleReasons(platform: string, records: readonly PackageRecord[], pypi: readonly PypiRecord[]): StaleReason[] {
  const present = new Set([...records.map((r) => normalizePypiName(r.name)), ...pypi.map((r) => normalizePypiName(r.name))]);
  const byName = new Map(pypi.map((r) => [normalizePypiName(r.name), r]));
  const reasons: StaleReason[] = [];
  for (const record of pypi) {
    for (const requirement of record.requires_dist) {
      const name = requirementName(requirement);
      if (name === undefined || requirementNeedsExtra(requirement) || requirement.includes(';')) continue;
      if (!present.has(normalizePypiName(name))) {
        reasons.push({ platform, reason: `${pypiLabel(record)} (pypi) requires "${requirement}", which the lock does not hold` });
        continue;
      }
      const target = byName.get(normalizePypiName(name));
      const parsed = tryParseRequirement(requirement);
      const version = target?.version == null ? undefined : tryParsePypiVersion(target.version);
      if (target && parsed && version && !parsed.specifier.contains(version, { installed: true })) {
        reasons.push({ platform, reason: `${pypiLabel(record)} (pypi) requires "${requirement}", but the lock has ${pypiLabel(target)}` });
      }
    }
  }
  return reasons;
}

function label(record: PackageRecord): string {
  return `${record.name} ${record.version} ${record.build}`;
}

function listOf(items: readonly string[]): string {
  return items.length === 0 ? 'none' : items.join(', ');
}
