/**
 * The `explanation` object of a failed platform in native JSON: the facts behind the text a person
 * reads, for programs (the web page, MCP clients, CI annotations). It is drawn from the solver's
 * `Explanation` tree (kept whole under `tree`) by one walk that collects
 * - `requested`: the requested specs the explanation involves, the blocked one first;
 * - `conflicts`: each requirement that cannot hold, as subject / requirement / who else is involved;
 * - `candidates`: for each requirement explained, the candidate versions considered;
 * - `virtual_packages`: requirements on virtual packages (`__cuda`, `__glibc`) the target lacks;
 * - `excluded`: matches hidden by channel rules (strict channel priority, a channel pin) or
 *   exclude-newer, with the cause as a word a program can test.
 * Field names are snake_case like the rest of the native JSON.
 */
import type {
  CandidateGroup,
  CandidateReason,
  Explanation,
  Necessity,
  RequirementFailure,
  Requirer,
  VersionList,
} from '../solver/index.js';

export interface NativeConflict {
  /** `missing` (nothing matches), `conflicts` (a rival record of the name is needed), `constrained`
   * (another package's `constrains` rules it out), `constrains` (its own `constrains` does),
   * `unusable` (its metadata cannot be read), `combination` (only together with other choices). */
  readonly kind: 'missing' | 'conflicts' | 'constrained' | 'constrains' | 'unusable' | 'combination';
  /** The candidates ruled out, "python 3.9.0 .. 3.9.13". */
  readonly subject: string;
  /** The requirement or constraint at stake, as specs. */
  readonly specs: readonly string[];
  /** Who holds the other side: "requested python 3.9.*", "curl 7.60.0", or null. */
  readonly against: string | null;
  /** The ecosystem's own words, for `unusable` and excluded matches. */
  readonly detail: string | null;
}

export interface NativeCandidates {
  /** The requirement: one spec, or several that candidates of one package need alike. */
  readonly specs: readonly string[];
  readonly name: string;
  /** Versions considered, lowest first, runs as "first .. last". */
  readonly versions: readonly string[];
}

export interface NativeExcluded {
  readonly name: string;
  readonly versions: readonly string[];
  readonly cause: 'channel-priority' | 'channel' | 'exclude-newer' | 'other';
  readonly reason: string;
}

export interface NativeExplanation {
  /** The requested spec that cannot be installed with the ones before it. */
  readonly spec: string;
  readonly requested: readonly string[];
  readonly conflicts: readonly NativeConflict[];
  readonly candidates: readonly NativeCandidates[];
  readonly virtual_packages: readonly {
    readonly name: string;
    readonly spec: string;
    readonly available: readonly string[];
    readonly note: string | null;
  }[];
  readonly excluded: readonly NativeExcluded[];
  /** False when the solver's proof was cut short and the explanation may be partial. */
  readonly complete: boolean;
  /** The whole structured tree the text is rendered from; null when it is too large to send. */
  readonly tree: Explanation | null;
}

/** A tree larger than this as JSON is left out (`tree: null`); the facts above it are kept. */
export const MAX_TREE_JSON_BYTES = 256 * 1024;

export function nativeExplanation(explanation: Explanation): NativeExplanation {
  const facts = new Facts();
  facts.requested(explanation.spec);
  if (explanation.together) {
    facts.requested(explanation.together.spec);
    facts.failure(explanation.together.failure);
  }
  facts.failure(explanation.failure);
  const size = JSON.stringify(explanation).length;
  return {
    spec: explanation.spec,
    requested: [...facts.requestedSpecs],
    conflicts: [...facts.conflicts.values()],
    candidates: [...facts.candidates.values()],
    virtual_packages: [...facts.virtuals.values()],
    excluded: [...facts.excluded.values()],
    complete: explanation.complete,
    tree: size <= MAX_TREE_JSON_BYTES ? explanation : null,
  };
}

export function spans(list: VersionList): string[] {
  return list.map((span) => (span.kind === 'run' ? `${span.first} .. ${span.last}` : span.version));
}

/** Collects facts once each (keyed by their JSON), in the order the walk meets them. */
class Facts {
  readonly requestedSpecs = new Set<string>();
  readonly conflicts = new Map<string, NativeConflict>();
  readonly candidates = new Map<string, NativeCandidates>();
  readonly virtuals = new Map<string, NativeExplanation['virtual_packages'][number]>();
  readonly excluded = new Map<string, NativeExcluded>();
  readonly #seen = new Set<object>();

  requested(spec: string): void {
    this.requestedSpecs.add(spec);
  }

  failure(failure: RequirementFailure, subject: string | null = null, specs: readonly string[] = [failure.spec]): void {
    if (this.#seen.has(failure)) return;
    this.#seen.add(failure);
    if (failure.kind === 'cycle') return;
    if (failure.kind === 'missing') {
      this.#conflict({ kind: 'missing', subject: subject ?? 'the request', specs: [...specs], against: null, detail: null });
      if (failure.name.startsWith('__')) {
        this.virtuals.set(failure.spec, {
          name: failure.name,
          spec: failure.spec,
          available: spans(failure.available),
          note: failure.note,
        });
      }
      for (const entry of failure.excluded) {
        const item: NativeExcluded = {
          name: failure.name,
          versions: spans(entry.versions),
          cause: causeOf(entry.reason),
          reason: entry.reason,
        };
        this.excluded.set(JSON.stringify(item), item);
      }
      return;
    }
    const versions = failure.groups.flatMap((group) => spans(group.versions));
    const key = specs.join('\0');
    if (!this.candidates.has(key)) this.candidates.set(key, { specs: [...specs], name: failure.name, versions: [...new Set(versions)] });
    for (const group of failure.groups) this.#group(group);
  }

  #group(group: CandidateGroup): void {
    const subject = `${group.name} ${spans(group.versions).join(', ')}`;
    this.#reason(group.reason, subject);
  }

  #reason(reason: CandidateReason, subject: string): void {
    switch (reason.kind) {
      case 'requires':
        this.failure(reason.failure, subject, reason.specs);
        return;
      case 'conflicts':
        this.#conflict({
          kind: 'conflicts',
          subject,
          specs: [reason.requirer.spec],
          against: this.#requirer(reason.requirer),
          detail: null,
        });
        return;
      case 'constrained':
        this.#conflict({
          kind: 'constrained',
          subject,
          specs: [reason.spec],
          against: `${reason.by} ${spans(reason.byVersions).join(', ')}`,
          detail: null,
        });
        this.#necessity(reason.necessity);
        return;
      case 'constrains':
        this.#conflict({ kind: 'constrains', subject, specs: [...reason.specs], against: this.#requirer(reason.requirer), detail: null });
        return;
      case 'unusable':
        this.#conflict({ kind: 'unusable', subject, specs: [], against: null, detail: reason.reason });
        return;
      case 'combination':
        this.#conflict({ kind: 'combination', subject, specs: [], against: null, detail: null });
    }
  }

  #requirer(requirer: Requirer): string {
    if (requirer.kind === 'requested') {
      this.requested(requirer.spec);
      return `requested ${requirer.spec}`;
    }
    this.#necessity(requirer.necessity);
    return `${requirer.name} ${spans(requirer.versions).join(', ')}`;
  }

  #necessity(necessity: Necessity | null): void {
    for (let depth = 0; necessity && depth < 16; depth++) {
      if (this.#seen.has(necessity)) return;
      this.#seen.add(necessity);
      for (const group of necessity.alternatives) this.#group(group);
      const by = necessity.requiredBy;
      if (by.kind === 'requested') {
        this.requested(by.spec);
        return;
      }
      necessity = by.necessity;
    }
  }

  #conflict(conflict: NativeConflict): void {
    const key = JSON.stringify(conflict);
    if (!this.conflicts.has(key)) this.conflicts.set(key, conflict);
  }
}

/** The solver words exclusions (solver/conda/candidates.ts); these are its three kinds. */
function causeOf(reason: string): NativeExcluded['cause'] {
  if (reason.includes('strict channel priority')) return 'channel-priority';
  if (reason.startsWith('is not in the requested channel')) return 'channel';
  if (reason.includes('(exclude-newer)')) return 'exclude-newer';
  return 'other';
}
