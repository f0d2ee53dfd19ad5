/**
 * Grouping the walk's findings: candidates of one name whose reasons share a signature become one
 * `CandidateGroup` with one merged reason, so forty records ruled out the same way read as one
 * line. Merging unites versions and specs; it never changes what a reason says. Also the two
 * questions the walk asks of grouped results (`isFailing`, `forcedBy`).
 */
import type { NameId, SolvableId, VersionSetId } from '../ids.js';
import type { DependencyProvider } from '../provider.js';
import type { ExplainInterner } from './interner.js';
import { reasonSignature } from './signature.js';
import type { CandidateGroup, CandidateReason, Necessity, RequirementFailure } from './types.js';
import { uniqueSpans, type VersionSpans } from './version-spans.js';

/** Why one candidate is ruled out; `dependency` is the version set a `requires` reason is about. */
export interface Finding {
  readonly reason: CandidateReason;
  readonly dependency?: VersionSetId;
}

/** What grouping looks up: the provider for version sets, the interner for wording and order. */
export interface GroupingContext {
  readonly provider: DependencyProvider;
  readonly interner: ExplainInterner;
  readonly spans: VersionSpans;
}

/** Groups candidates whose reasons have the same signature, in order of first appearance. */
export function groupFindings(
  context: GroupingContext,
  name: NameId,
  findings: readonly { candidate: SolvableId; finding: Finding }[],
  total: number,
): CandidateGroup[] {
  const groups = new Map<string, { candidates: SolvableId[]; reasons: CandidateReason[]; dependencies: VersionSetId[] }>();
  for (const { candidate, finding } of findings) {
    const key = reasonSignature(finding.reason);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { candidates: [], reasons: [], dependencies: [] }));
    group.candidates.push(candidate);
    group.reasons.push(finding.reason);
    if (finding.dependency !== undefined && !group.dependencies.includes(finding.dependency)) group.dependencies.push(finding.dependency);
  }
  const displayName = context.interner.displayName(name);
  return [...groups.values()].map((group) => ({
    name: displayName,
    versions: context.spans.collapse(name, group.candidates),
    all: group.candidates.length === total,
    reason: mergeReasons(context, group.reasons, group.dependencies),
  }));
}

/** One reason for a group: `requires` reasons over several version sets merge their specs and versions. */
function mergeReasons(
  context: GroupingContext,
  reasons: readonly CandidateReason[],
  dependencies: readonly VersionSetId[],
): CandidateReason {
  const { provider, interner } = context;
  const first = reasons[0];
  if (first.kind === 'constrained') {
    const byVersions = uniqueSpans(reasons.flatMap((r) => (r.kind === 'constrained' ? r.byVersions : [])));
    return { ...first, byVersions };
  }
  if (first.kind === 'constrains') {
    return { ...first, specs: [...new Set(reasons.flatMap((r) => (r.kind === 'constrains' ? r.specs : [])))] };
  }
  if (first.kind !== 'requires' || dependencies.length <= 1) return first;
  const dependencyName = provider.nameOfVersionSet(dependencies[0]);
  const lowest = (versionSet: VersionSetId): SolvableId | undefined => {
    const matching = [...provider.matching(versionSet)].sort((a, b) => interner.compareVersions(a, b));
    return matching[0];
  };
  const ordered = [...dependencies].sort((a, b) => {
    const x = lowest(a);
    const y = lowest(b);
    if (x === undefined || y === undefined) return (x === undefined ? 0 : 1) - (y === undefined ? 0 : 1) || a - b;
    return interner.compareVersions(x, y) || a - b;
  });
  const all = new Set<SolvableId>();
  for (const versionSet of dependencies) for (const solvable of provider.matching(versionSet)) all.add(solvable);
  return {
    kind: 'requires',
    name: first.name,
    specs: ordered.map((versionSet) => interner.displayVersionSet(versionSet)),
    versions: context.spans.collapse(dependencyName, [...all]),
    failure: mergeFailures(reasons.map((r) => (r.kind === 'requires' ? r.failure : first.failure))),
  };
}

/** Merges failures with equal signatures: versions are united group by group. */
function mergeFailures(failures: readonly RequirementFailure[]): RequirementFailure {
  const first = failures[0];
  if (failures.length === 1) return first;
  if (first.kind === 'missing') {
    return {
      ...first,
      available: uniqueSpans(failures.flatMap((f) => (f.kind === 'missing' ? f.available : []))),
      excluded: first.excluded.map((entry, i) => ({
        reason: entry.reason,
        versions: uniqueSpans(failures.flatMap((f) => (f.kind === 'missing' ? (f.excluded[i]?.versions ?? []) : []))),
      })),
    };
  }
  if (first.kind === 'unsatisfiable') {
    return {
      ...first,
      groups: first.groups.map((group, i) => ({
        ...group,
        versions: uniqueSpans(failures.flatMap((f) => (f.kind === 'unsatisfiable' ? (f.groups[i]?.versions ?? []) : []))),
      })),
    };
  }
  return first;
}

/** The requested spec at the top of the chain that forces the record behind a conflict, if any. */
export function forcedBy(reason: CandidateReason): string | undefined {
  let necessity: Necessity | null = null;
  if ((reason.kind === 'conflicts' || reason.kind === 'constrains') && reason.requirer.kind === 'package')
    necessity = reason.requirer.necessity;
  else if (reason.kind === 'constrained') necessity = reason.necessity;
  for (let depth = 0; necessity && depth < 16; depth++) {
    if (necessity.requiredBy.kind === 'requested') return necessity.requiredBy.spec;
    necessity = necessity.requiredBy.necessity;
  }
  return undefined;
}

/** Whether the requirement surely fails: nothing matches, or no group is a summarised combination (a cycle is not a failure). */
export function isFailing(failure: RequirementFailure): boolean {
  if (failure.kind === 'missing') return true;
  if (failure.kind === 'cycle') return false;
  return failure.groups.every((group) => group.reason.kind !== 'combination');
}
