/**
 * conda semantics for the generic core: a `DependencyProvider` over the request's channels. Names,
 * records and match specs get dense ids the first time the search reaches them, and a name's records
 * are read from the indexes only then, so a solve touches only what the requested specs can reach.
 * The candidate order is written out on `CondaProvider`.
 */
import { sameChannel } from '../../vocabulary/channel.js';
import { parseVersion, type Version } from '../../vocabulary/version.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { NameId, SolvableId, VersionSetId } from '../core/ids.js';
import type { Candidates, Dependencies, DependencyProvider, ExcludedCandidate, TieBreaking } from '../core/provider.js';
import type { ExplainInterner } from '../core/explain/explain.js';
import { gatherCandidates, type CandidateRecord } from './candidates.js';
import type { SolverSpec, SpecParser } from './spec.js';
import type { ChannelPriority, SolveChannel } from './types.js';

export interface CondaProviderOptions {
  readonly channels: readonly SolveChannel[];
  readonly virtualPackages: readonly PackageRecord[];
  readonly channelPriority: ChannelPriority;
  readonly excludeNewer: number | undefined;
  readonly parseSpec: SpecParser;
  /** The parsed root specs; those naming a channel restrict their package to it. */
  readonly rootSpecs: readonly SolverSpec[];
  /** URLs of locked records, preferred over every other record of their name. */
  readonly locked?: ReadonlySet<string>;
  /** Whether a name's versions are preferred lowest first (`--resolution lowest`/`lowest-direct`); highest first otherwise. */
  readonly lowestFirst?: (name: string) => boolean;
}

interface NameEntry {
  /** Selectable solvables in gathering order (unsorted). */
  readonly gathered: SolvableId[];
  readonly excluded: ExcludedCandidate[];
  /** Selectable solvables, most preferred first; computed on first use. */
  sorted: SolvableId[] | undefined;
}

interface VersionSetEntry {
  readonly name: NameId;
  readonly spec: SolverSpec;
  matching: SolvableId[] | undefined;
  notMatching: SolvableId[] | undefined;
  /** Highest matching version and whether that record has track_features (for tie-breaking). */
  highest: { version: Version; tracked: boolean } | null | undefined;
}

/** Parsed facts about a record, kept as long as the record lives (records are immutable). */
interface RecordFacts {
  readonly version: Version;
  readonly tracked: number;
}

const factsCache = new WeakMap<PackageRecord, RecordFacts>();

/** conda's variables that set a virtual package (named in explanations). */
const OVERRIDES: Readonly<Record<string, string>> = {
  __glibc: 'CONDA_OVERRIDE_GLIBC',
  __cuda: 'CONDA_OVERRIDE_CUDA',
  __osx: 'CONDA_OVERRIDE_OSX',
  __linux: 'CONDA_OVERRIDE_LINUX',
  __win: 'CONDA_OVERRIDE_WIN',
  __archspec: 'CONDA_OVERRIDE_ARCHSPEC',
};

function factsOf(record: PackageRecord): RecordFacts {
  let facts = factsCache.get(record);
  if (!facts) {
    facts = { version: parseVersion(record.version), tracked: record.track_features.length };
    factsCache.set(record, facts);
  }
  return facts;
}

/**
 * Candidate order (rattler's, which pixi users see): a locked record first (rattler's
 * `locked_packages`, how `--lock` stays close to a previous lock); fewer `track_features`; under
 * `flexible` priority the higher-priority channel; higher version; higher build number; then,
 * among records equal on all of those, the one whose dependencies shared with its rivals allow the
 * highest versions (the numpy build for the newest python); then the newer timestamp; then a fixed
 * order on build string, subdir and file name, so the answer never depends on the order of
 * records in the files.
 *
 * The dependency rule is the costly one (it reads every tied record's dependencies and the
 * candidates they allow), and a search decides among a few of the runs of tied records it sees, so
 * runs are given in a provisional order (timestamp, then the fixed order) and ordered by the whole
 * rule only when the search decides among their members (`ties`, the core's `TieBreaking`).
 */
export class CondaProvider implements DependencyProvider, ExplainInterner {
  readonly names: string[] = [];
  readonly records: PackageRecord[] = [];
  readonly #options: CondaProviderOptions;
  readonly #nameIds = new Map<string, NameId>();
  readonly #nameEntries: (NameEntry | undefined)[] = [];
  readonly #solvableName: NameId[] = [];
  readonly #channelIndex: number[] = [];
  readonly #facts: RecordFacts[] = [];
  readonly #versionSets: VersionSetEntry[] = [];
  readonly #versionSetIds = new Map<string, VersionSetId>();
  readonly #specErrors = new Map<string, string>();
  readonly #dependencies: (Dependencies | undefined)[] = [];
  readonly #virtualNames: Map<string, PackageRecord[]>;
  readonly #requestedChannels = new Map<string, string>();
  /** Per solvable: its run of tied candidates (an index into `#runs`), or undefined when it has none. */
  readonly #runOf: (number | undefined)[] = [];
  /** Runs of tied candidates, and once ordered by the whole rule, each member's rank in its run. */
  readonly #runs: SolvableId[][] = [];
  readonly #rankInRun: (number | undefined)[] = [];

  readonly ties: TieBreaking = {
    tieRun: (solvable) => this.#runOf[solvable] ?? -1,
    preferred: (solvables) => this.#preferred(solvables),
  };

  constructor(options: CondaProviderOptions) {
    this.#options = options;
    this.#virtualNames = new Map();
    for (const record of options.virtualPackages) {
      const list = this.#virtualNames.get(record.name);
      if (list) list.push(record);
      else this.#virtualNames.set(record.name, [record]);
    }
    for (const spec of options.rootSpecs) {
      if (spec.channel !== null && !this.#requestedChannels.has(spec.name)) this.#requestedChannels.set(spec.name, spec.channel);
    }
  }

  // ---- ids ---------------------------------------------------------------------------------

  nameId(name: string): NameId {
    let id = this.#nameIds.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.#nameIds.set(name, id);
    }
    return id;
  }

  /** The version set of a match spec string; throws the vocabulary's error for an invalid one. */
  versionSetOf(text: string): VersionSetId {
    const known = this.#versionSetIds.get(text);
    if (known !== undefined) return known;
    return this.#addVersionSet(text, this.#options.parseSpec(text));
  }

  /** The version set of a root spec the caller has parsed already; `text` is the spec as written. */
  rootVersionSet(text: string, spec: SolverSpec): VersionSetId {
    return this.#versionSetIds.get(text) ?? this.#addVersionSet(text, spec);
  }

  /** A version set matching every record of `name` (used for the virtual packages). */
  anyOf(name: string): VersionSetId {
    const key = `\0any:${name}`;
    const known = this.#versionSetIds.get(key);
    if (known !== undefined) return known;
    return this.#addVersionSet(key, { name, channel: null, matches: (record) => record.name === name, display: () => name });
  }

  /**
   * A version set given by a predicate (the PyPI side's `python` ranges, a conda record that provides
   * a PyPI distribution); `key` identifies it, `display` is how explanations name it.
   */
  predicateVersionSet(key: string, name: string, matches: (record: PackageRecord) => boolean, display: string): VersionSetId {
    const known = this.#versionSetIds.get(`\0pred:${key}`);
    if (known !== undefined) return known;
    return this.#addVersionSet(`\0pred:${key}`, { name, channel: null, matches, display: () => display });
  }

  #addVersionSet(key: string, spec: SolverSpec): VersionSetId {
    const id = this.#versionSets.length;
    this.#versionSets.push({ name: this.nameId(spec.name), spec, matching: undefined, notMatching: undefined, highest: undefined });
    this.#versionSetIds.set(key, id);
    return id;
  }

  isVirtual(solvable: SolvableId): boolean {
    return this.#channelIndex[solvable] < 0;
  }

  // ---- DependencyProvider -------------------------------------------------------------------

  nameOfSolvable(solvable: SolvableId): NameId {
    return this.#solvableName[solvable];
  }

  nameOfVersionSet(versionSet: VersionSetId): NameId {
    return this.#versionSets[versionSet].name;
  }

  candidates(name: NameId): Candidates {
    const entry = this.#entry(name);
    return { solvables: this.#sorted(entry), excluded: entry.excluded };
  }

  matching(versionSet: VersionSetId): readonly SolvableId[] {
    const entry = this.#versionSets[versionSet];
    if (!entry.matching) this.#split(entry);
    return entry.matching!;
  }

  notMatching(versionSet: VersionSetId): readonly SolvableId[] {
    const entry = this.#versionSets[versionSet];
    if (!entry.notMatching) this.#split(entry);
    return entry.notMatching!;
  }

  dependencies(solvable: SolvableId): Dependencies {
    let known = this.#dependencies[solvable];
    if (!known) {
      known = this.#readDependencies(this.records[solvable]);
      this.#dependencies[solvable] = known;
    }
    return known;
  }

  // ---- ExplainInterner ----------------------------------------------------------------------

  displayName(name: NameId): string {
    return this.names[name];
  }

  displayVersionSet(versionSet: VersionSetId): string {
    return this.#versionSets[versionSet].spec.display();
  }

  displayVersion(solvable: SolvableId): string {
    return this.records[solvable].version;
  }

  compareVersions(a: SolvableId, b: SolvableId): number {
    return this.#facts[a].version.compare(this.#facts[b].version);
  }

  noteOnName(name: NameId): string | undefined {
    const text = this.names[name];
    if (!text.startsWith('__')) return undefined;
    const variable = OVERRIDES[text];
    const how = variable ? `; ${variable} ${this.#virtualNames.has(text) ? 'changes' : 'adds'} it` : '';
    return this.#virtualNames.has(text)
      ? `a virtual package of the target system${how}`
      : `a virtual package the target system does not have${how}`;
  }

  excludedMatching(versionSet: VersionSetId): readonly ExcludedCandidate[] {
    const { name, spec } = this.#versionSets[versionSet];
    return this.#entry(name).excluded.filter((e) => spec.matches(this.records[e.solvable]));
  }

  // ---- internals ----------------------------------------------------------------------------

  #entry(name: NameId): NameEntry {
    const known = this.#nameEntries[name];
    if (known) return known;
    const gathered = gatherCandidates(this.names[name], {
      channels: this.#options.channels,
      virtualPackages: this.#virtualNames,
      channelPriority: this.#options.channelPriority,
      excludeNewer: this.#options.excludeNewer,
      requestedChannel: (n) => this.#requestedChannels.get(n),
      inChannel: (candidate, channel) => sameChannel(this.#options.channels[candidate.channelIndex]?.name ?? '', channel),
    });
    const entry: NameEntry = {
      gathered: gathered.selectable.map((candidate) => this.#addSolvable(name, candidate)),
      excluded: gathered.excluded.map(({ candidate, reason }) => ({ solvable: this.#addSolvable(name, candidate), reason })),
      sorted: undefined,
    };
    this.#nameEntries[name] = entry;
    return entry;
  }

  #addSolvable(name: NameId, candidate: CandidateRecord): SolvableId {
    const id = this.records.length;
    this.records.push(candidate.record);
    this.#solvableName.push(name);
    this.#channelIndex.push(candidate.channelIndex);
    this.#facts.push(factsOf(candidate.record));
    return id;
  }

  #split(entry: VersionSetEntry): void {
    const sorted = this.#sorted(this.#entry(entry.name));
    const matching: SolvableId[] = [];
    const notMatching: SolvableId[] = [];
    for (const solvable of sorted) {
      if (entry.spec.matches(this.records[solvable])) matching.push(solvable);
      else notMatching.push(solvable);
    }
    entry.matching = matching;
    entry.notMatching = notMatching;
  }

  #sorted(entry: NameEntry): SolvableId[] {
    if (entry.sorted) return entry.sorted;
    const sorted = [...entry.gathered];
    sorted.sort((a, b) => this.#compareSimple(a, b));
    // Records equal on the simple key form a run, provisionally in the order of the rule's last
    // steps (timestamp, then the fixed order); `#preferred` applies the whole rule when needed.
    let start = 0;
    while (start < sorted.length) {
      let end = start + 1;
      while (end < sorted.length && this.#compareSimple(sorted[start], sorted[end]) === 0) end++;
      if (end - start > 1) {
        const run = sorted.slice(start, end).sort((a, b) => this.#compareLast(a, b));
        const id = this.#runs.length;
        this.#runs.push(run);
        for (let i = 0; i < run.length; i++) {
          sorted[start + i] = run[i];
          this.#runOf[run[i]] = id;
        }
      }
      start = end;
    }
    entry.sorted = sorted;
    return sorted;
  }

  /** The most preferred of some members of one run, by the whole rule (the run is ordered once). */
  #preferred(solvables: readonly SolvableId[]): SolvableId {
    const id = this.#runOf[solvables[0]]!;
    if (this.#rankInRun[solvables[0]] === undefined) {
      const run = [...this.#runs[id]];
      this.#sortTies(run);
      for (let i = 0; i < run.length; i++) this.#rankInRun[run[i]] = i;
    }
    let best = solvables[0];
    for (const solvable of solvables) if (this.#rankInRun[solvable]! < this.#rankInRun[best]!) best = solvable;
    return best;
  }

  #compareSimple(a: SolvableId, b: SolvableId): number {
    const locked = this.#options.locked;
    if (locked && locked.size > 0) {
      const la = locked.has(this.records[a].url);
      if (la !== locked.has(this.records[b].url)) return la ? -1 : 1;
    }
    const fa = this.#facts[a];
    const fb = this.#facts[b];
    if (fa.tracked !== fb.tracked) return fa.tracked - fb.tracked;
    if (this.#options.channelPriority === 'flexible' && this.#channelIndex[a] !== this.#channelIndex[b]) {
      return this.#channelIndex[a] - this.#channelIndex[b];
    }
    const byVersion = this.#options.lowestFirst?.(this.names[this.#solvableName[a]])
      ? fa.version.compare(fb.version)
      : fb.version.compare(fa.version);
    if (byVersion !== 0) return byVersion;
    return this.records[b].build_number - this.records[a].build_number;
  }

  /** rattler's rule: compare the highest versions the shared dependencies allow, by name, then timestamps. */
  #sortTies(run: SolvableId[]): void {
    const perSolvable = new Map<SolvableId, Map<NameId, VersionSetId[]>>();
    for (const solvable of run) {
      const byName = new Map<NameId, VersionSetId[]>();
      const dependencies = this.dependencies(solvable);
      if (dependencies.kind === 'known') {
        for (const versionSet of dependencies.requires) {
          const name = this.#versionSets[versionSet].name;
          const list = byName.get(name);
          if (list) list.push(versionSet);
          else byName.set(name, [versionSet]);
        }
      }
      perSolvable.set(solvable, byName);
    }
    const shared = [...perSolvable.get(run[0])!.keys()]
      .filter((name) => run.every((solvable) => perSolvable.get(solvable)!.has(name)))
      .sort((x, y) => (this.names[x] < this.names[y] ? -1 : this.names[x] > this.names[y] ? 1 : 0));
    const best = (solvable: SolvableId, name: NameId): { version: Version; tracked: boolean } | null => {
      let result: { version: Version; tracked: boolean } | null = null;
      for (const versionSet of perSolvable.get(solvable)!.get(name)!) {
        const highest = this.#highest(versionSet);
        if (!highest) continue;
        if (!result || compareTracked(highest, result) < 0) result = highest;
      }
      return result;
    };
    run.sort((a, b) => {
      for (const name of shared) {
        const va = best(a, name);
        const vb = best(b, name);
        if (va && !vb) return -1;
        if (!va && vb) return 1;
        if (!va || !vb) continue;
        const order = compareTracked(va, vb);
        if (order !== 0) return order;
      }
      return this.#compareLast(a, b);
    });
  }

  /** The last steps of the order among tied records: the newer timestamp, then the fixed order. */
  #compareLast(a: SolvableId, b: SolvableId): number {
    const ta = this.records[a].timestamp ?? -1;
    const tb = this.records[b].timestamp ?? -1;
    if (ta !== tb) return tb - ta;
    return compareFixed(this.records[a], this.records[b]) || this.#channelIndex[a] - this.#channelIndex[b];
  }

  /** The highest version among the selectable records a version set matches (unsorted scan). */
  #highest(versionSet: VersionSetId): { version: Version; tracked: boolean } | null {
    const entry = this.#versionSets[versionSet];
    if (entry.highest !== undefined) return entry.highest;
    let result: { version: Version; tracked: boolean } | null = null;
    for (const solvable of this.#entry(entry.name).gathered) {
      const record = this.records[solvable];
      if (!entry.spec.matches(record)) continue;
      const facts = this.#facts[solvable];
      if (!result || facts.version.compare(result.version) > 0) result = { version: facts.version, tracked: facts.tracked > 0 };
    }
    entry.highest = result;
    return result;
  }

  #readDependencies(record: PackageRecord): Dependencies {
    const requires: VersionSetId[] = [];
    const constrains: VersionSetId[] = [];
    for (const [list, out, field] of [
      [record.depends, requires, 'dependency'],
      [record.constrains, constrains, 'constraint'],
    ] as const) {
      for (const text of list) {
        const versionSet = this.#tryVersionSet(text);
        if (versionSet === undefined) {
          return { kind: 'unknown', reason: `its ${field} "${text}" cannot be parsed (${this.#specErrors.get(text)})` };
        }
        out.push(versionSet);
      }
    }
    return { kind: 'known', requires, constrains };
  }

  #tryVersionSet(text: string): VersionSetId | undefined {
    const known = this.#versionSetIds.get(text);
    if (known !== undefined) return known;
    if (this.#specErrors.has(text)) return undefined;
    try {
      return this.versionSetOf(text);
    } catch (error) {
      this.#specErrors.set(text, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }
}

function compareTracked(a: { version: Version; tracked: boolean }, b: { version: Version; tracked: boolean }): number {
  if (a.tracked !== b.tracked) return a.tracked ? 1 : -1;
  return b.version.compare(a.version);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A total order on otherwise equal records, independent of where they appear in the files. */
function compareFixed(a: PackageRecord, b: PackageRecord): number {
  return compareText(a.build, b.build) || compareText(a.subdir, b.subdir) || compareText(a.fn, b.fn) || compareText(a.url, b.url);
}
