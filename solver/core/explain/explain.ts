/**
 * Turns an unsatisfiable core (original clauses only) into an `Explanation`.
 *
 * The walk starts at the culprit root spec and goes down requirement by requirement. For each
 * candidate it names the most direct reason found in the core, in this order: unusable metadata;
 * a different record of the same name that an earlier requested spec needs; another package's
 * `constrains`; a requirement of its own that cannot be met (explained recursively); a different
 * record of the same name that some other package needs. Candidates whose reasons have the same
 * signature are grouped and their versions collapsed into runs, so `numpy 1.0 .. 2.1` reads as one
 * line. The result is data; `render.ts` words it.
 */
import type { ClauseId, NameId, SolvableId, VersionSetId } from '../ids.js';
import type { DependencyProvider, ExcludedCandidate } from '../provider.js';
import type { CoreSolver } from '../solver.js';
import type {
  CandidateGroup,
  CandidateReason,
  Explanation,
  Necessity,
  RequirementFailure,
  Requirer,
  VersionList,
  VersionSpan,
} from './types.js';

/** How explanations show names, versions and version sets (the provider's ecosystem decides). */
export interface ExplainInterner {
  displayName(name: NameId): string;
  /** The version set with its name, as a user would write it: `python >=3.10`. */
  displayVersionSet(versionSet: VersionSetId): string;
  displayVersion(solvable: SolvableId): string;
  /** Orders solvables of one name by version, lowest first. */
  compareVersions(a: SolvableId, b: SolvableId): number;
  /** Candidates that match the version set but were excluded (strict priority, exclude-newer...). */
  excludedMatching(versionSet: VersionSetId): readonly ExcludedCandidate[];
  /** Something worth telling about a name nothing (suitable) provides, e.g. that it is virtual. */
  noteOnName?(name: NameId): string | undefined;
}

export interface ExplainInput {
  readonly solver: CoreSolver;
  readonly core: readonly ClauseId[];
  readonly complete: boolean;
  readonly provider: DependencyProvider;
  readonly interner: ExplainInterner;
  /** The user's root specs as shown to them, in order, and their version sets. */
  readonly specs: readonly string[];
  readonly specVersionSets: readonly VersionSetId[];
  /** Index of the first spec that cannot join the ones before it. */
  readonly culprit: number;
}

interface Edge {
  readonly parent: SolvableId | null;
  readonly versionSet: VersionSetId;
}

/** Why one candidate is ruled out; `dependency` is the version set a `requires` reason is about. */
interface Finding {
  readonly reason: CandidateReason;
  readonly dependency?: VersionSetId;
}

/** Candidate reasons and necessity steps one explanation may work out (see `#budget`). */
const EXPLAIN_BUDGET = 4000;
/** Necessity chains nested deeper than this add little a person can act on. */
const MAX_NECESSITY_DEPTH = 3;

export function buildExplanation(input: ExplainInput): Explanation {
  return new ExplanationBuilder(input).build();
}

class ExplanationBuilder {
  readonly #input: ExplainInput;
  readonly #provider: DependencyProvider;
  readonly #interner: ExplainInterner;
  readonly #requiresOf = new Map<SolvableId, VersionSetId[]>();
  readonly #forbidden = new Map<SolvableId, SolvableId[]>();
  readonly #constrainedBy = new Map<SolvableId, { parent: SolvableId; versionSet: VersionSetId }[]>();
  readonly #constrainsOf = new Map<SolvableId, { target: SolvableId; versionSet: VersionSetId }[]>();
  readonly #unknown = new Map<SolvableId, string>();
  /** Requirement edges of the core, root edges first, in clause order. */
  readonly #edges: Edge[] = [];
  readonly #rootSpecOf = new Map<VersionSetId, number>();
  readonly #memo = new Map<VersionSetId, RequirementFailure>();
  readonly #onStack = new Set<VersionSetId>();
  readonly #matchingSets = new Map<VersionSetId, Set<SolvableId>>();
  readonly #versionUniverse = new Map<NameId, readonly string[]>();
  /**
   * Work left before the walk stops going deeper. Candidate reasons and necessity chains refer to
   * each other, so on combinatorial problems (pigeonhole-like) the walk would grow exponentially;
   * past the budget, reasons are summarised and the explanation is marked incomplete.
   */
  #budget = EXPLAIN_BUDGET;
  #necessityDepth = 0;

  constructor(input: ExplainInput) {
    this.#input = input;
    this.#provider = input.provider;
    this.#interner = input.interner;
    input.specVersionSets.forEach((versionSet, index) => {
      if (!this.#rootSpecOf.has(versionSet)) this.#rootSpecOf.set(versionSet, index);
    });
    const rootEdges: Edge[] = [];
    const otherEdges: Edge[] = [];
    for (const clause of input.core) {
      const described = input.solver.describe(clause);
      switch (described.kind) {
        case 'requires':
          if (described.parent === null) rootEdges.push({ parent: null, versionSet: described.versionSet });
          else {
            otherEdges.push({ parent: described.parent, versionSet: described.versionSet });
            push(this.#requiresOf, described.parent, described.versionSet);
          }
          break;
        case 'forbid':
          push(this.#forbidden, described.a, described.b);
          push(this.#forbidden, described.b, described.a);
          break;
        case 'constrains':
          push(this.#constrainedBy, described.target, { parent: described.parent, versionSet: described.versionSet });
          push(this.#constrainsOf, described.parent, { target: described.target, versionSet: described.versionSet });
          break;
        case 'unknown':
          this.#unknown.set(described.solvable, described.reason);
          break;
      }
    }
    this.#edges = [...rootEdges, ...otherEdges];
  }

  build(): Explanation {
    const { specs, culprit, specVersionSets, complete } = this.#input;
    const failure = this.#explainRequirement(specVersionSets[culprit]);
    return {
      spec: specs[culprit],
      specIndex: culprit,
      earlierSpecs: specs.slice(0, culprit),
      failure,
      together: this.#together(failure),
      complete: complete && this.#budget > 0,
    };
  }

  /**
   * When every candidate of the culprit is blocked by records that one earlier requested spec
   * forces in, explain that spec instead: "every python 3.9.* requires openssl >=1.1.1, which
   * conflicts with the requested openssl 1.0.*" says more than the chain of forced records.
   */
  #together(failure: RequirementFailure): Explanation['together'] {
    if (failure.kind !== 'unsatisfiable') return null;
    let root: string | undefined;
    for (const group of failure.groups) {
      const top = forcedBy(group.reason);
      if (top === undefined || (root !== undefined && top !== root)) return null;
      root = top;
    }
    const index = root === undefined ? -1 : this.#input.specs.indexOf(root);
    if (index < 0 || index >= this.#input.culprit) return null;
    const other = this.#explainRequirement(this.#input.specVersionSets[index]);
    if (other.kind !== 'unsatisfiable' || !isFailing(other)) return null;
    return { spec: root!, failure: other };
  }

  #matches(versionSet: VersionSetId): Set<SolvableId> {
    let set = this.#matchingSets.get(versionSet);
    if (!set) this.#matchingSets.set(versionSet, (set = new Set(this.#provider.matching(versionSet))));
    return set;
  }

  #explainRequirement(versionSet: VersionSetId): RequirementFailure {
    const known = this.#memo.get(versionSet);
    if (known) return known;
    const spec = this.#interner.displayVersionSet(versionSet);
    if (this.#onStack.has(versionSet)) return { kind: 'cycle', spec };
    this.#onStack.add(versionSet);
    const name = this.#provider.nameOfVersionSet(versionSet);
    const candidates = this.#provider.matching(versionSet);
    let failure: RequirementFailure;
    if (candidates.length === 0) {
      failure = this.#missing(versionSet, name, spec);
    } else {
      const findings = candidates.map((candidate) => ({ candidate, finding: this.#reasonFor(candidate) }));
      failure = { kind: 'unsatisfiable', spec, name: this.#interner.displayName(name), groups: this.#group(name, findings, candidates.length) };
    }
    this.#onStack.delete(versionSet);
    this.#memo.set(versionSet, failure);
    return failure;
  }

  #missing(versionSet: VersionSetId, name: NameId, spec: string): RequirementFailure {
    const all = this.#provider.candidates(name).solvables;
    const excludedByReason = new Map<string, SolvableId[]>();
    for (const { solvable, reason } of this.#interner.excludedMatching(versionSet)) push(excludedByReason, reason, solvable);
    return {
      kind: 'missing',
      spec,
      name: this.#interner.displayName(name),
      available: this.#collapse(name, all),
      excluded: [...excludedByReason].map(([reason, solvables]) => ({ reason, versions: this.#collapse(name, solvables) })),
      note: this.#interner.noteOnName?.(name) ?? null,
    };
  }

  #reasonFor(candidate: SolvableId): Finding {
    if (--this.#budget <= 0) return { reason: { kind: 'combination' } };
    const unknown = this.#unknown.get(candidate);
    if (unknown !== undefined) return { reason: { kind: 'unusable', reason: unknown } };

    const rivals = this.#forbidden.get(candidate) ?? [];
    const rootRival = this.#rivalRequirer(candidate, rivals, true);
    if (rootRival) return rootRival;

    const own = this.#constrainsOf.get(candidate) ?? [];
    for (const root of [true, false]) {
      for (const { target, versionSet } of own) {
        const requirer = this.#requirerOf(target, candidate, root);
        if (!requirer) continue;
        return { reason: { kind: 'constrains', specs: [this.#interner.displayVersionSet(versionSet)], requirer } };
      }
    }

    let fallback: Finding | undefined;
    for (const versionSet of this.#requiresOf.get(candidate) ?? []) {
      if (this.#onStack.has(versionSet)) continue;
      const failure = this.#explainRequirement(versionSet);
      const dependencyName = this.#provider.nameOfVersionSet(versionSet);
      const entry: Finding = {
        reason: {
          kind: 'requires',
          name: this.#interner.displayName(dependencyName),
          specs: [this.#interner.displayVersionSet(versionSet)],
          versions: this.#collapse(dependencyName, this.#provider.matching(versionSet)),
          failure,
        },
        dependency: versionSet,
      };
      if (isFailing(failure)) return entry;
      fallback ??= entry;
    }

    const constraint = this.#constrainedBy.get(candidate)?.[0];
    if (constraint) {
      const parentName = this.#provider.nameOfSolvable(constraint.parent);
      const spec = this.#interner.displayVersionSet(constraint.versionSet);
      return {
        reason: {
          kind: 'constrained',
          by: this.#interner.displayName(parentName),
          byVersions: [{ kind: 'version', version: this.#interner.displayVersion(constraint.parent) }],
          spec,
          necessity: this.#necessity([constraint.parent], new Set()),
        },
      };
    }

    const packageRival = this.#rivalRequirer(candidate, rivals, false);
    if (packageRival) return packageRival;
    return fallback ?? { reason: { kind: 'combination' } };
  }

  /** A requirement edge of the core that needs a same-name rival of `candidate` and not `candidate`. */
  #rivalRequirer(candidate: SolvableId, rivals: readonly SolvableId[], root: boolean): Finding | undefined {
    if (rivals.length === 0) return undefined;
    const requirer = this.#requirerOf(rivals, candidate, root);
    if (!requirer) return undefined;
    return { reason: { kind: 'conflicts', requirer } };
  }

  /** Who needs one of `wanted` (root edges or package edges) without accepting `candidate`. */
  #requirerOf(wanted: SolvableId | readonly SolvableId[], candidate: SolvableId, root: boolean): Requirer | undefined {
    const rivalSet = new Set(typeof wanted === 'number' ? [wanted] : wanted);
    for (const edge of this.#edges) {
      if ((edge.parent === null) !== root) continue;
      const matching = this.#matches(edge.versionSet);
      if (matching.has(candidate)) continue;
      let needsRival = false;
      for (const solvable of matching) {
        if (rivalSet.has(solvable)) {
          needsRival = true;
          break;
        }
      }
      if (!needsRival) continue;
      return this.#requirerOfEdge(edge, (parents) => this.#necessity(parents, new Set()));
    }
    return undefined;
  }

  /**
   * Who a requirement edge of the core stands for: a requested spec, or the records of one name
   * that require the same version set (`necessity` says why they must be installed).
   */
  #requirerOfEdge(edge: Edge, necessity: (parents: readonly SolvableId[]) => Necessity | null): Requirer {
    const spec = this.#interner.displayVersionSet(edge.versionSet);
    if (edge.parent === null) {
      const index = this.#rootSpecOf.get(edge.versionSet);
      return { kind: 'requested', spec: index !== undefined ? this.#input.specs[index] : spec };
    }
    const parentName = this.#provider.nameOfSolvable(edge.parent);
    const parents = this.#edges
      .filter((other) => other.parent !== null && other.versionSet === edge.versionSet && this.#provider.nameOfSolvable(other.parent) === parentName)
      .map((other) => other.parent as SolvableId);
    return {
      kind: 'package',
      spec,
      name: this.#interner.displayName(parentName),
      versions: this.#collapse(parentName, parents),
      necessity: necessity(parents),
    };
  }

  /**
   * Why one of `solvables` (records of one name) must be installed: a requirement edge of the core
   * that only they can meet once its other candidates are ruled out. Follows the chain of requirers
   * up to a requested spec.
   */
  #necessity(solvables: readonly SolvableId[], visited: Set<VersionSetId>): Necessity | null {
    if (--this.#budget <= 0 || this.#necessityDepth >= MAX_NECESSITY_DEPTH) return null;
    this.#necessityDepth++;
    try {
      return this.#necessityUnbounded(solvables, visited);
    } finally {
      this.#necessityDepth--;
    }
  }

  #necessityUnbounded(solvables: readonly SolvableId[], visited: Set<VersionSetId>): Necessity | null {
    const chosen = new Set(solvables);
    for (const edge of this.#edges) {
      if (visited.has(edge.versionSet) || edge.versionSet === this.#input.specVersionSets[this.#input.culprit]) continue;
      const matching = this.#provider.matching(edge.versionSet);
      if (!matching.some((s) => chosen.has(s))) continue;
      if (edge.parent !== null && chosen.has(edge.parent)) continue;
      visited.add(edge.versionSet);
      const name = this.#provider.nameOfVersionSet(edge.versionSet);
      const others = matching.filter((s) => !chosen.has(s));
      const alternatives = others.length ? this.#group(name, others.map((candidate) => ({ candidate, finding: this.#reasonFor(candidate) })), matching.length) : [];
      const requiredBy = this.#requirerOfEdge(edge, (parents) => (visited.size < 8 ? this.#necessity(parents, visited) : null));
      return { spec: this.#interner.displayVersionSet(edge.versionSet), requiredBy, alternatives };
    }
    return null;
  }

  /** Groups candidates whose reasons have the same signature, in order of first appearance. */
  #group(name: NameId, findings: readonly { candidate: SolvableId; finding: Finding }[], total: number): CandidateGroup[] {
    const groups = new Map<string, { candidates: SolvableId[]; reasons: CandidateReason[]; dependencies: VersionSetId[] }>();
    for (const { candidate, finding } of findings) {
      const key = reasonSignature(finding.reason);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { candidates: [], reasons: [], dependencies: [] }));
      group.candidates.push(candidate);
      group.reasons.push(finding.reason);
      if (finding.dependency !== undefined && !group.dependencies.includes(finding.dependency)) group.dependencies.push(finding.dependency);
    }
    const displayName = this.#interner.displayName(name);
    return [...groups.values()].map((group) => ({
      name: displayName,
      versions: this.#collapse(name, group.candidates),
      all: group.candidates.length === total,
      reason: this.#mergeReasons(group.reasons, group.dependencies),
    }));
  }

  /** One reason for a group: `requires` reasons over several version sets merge their specs and versions. */
  #mergeReasons(reasons: readonly CandidateReason[], dependencies: readonly VersionSetId[]): CandidateReason {
    const first = reasons[0];
    if (first.kind === 'constrained') {
      const byVersions = uniqueSpans(reasons.flatMap((r) => (r.kind === 'constrained' ? r.byVersions : [])));
      return { ...first, byVersions };
    }
    if (first.kind === 'constrains') {
      return { ...first, specs: unique(reasons.flatMap((r) => (r.kind === 'constrains' ? r.specs : []))) };
    }
    if (first.kind !== 'requires' || dependencies.length <= 1) return first;
    const dependencyName = this.#provider.nameOfVersionSet(dependencies[0]);
    const lowest = (versionSet: VersionSetId): SolvableId | undefined => {
      const matching = [...this.#provider.matching(versionSet)].sort((a, b) => this.#interner.compareVersions(a, b));
      return matching[0];
    };
    const ordered = [...dependencies].sort((a, b) => {
      const x = lowest(a);
      const y = lowest(b);
      if (x === undefined || y === undefined) return (x === undefined ? 0 : 1) - (y === undefined ? 0 : 1) || a - b;
      return this.#interner.compareVersions(x, y) || a - b;
    });
    const all = new Set<SolvableId>();
    for (const versionSet of dependencies) for (const solvable of this.#provider.matching(versionSet)) all.add(solvable);
    return {
      kind: 'requires',
      name: first.name,
      specs: ordered.map((versionSet) => this.#interner.displayVersionSet(versionSet)),
      versions: this.#collapse(dependencyName, [...all]),
      failure: mergeFailures(reasons.map((r) => (r.kind === 'requires' ? r.failure : first.failure))),
    };
  }

  /**
   * A set of one name's solvables as versions, lowest first; three or more versions that are
   * consecutive among all versions the name has become one run.
   */
  #collapse(name: NameId, solvables: readonly SolvableId[]): VersionSpan[] {
    const universe = this.#universe(name);
    const chosen = new Set(solvables.map((s) => this.#interner.displayVersion(s)));
    const out: VersionSpan[] = [];
    let run: string[] = [];
    const flush = (): void => {
      if (run.length >= 3) out.push({ kind: 'run', first: run[0], last: run[run.length - 1] });
      else for (const version of run) out.push({ kind: 'version', version });
      run = [];
    };
    for (const version of universe) {
      if (chosen.has(version)) run.push(version);
      else flush();
    }
    flush();
    return out;
  }

  /** Every version the name has, selectable or excluded, lowest first, each once. */
  #universe(name: NameId): readonly string[] {
    const known = this.#versionUniverse.get(name);
    if (known) return known;
    const candidates = this.#provider.candidates(name);
    const all = [...candidates.solvables, ...candidates.excluded.map((e) => e.solvable)];
    all.sort((a, b) => this.#interner.compareVersions(a, b));
    const versions = unique(all.map((solvable) => this.#interner.displayVersion(solvable)));
    this.#versionUniverse.set(name, versions);
    return versions;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** The spans of several lists, each once (equal when they cover the same versions), in order of first appearance. */
function uniqueSpans(spans: VersionList): VersionSpan[] {
  const seen = new Map<string, VersionSpan>();
  for (const span of spans) {
    const key = span.kind === 'run' ? `${span.first}\0${span.last}` : span.version;
    if (!seen.has(key)) seen.set(key, span);
  }
  return [...seen.values()];
}

/** The requested spec at the top of the chain that forces the record behind a conflict, if any. */
function forcedBy(reason: CandidateReason): string | undefined {
  let necessity: Necessity | null = null;
  if ((reason.kind === 'conflicts' || reason.kind === 'constrains') && reason.requirer.kind === 'package') necessity = reason.requirer.necessity;
  else if (reason.kind === 'constrained') necessity = reason.necessity;
  for (let depth = 0; necessity && depth < 16; depth++) {
    if (necessity.requiredBy.kind === 'requested') return necessity.requiredBy.spec;
    necessity = necessity.requiredBy.necessity;
  }
  return undefined;
}

function isFailing(failure: RequirementFailure): boolean {
  if (failure.kind === 'missing') return true;
  if (failure.kind === 'cycle') return false;
  return failure.groups.every((group) => group.reason.kind !== 'combination');
}

/*
 * Signatures: the one grouping key. A signature is what a reason or failure says, leaving out the
 * versions it covers and the specs `mergeReasons` unites, so candidates ruled out the same way
 * share a group, and sibling requirements that fail the same way merge.
 */

function reasonSignature(reason: CandidateReason): string {
  switch (reason.kind) {
    case 'requires':
      return `requires:${reason.name}:${failureSignature(reason.failure)}`;
    case 'conflicts':
      return `conflicts:${requirerSignature(reason.requirer)}`;
    case 'constrained':
      return `constrained:${reason.by}:${reason.spec}`;
    case 'constrains':
      return `constrains:${requirerSignature(reason.requirer)}`;
    case 'unusable':
      return `unusable:${reason.reason}`;
    case 'combination':
      return 'combination';
  }
}

function failureSignature(failure: RequirementFailure): string {
  switch (failure.kind) {
    case 'missing':
      return `missing:${failure.name}:${failure.excluded.map((e) => e.reason).join(',')}:${failure.available.length > 0}`;
    case 'cycle':
      return `cycle:${failure.spec}`;
    case 'unsatisfiable':
      return `unsat:${failure.groups.map((g) => reasonSignature(g.reason)).join(';')}`;
  }
}

/** The requirer's spec names the rival's package, so a `constrains` signature needs no target name. */
function requirerSignature(requirer: Requirer): string {
  return requirer.kind === 'requested' ? `requested:${requirer.spec}` : `${requirer.name}:${requirer.spec}`;
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
