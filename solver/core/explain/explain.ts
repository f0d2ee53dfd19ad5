/**
 * Turns an unsatisfiable core (original clauses only) into an `Explanation`: the walk.
 *
 * The walk starts at the culprit root spec and goes down requirement by requirement. For each
 * candidate it names the most direct reason found in the core, in this order: unusable metadata;
 * a different record of the same name that an earlier requested spec needs; another package's
 * `constrains`; a requirement of its own that cannot be met (explained recursively); a different
 * record of the same name that some other package needs. What the core says is looked up in
 * `core-index.ts`, candidates with the same reason are grouped by `candidate-groups.ts`, versions
 * become spans in `version-spans.ts`. The result is data; `render.ts` words it.
 */
import type { ClauseId, NameId, SolvableId, VersionSetId } from '../ids.js';
import type { DependencyProvider } from '../provider.js';
import type { CoreSolver } from '../solver.js';
import { forcedBy, groupFindings, isFailing, type Finding, type GroupingContext } from './candidate-groups.js';
import { indexCore, type CoreIndex, type RequirementEdge } from './core-index.js';
import type { ExplainInterner } from './interner.js';
import type { Explanation, Necessity, RequirementFailure, Requirer } from './types.js';
import { VersionSpans } from './version-spans.js';

/** Re-exported: the conda provider and the test universes implement it and import it from here. */
export type { ExplainInterner } from './interner.js';

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
  readonly #core: CoreIndex;
  readonly #spans: VersionSpans;
  readonly #grouping: GroupingContext;
  readonly #rootSpecOf = new Map<VersionSetId, number>();
  readonly #memo = new Map<VersionSetId, RequirementFailure>();
  readonly #onStack = new Set<VersionSetId>();
  readonly #matchingSets = new Map<VersionSetId, Set<SolvableId>>();
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
    this.#core = indexCore(input.solver, input.core);
    this.#spans = new VersionSpans(input.provider, input.interner);
    this.#grouping = { provider: input.provider, interner: input.interner, spans: this.#spans };
    input.specVersionSets.forEach((versionSet, index) => {
      if (!this.#rootSpecOf.has(versionSet)) this.#rootSpecOf.set(versionSet, index);
    });
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
      failure = {
        kind: 'unsatisfiable',
        spec,
        name: this.#interner.displayName(name),
        groups: groupFindings(this.#grouping, name, findings, candidates.length),
      };
    }
    this.#onStack.delete(versionSet);
    this.#memo.set(versionSet, failure);
    return failure;
  }

  #missing(versionSet: VersionSetId, name: NameId, spec: string): RequirementFailure {
    const all = this.#provider.candidates(name).solvables;
    const excludedByReason = new Map<string, SolvableId[]>();
    for (const { solvable, reason } of this.#interner.excludedMatching(versionSet)) {
      const solvables = excludedByReason.get(reason);
      if (solvables) solvables.push(solvable);
      else excludedByReason.set(reason, [solvable]);
    }
    return {
      kind: 'missing',
      spec,
      name: this.#interner.displayName(name),
      available: this.#spans.collapse(name, all),
      excluded: [...excludedByReason].map(([reason, solvables]) => ({ reason, versions: this.#spans.collapse(name, solvables) })),
      note: this.#interner.noteOnName?.(name) ?? null,
    };
  }

  #reasonFor(candidate: SolvableId): Finding {
    if (--this.#budget <= 0) return { reason: { kind: 'combination' } };
    const unknown = this.#core.unknown.get(candidate);
    if (unknown !== undefined) return { reason: { kind: 'unusable', reason: unknown } };

    const rivals = this.#core.forbidden.get(candidate) ?? [];
    const rootRival = this.#rivalRequirer(candidate, rivals, true);
    if (rootRival) return rootRival;

    const own = this.#core.constrainsOf.get(candidate) ?? [];
    for (const root of [true, false]) {
      for (const { target, versionSet } of own) {
        const requirer = this.#requirerOf(target, candidate, root);
        if (!requirer) continue;
        return { reason: { kind: 'constrains', specs: [this.#interner.displayVersionSet(versionSet)], requirer } };
      }
    }

    let fallback: Finding | undefined;
    for (const versionSet of this.#core.requiresOf.get(candidate) ?? []) {
      if (this.#onStack.has(versionSet)) continue;
      const failure = this.#explainRequirement(versionSet);
      const dependencyName = this.#provider.nameOfVersionSet(versionSet);
      const entry: Finding = {
        reason: {
          kind: 'requires',
          name: this.#interner.displayName(dependencyName),
          specs: [this.#interner.displayVersionSet(versionSet)],
          versions: this.#spans.collapse(dependencyName, this.#provider.matching(versionSet)),
          failure,
        },
        dependency: versionSet,
      };
      if (isFailing(failure)) return entry;
      fallback ??= entry;
    }

    const constraint = this.#core.constrainedBy.get(candidate)?.[0];
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
    for (const edge of this.#core.edges) {
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
  #requirerOfEdge(edge: RequirementEdge, necessity: (parents: readonly SolvableId[]) => Necessity | null): Requirer {
    const spec = this.#interner.displayVersionSet(edge.versionSet);
    if (edge.parent === null) {
      const index = this.#rootSpecOf.get(edge.versionSet);
      return { kind: 'requested', spec: index !== undefined ? this.#input.specs[index] : spec };
    }
    const parentName = this.#provider.nameOfSolvable(edge.parent);
    const parents = this.#core.edges
      .filter(
        (other) =>
          other.parent !== null && other.versionSet === edge.versionSet && this.#provider.nameOfSolvable(other.parent) === parentName,
      )
      .map((other) => other.parent as SolvableId);
    return {
      kind: 'package',
      spec,
      name: this.#interner.displayName(parentName),
      versions: this.#spans.collapse(parentName, parents),
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
    for (const edge of this.#core.edges) {
      if (visited.has(edge.versionSet) || edge.versionSet === this.#input.specVersionSets[this.#input.culprit]) continue;
      const matching = this.#provider.matching(edge.versionSet);
      if (!matching.some((s) => chosen.has(s))) continue;
      if (edge.parent !== null && chosen.has(edge.parent)) continue;
      visited.add(edge.versionSet);
      const name = this.#provider.nameOfVersionSet(edge.versionSet);
      const others = matching.filter((s) => !chosen.has(s));
      const alternatives = others.length
        ? groupFindings(
            this.#grouping,
            name,
            others.map((candidate) => ({ candidate, finding: this.#reasonFor(candidate) })),
            matching.length,
          )
        : [];
      const requiredBy = this.#requirerOfEdge(edge, (parents) => (visited.size < 8 ? this.#necessity(parents, visited) : null));
      return { spec: this.#interner.displayVersionSet(edge.versionSet), requiredBy, alternatives };
    }
    return null;
  }
}
