/**
 * One problem over conda and PyPI: a `DependencyProvider` that serves conda names (through the conda
 * provider) and PyPI names in their own namespace, so both are decided by one search and an
 * unsatisfiable mix gets one explanation. Ids interleave: a conda id `i` is `2i` here, a PyPI one
 * `2i + 1`. A PyPI candidate is a release for one group of conda `python` candidates (the same best
 * wheel, Requires-Python and Python-dependent markers), so markers are exact for the Python the solve
 * picks; conda-provided candidates come last, so a wheel is never chosen beside the conda package that
 * provides it. docs/pypi.md ("How it works", "No duplicates") describes the model.
 */
import type { NameId, SolvableId, VersionSetId } from '../core/ids.js';
import type { Candidates, Dependencies, DependencyProvider, ExcludedCandidate, TieBreaking } from '../core/provider.js';
import type { ExplainInterner } from '../core/explain/interner.js';
import type { CondaProvider } from '../conda/provider.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { markerEnvironment } from '../../vocabulary/pypi/marker-environment.js';
import type { MarkerEnvironment, MarkerNode, PypiMarker } from '../../vocabulary/pypi/markers.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import { parsePypiSpecifierSet, type PypiSpecifierSet } from '../../vocabulary/pypi/specifier.js';
import { bestWheel, tagTargetOf, targetTags, type TargetTags } from '../../vocabulary/pypi/tags.js';
import { pythonInterpreter } from '../../vocabulary/pypi/marker-environment.js';
import { tryParsePypiVersion, type PypiVersion } from '../../vocabulary/pypi/version.js';
import { PypiDataNeeded, type PypiRelease, type PypiSolveInput, type PypiWheel } from './types.js';

/** Marker variables whose value depends on the solved Python. */
const PYTHON_VARIABLES = [
  'python_version',
  'python_full_version',
  'implementation_name',
  'implementation_version',
  'platform_python_implementation',
] as const;

type PypiName =
  | { readonly kind: 'base'; readonly project: string }
  | { readonly kind: 'extra'; readonly project: string; readonly extra: string }
  /** A root requirement whose marker depends on the Python: holds for some pythons, not for others. */
  | { readonly kind: 'marker'; readonly requirement: PypiRequirement };

interface ReleaseFields {
  readonly name: number;
  readonly project: string;
  readonly release: PypiRelease;
  readonly wheel: PypiWheel;
  readonly pythons: ReadonlySet<PackageRecord>;
  readonly pythonLabel: string;
  readonly environment: MarkerEnvironment;
  readonly extra: string | undefined;
}
interface CondaFields {
  readonly name: number;
  readonly project: string;
  readonly condaName: string;
  readonly condaVersion: string;
  readonly version: PypiVersion | undefined;
}
interface MarkerFields {
  readonly name: number;
  readonly pythons: ReadonlySet<PackageRecord>;
  readonly pythonLabel: string;
}
type WheelSolvable = ReleaseFields & { readonly kind: 'wheel' };
type PypiSolvable =
  | WheelSolvable
  | (ReleaseFields & { readonly kind: 'extra' })
  | (CondaFields & { readonly kind: 'conda' })
  | (CondaFields & { readonly kind: 'conda-extra' })
  | (MarkerFields & { readonly kind: 'marker-holds' })
  | (MarkerFields & { readonly kind: 'marker-fails' });

interface PypiVersionSet {
  readonly name: number;
  readonly display: string;
  readonly matches: (solvables: readonly number[]) => number[];
}

interface PythonFacts {
  readonly record: PackageRecord;
  readonly environment: MarkerEnvironment;
  readonly tags: TargetTags;
  readonly version: PypiVersion;
}

const conda = (id: number): number => id * 2;
const pypi = (id: number): number => id * 2 + 1;
const isConda = (id: number): boolean => id % 2 === 0;
const local = (id: number): number => id >> 1;

export class MixedProvider implements DependencyProvider, ExplainInterner {
  readonly #conda: CondaProvider;
  readonly #input: PypiSolveInput;
  readonly #names: PypiName[] = [];
  readonly #nameIds = new Map<string, number>();
  readonly #candidates: (Candidates | undefined)[] = [];
  readonly #solvables: PypiSolvable[] = [];
  readonly #versionSets: PypiVersionSet[] = [];
  readonly #versionSetIds = new Map<string, number>();
  readonly #matching: (SolvableId[] | undefined)[] = [];
  readonly #notMatching: (SolvableId[] | undefined)[] = [];
  readonly #dependencies: (Dependencies | undefined)[] = [];
  /** Per wheel solvable: the PyPI names of the requirements that hold (the solved graph's edges). */
  readonly #edges = new Map<number, string[]>();
  readonly #directNames: ReadonlySet<string>;
  /** Names whose root requirement names a pre-release (the user asked for them). */
  readonly #userPrereleases = new Set<string>();
  /** Root `==`/`===` pins per name: the yanked releases they select count for every requirement on the name. */
  readonly #userPins = new Map<string, PypiSpecifierSet[]>();
  #pythons: PythonFacts[] | undefined;
  readonly #tagsCache = new Map<string, TargetTags>();

  readonly ties: TieBreaking;

  constructor(condaProvider: CondaProvider, input: PypiSolveInput) {
    this.#conda = condaProvider;
    this.#input = input;
    this.#directNames = new Set(input.requirements.map((r) => normalizePypiName(r.name)));
    // What the user asked for a name holds for every requirement on it, as pip merges the
    // specifiers of one name before choosing (PEP 440: pre-releases "explicitly requested by the
    // user"; PEP 592: a yanked release an `==` pin names).
    for (const requirement of input.requirements) {
      const project = normalizePypiName(requirement.name);
      if (requirement.specifier.prereleases === true) this.#userPrereleases.add(project);
      if (isPinned(requirement.specifier)) this.#userPins.set(project, [...(this.#userPins.get(project) ?? []), requirement.specifier]);
    }
    const condaTies = condaProvider.ties;
    this.ties = {
      tieRun: (solvable) => (isConda(solvable) ? condaTies.tieRun(local(solvable)) : -1),
      preferred: (solvables) => conda(condaTies.preferred(solvables.map(local))),
    };
  }

  // ---- roots ---------------------------------------------------------------------------------

  /** The version sets a root PyPI requirement adds (none when its marker fails for every Python). */
  rootVersionSets(requirement: PypiRequirement): VersionSetId[] {
    const marker = requirement.marker;
    if (marker && usesPython(marker.node)) {
      const pythons = this.#pythonFacts();
      const holds = pythons.filter((p) => evaluate(marker, p.environment, []));
      if (holds.length === pythons.length) return this.#requirementSets(requirement);
      if (holds.length === 0) return [];
      const name = this.#nameId({ kind: 'marker', requirement }, `\0marker:${requirement.toString()}`);
      return [this.#versionSet(`\0any:${name}`, name, requirement.toString(), (list) => [...list])];
    }
    if (marker && !evaluate(marker, this.#platformEnvironment(), [])) return [];
    return this.#requirementSets(requirement);
  }

  // ---- DependencyProvider ----------------------------------------------------------------------

  nameOfSolvable(solvable: SolvableId): NameId {
    return isConda(solvable) ? conda(this.#conda.nameOfSolvable(local(solvable))) : pypi(this.#solvables[local(solvable)].name);
  }

  nameOfVersionSet(versionSet: VersionSetId): NameId {
    return isConda(versionSet) ? conda(this.#conda.nameOfVersionSet(local(versionSet))) : pypi(this.#versionSets[local(versionSet)].name);
  }

  candidates(name: NameId): Candidates {
    if (isConda(name)) {
      const inner = this.#conda.candidates(local(name));
      return {
        solvables: inner.solvables.map(conda),
        excluded: inner.excluded.map((e) => ({ solvable: conda(e.solvable), reason: e.reason })),
      };
    }
    const id = local(name);
    let known = this.#candidates[id];
    if (!known) {
      known = { solvables: this.#gather(id).map(pypi), excluded: [] };
      this.#candidates[id] = known;
    }
    return known;
  }

  matching(versionSet: VersionSetId): readonly SolvableId[] {
    if (isConda(versionSet)) return this.#conda.matching(local(versionSet)).map(conda);
    const id = local(versionSet);
    if (!this.#matching[id]) this.#split(id);
    return this.#matching[id]!;
  }

  notMatching(versionSet: VersionSetId): readonly SolvableId[] {
    if (isConda(versionSet)) return this.#conda.notMatching(local(versionSet)).map(conda);
    const id = local(versionSet);
    if (!this.#notMatching[id]) this.#split(id);
    return this.#notMatching[id]!;
  }

  dependencies(solvable: SolvableId): Dependencies {
    if (isConda(solvable)) return this.#condaDependencies(local(solvable));
    const id = local(solvable);
    let known = this.#dependencies[id];
    if (!known) {
      known = this.#pypiDependencies(id);
      this.#dependencies[id] = known;
    }
    return known;
  }

  // ---- ExplainInterner -------------------------------------------------------------------------

  displayName(name: NameId): string {
    if (isConda(name)) return this.#conda.displayName(local(name));
    const entry = this.#names[local(name)];
    if (entry.kind === 'marker') return `${entry.requirement.toString()} (PyPI)`;
    return entry.kind === 'base' ? `${entry.project} (PyPI)` : `${entry.project}[${entry.extra}] (PyPI)`;
  }

  displayVersionSet(versionSet: VersionSetId): string {
    return isConda(versionSet) ? this.#conda.displayVersionSet(local(versionSet)) : this.#versionSets[local(versionSet)].display;
  }

  displayVersion(solvable: SolvableId): string {
    if (isConda(solvable)) return this.#conda.displayVersion(local(solvable));
    const s = this.#solvables[local(solvable)];
    if (s.kind === 'wheel' || s.kind === 'extra') return `${s.release.text} (for python ${s.pythonLabel})`;
    if (s.kind === 'conda' || s.kind === 'conda-extra') return `${s.condaVersion} (the conda package ${s.condaName})`;
    return s.kind === 'marker-holds' ? `holds (${s.pythonLabel})` : `does not hold (${s.pythonLabel})`;
  }

  compareVersions(a: SolvableId, b: SolvableId): number {
    if (isConda(a) && isConda(b)) return this.#conda.compareVersions(local(a), local(b));
    const va = this.#versionOf(a);
    const vb = this.#versionOf(b);
    if (va && vb) return va.compare(vb);
    return va ? 1 : vb ? -1 : 0;
  }

  excludedMatching(versionSet: VersionSetId): readonly ExcludedCandidate[] {
    if (isConda(versionSet))
      return this.#conda.excludedMatching(local(versionSet)).map((e) => ({ solvable: conda(e.solvable), reason: e.reason }));
    return [];
  }

  noteOnName(name: NameId): string | undefined {
    if (isConda(name)) return this.#conda.noteOnName(local(name));
    const entry = this.#names[local(name)];
    if (entry.kind === 'base' && this.#input.data.project(entry.project) === null) return 'no index of the request has this project';
    return undefined;
  }

  // ---- the answer ------------------------------------------------------------------------------

  isCondaSolvable(solvable: SolvableId): boolean {
    return isConda(solvable);
  }

  condaSolvable(solvable: SolvableId): number {
    return local(solvable);
  }

  /** The PyPI records of a solution's PyPI solvables (wheels, with the extras asked of them). */
  pypiRecords(solvables: readonly SolvableId[]): PypiRecord[] {
    const extras = new Map<string, Set<string>>();
    const wheels: WheelSolvable[] = [];
    const ids: number[] = [];
    for (const solvable of solvables) {
      if (isConda(solvable)) continue;
      const s = this.#solvables[local(solvable)];
      if (s.kind === 'wheel') {
        wheels.push(s);
        ids.push(local(solvable));
      } else if (s.kind === 'extra') {
        const set = extras.get(s.project) ?? new Set<string>();
        set.add(s.extra!);
        extras.set(s.project, set);
      }
    }
    return wheels
      .map((s, i) => {
        const metadata = this.#input.data.metadata(s.project, s.release.text)!;
        const file = s.wheel.file;
        const asked = [...(extras.get(s.project) ?? [])].sort();
        const edges = new Set(this.#edges.get(ids[i]) ?? []);
        for (const extra of asked)
          for (const requirement of metadata.requiresDist)
            if (requirement.marker && evaluate(requirement.marker, s.environment, [extra])) edges.add(normalizePypiName(requirement.name));
        return {
          manager: 'pip',
          name: metadata.name,
          version: metadata.version,
          url: file.url,
          sha256: file.hashes.sha256 ?? null,
          md5: file.hashes.md5 ?? null,
          requires_dist: metadata.requiresDist.map(String),
          requires_python: metadata.requiresPythonText ?? file.requiresPython,
          index: file.index,
          filename: file.filename,
          hashes: { ...file.hashes },
          size: file.size,
          upload_time: file.uploadTime,
          yanked: file.yanked !== false,
          extras: asked,
          depends: [...edges].sort(),
        } satisfies PypiRecord;
      })
      .sort((a, b) => (normalizePypiName(a.name) < normalizePypiName(b.name) ? -1 : 1));
  }

  // ---- internals -------------------------------------------------------------------------------

  #nameId(entry: PypiName, key: string): number {
    let id = this.#nameIds.get(key);
    if (id === undefined) {
      id = this.#names.length;
      this.#names.push(entry);
      this.#nameIds.set(key, id);
    }
    return id;
  }

  #baseName(project: string): number {
    return this.#nameId({ kind: 'base', project }, project);
  }

  #extraName(project: string, extra: string): number {
    return this.#nameId({ kind: 'extra', project, extra }, `${project}[${extra}]`);
  }

  #versionSet(key: string, name: number, display: string, matches: (solvables: readonly number[]) => number[]): VersionSetId {
    let id = this.#versionSetIds.get(key);
    if (id === undefined) {
      id = this.#versionSets.length;
      this.#versionSets.push({ name, display, matches });
      this.#versionSetIds.set(key, id);
    }
    return pypi(id);
  }

  /** The version sets of a requirement: the base project's, and one per extra. */
  #requirementSets(requirement: PypiRequirement): VersionSetId[] {
    const project = normalizePypiName(requirement.name);
    const spec = requirement.specifier;
    const text = spec.toString();
    const sets = [this.#specifierSet(this.#baseName(project), project, project, spec, text)];
    for (const extra of requirement.extras) {
      const normal = normalizePypiName(extra);
      sets.push(this.#specifierSet(this.#extraName(project, normal), project, `${project}[${normal}]`, spec, text));
    }
    return sets;
  }

  #specifierSet(name: number, project: string, label: string, spec: PypiSpecifierSet, text: string): VersionSetId {
    const pinned = isPinned(spec);
    const prereleases = this.#input.prereleases ?? (this.#userPrereleases.has(project) ? true : undefined);
    const userPins = this.#userPins.get(project) ?? [];
    return this.#versionSet(`${name}:${text}`, name, `${label}${text ? ` ${text}` : ''} (PyPI)`, (solvables) => {
      const usable = solvables.filter((s) => {
        const entry = this.#solvables[s];
        if (entry.kind === 'conda' || entry.kind === 'conda-extra') return entry.version !== undefined || spec.isEmpty;
        if (pinned || !(entry.kind === 'wheel' || entry.kind === 'extra') || !entry.release.yanked) return true;
        return userPins.some((pin) => pin.contains(entry.release.version, { prereleases: true }));
      });
      return spec.filter(usable, { key: (s) => this.#versionOf(pypi(s)) ?? '', prereleases });
    });
  }

  #versionOf(solvable: SolvableId): PypiVersion | undefined {
    if (isConda(solvable)) return undefined;
    const s = this.#solvables[local(solvable)];
    if (s.kind === 'wheel' || s.kind === 'extra') return s.release.version;
    if (s.kind === 'conda' || s.kind === 'conda-extra') return s.version;
    return undefined;
  }

  #split(id: number): void {
    const entry = this.#versionSets[id];
    const all = this.candidates(pypi(entry.name)).solvables.map(local);
    const matched = new Set(entry.matches(all));
    this.#matching[id] = all.filter((s) => matched.has(s)).map(pypi);
    this.#notMatching[id] = all.filter((s) => !matched.has(s)).map(pypi);
  }

  #addSolvable(solvable: PypiSolvable): number {
    this.#solvables.push(solvable);
    return this.#solvables.length - 1;
  }

  /** The conda `python` candidates with their marker environment and wheel tags (unusable ones left out). */
  #pythonFacts(): PythonFacts[] {
    if (this.#pythons) return this.#pythons;
    const facts: PythonFacts[] = [];
    const pythonName = this.#conda.nameId('python');
    for (const solvable of this.#conda.candidates(pythonName).solvables) {
      const record = this.#conda.records[solvable];
      try {
        const environment = markerEnvironment({
          platform: this.#input.platform,
          python: record,
          virtualPackages: this.#input.virtualPackages,
        });
        const interpreter = pythonInterpreter(record);
        const key = `${interpreter.implementationName}:${interpreter.pythonVersion}:${interpreter.freeThreaded}:${interpreter.implementationVersion}`;
        let tags = this.#tagsCache.get(key);
        if (!tags) {
          tags = targetTags(tagTargetOf(this.#input.platform, interpreter, this.#input.virtualPackages));
          this.#tagsCache.set(key, tags);
        }
        const version = tryParsePypiVersion(environment.python_full_version);
        if (version) facts.push({ record, environment, tags, version });
      } catch {
        // A record that is no interpreter Python's markers can describe: no PyPI candidate uses it.
      }
    }
    this.#pythons = facts;
    return facts;
  }

  /** An environment with the platform's variables, for markers that do not depend on the Python. */
  #platformEnvironment(): MarkerEnvironment {
    const first = this.#pythonFacts()[0];
    if (first) return first.environment;
    return markerEnvironment({
      platform: this.#input.platform,
      python: { name: 'python', version: '3.12.0', build: '', depends: [] },
      virtualPackages: this.#input.virtualPackages,
    });
  }

  #gather(id: number): number[] {
    const entry = this.#names[id];
    if (entry.kind === 'marker') {
      const pythons = this.#pythonFacts();
      const holds = pythons.filter((p) => evaluate(entry.requirement.marker!, p.environment, []));
      const fails = pythons.filter((p) => !holds.includes(p));
      return [
        this.#addSolvable({
          kind: 'marker-holds',
          name: id,
          pythons: new Set(holds.map((p) => p.record)),
          pythonLabel: pythonLabel(holds),
        }),
        this.#addSolvable({
          kind: 'marker-fails',
          name: id,
          pythons: new Set(fails.map((p) => p.record)),
          pythonLabel: pythonLabel(fails),
        }),
      ];
    }
    const project = this.#input.data.project(entry.project);
    if (project === undefined) throw new PypiDataNeeded([entry.project], []);
    const lowest =
      this.#input.resolution === 'lowest' || (this.#input.resolution === 'lowest-direct' && this.#directNames.has(entry.project));
    const releases = [...(project?.releases ?? [])].sort((a, b) => (lowest ? a.version.compare(b.version) : b.version.compare(a.version)));
    const pinned = this.#lockedVersion(entry.project);
    const at = pinned ? releases.findIndex((r) => r.version.compare(pinned) === 0) : -1;
    if (at > 0) releases.unshift(...releases.splice(at, 1));
    const extra = entry.kind === 'extra' ? entry.extra : undefined;
    const out: number[] = [];
    for (const release of releases) {
      for (const group of this.#groups(entry.project, release)) {
        const fields = { name: id, project: entry.project, release, ...group, extra };
        out.push(this.#addSolvable(extra === undefined ? { kind: 'wheel', ...fields } : { kind: 'extra', ...fields }));
      }
    }
    // Conda packages that provide the distribution, after every wheel.
    const provided: { condaName: string; condaVersion: string; version: PypiVersion | undefined }[] = [];
    for (const condaName of this.#input.providers(entry.project)) {
      const seen = new Set<string>();
      for (const solvable of this.#conda.candidates(this.#conda.nameId(condaName)).solvables) {
        const record = this.#conda.records[solvable];
        if (seen.has(record.version) || !this.#input.providedBy(record).includes(entry.project)) continue;
        seen.add(record.version);
        provided.push({ condaName, condaVersion: record.version, version: tryParsePypiVersion(record.version) });
      }
    }
    provided.sort((a, b) =>
      a.version && b.version ? (lowest ? a.version.compare(b.version) : b.version.compare(a.version)) : a.version ? -1 : b.version ? 1 : 0,
    );
    for (const p of provided)
      out.push(
        this.#addSolvable(
          extra === undefined
            ? { kind: 'conda', name: id, project: entry.project, ...p }
            : { kind: 'conda-extra', name: id, project: entry.project, ...p },
        ),
      );
    return out;
  }

  /** The version a previous lock pins for the project, if any. */
  #lockedVersion(project: string): PypiVersion | undefined {
    const text = this.#input.locked?.get(project);
    return text === undefined ? undefined : tryParsePypiVersion(text);
  }

  /**
   * The pythons of a release grouped so that each group has one best wheel and one answer for every
   * Python-dependent marker (with the metadata known; without it, one group per Python minor and
   * implementation, and the dependencies ask for the metadata).
   */
  #groups(
    project: string,
    release: PypiRelease,
  ): { wheel: PypiWheel; pythons: Set<PackageRecord>; pythonLabel: string; environment: MarkerEnvironment }[] {
    const metadata = this.#input.data.metadata(project, release.text);
    const used = metadata ? usedPythonVariables(metadata.requiresDist) : new Set<string>(['python_version', 'implementation_name']);
    const groups = new Map<string, { wheel: PypiWheel; facts: PythonFacts[] }>();
    const wheels = release.wheels.map((w) => ({ ...w, tags: w.name.tags, build: w.name.build }));
    const variables = PYTHON_VARIABLES.filter((v) => used.has(v));
    // The pythons of one version share one tags object (#pythonFacts), and many builds share one
    // version: rank the wheels once per tags object and check Requires-Python once per wheel and version.
    const best = new Map<TargetTags, (typeof wheels)[number] | undefined>();
    const fits = new Map<string, boolean>();
    for (const python of this.#pythonFacts()) {
      let wheel = best.get(python.tags);
      if (wheel === undefined && !best.has(python.tags)) {
        wheel = bestWheel(python.tags, wheels);
        best.set(python.tags, wheel);
      }
      if (!wheel) continue;
      const fitsKey = `${wheel.file.filename}\0${python.environment.python_full_version}`;
      let fit = fits.get(fitsKey);
      if (fit === undefined) {
        const requiresPython = metadata ? metadata.requiresPython : parseRequiresPython(wheel.file.requiresPython);
        fit = !requiresPython || requiresPython.contains(python.version, { prereleases: true });
        fits.set(fitsKey, fit);
      }
      if (!fit) continue;
      let key = wheel.file.filename;
      for (const v of variables) key += `\0${python.environment[v]}`;
      const group = groups.get(key);
      if (group) group.facts.push(python);
      else groups.set(key, { wheel: { file: wheel.file, name: wheel.name }, facts: [python] });
    }
    return [...groups.values()].map((g) => ({
      wheel: g.wheel,
      pythons: new Set(g.facts.map((f) => f.record)),
      pythonLabel: pythonLabel(g.facts),
      environment: g.facts[0].environment,
    }));
  }

  #pythonSet(pythons: ReadonlySet<PackageRecord>, label: string): VersionSetId {
    const key = [...pythons]
      .map((r) => r.url)
      .sort()
      .join('|');
    return conda(this.#conda.predicateVersionSet(`python:${key}`, 'python', (record) => pythons.has(record), label));
  }

  #condaDependencies(solvable: number): Dependencies {
    const inner = this.#conda.dependencies(solvable);
    if (inner.kind === 'unknown') return inner;
    const record = this.#conda.records[solvable];
    const requires = inner.requires.map(conda);
    const constrains = inner.constrains.map(conda);
    if (!this.#conda.isVirtual(solvable)) {
      for (const project of this.#input.providedBy(record)) {
        // A project the solve never reached cannot be chosen from PyPI: nothing to constrain.
        if (this.#input.data.project(project) === undefined && !this.#nameIds.has(project)) continue;
        const name = this.#baseName(project);
        constrains.push(
          this.#versionSet(`\0conda:${project}:${record.name}`, name, `${project} provided by the conda package ${record.name}`, (list) =>
            list.filter((s) => {
              const e = this.#solvables[s];
              return e.kind === 'conda' && e.condaName === record.name;
            }),
          ),
        );
      }
    }
    return { kind: 'known', requires, constrains };
  }

  #pypiDependencies(id: number): Dependencies {
    const s = this.#solvables[id];
    if (s.kind === 'marker-holds' || s.kind === 'marker-fails') {
      const requirement = (this.#names[s.name] as Extract<PypiName, { kind: 'marker' }>).requirement;
      const python = this.#pythonSet(
        s.pythons,
        `python for which "${requirement.marker}" ${s.kind === 'marker-holds' ? 'holds' : 'does not hold'} (${s.pythonLabel})`,
      );
      return {
        kind: 'known',
        requires: s.kind === 'marker-holds' ? [python, ...this.#requirementSets(requirement)] : [python],
        constrains: [],
      };
    }
    if (s.kind === 'conda' || s.kind === 'conda-extra') {
      const requires = [
        conda(
          this.#conda.predicateVersionSet(
            `${s.condaName}==${s.condaVersion}`,
            s.condaName,
            (r) => r.version === s.condaVersion,
            `${s.condaName} ${s.condaVersion}`,
          ),
        ),
      ];
      if (s.kind === 'conda-extra') requires.push(this.#exactBase(s.project, s.version, s.condaVersion));
      return { kind: 'known', requires, constrains: [] };
    }
    const metadata = this.#input.data.metadata(s.project, s.release.text);
    if (!metadata) throw new PypiDataNeeded([], [{ name: s.project, version: s.release.text }]);
    const why = metadata.requiresPythonText
      ? `Requires-Python ${metadata.requiresPythonText} and the wheel ${s.wheel.file.filename}`
      : `the wheel ${s.wheel.file.filename}`;
    const requires: VersionSetId[] = [this.#pythonSet(s.pythons, `python ${s.pythonLabel} (${why})`)];
    const extras = s.extra === undefined ? [] : [s.extra];
    const edges: string[] = [];
    for (const requirement of metadata.requiresDist) {
      if (requirement.url !== undefined)
        return { kind: 'unknown', reason: `it requires "${requirement}", a direct URL, which conda-resolve does not install` };
      const holds = requirement.marker ? evaluate(requirement.marker, s.environment, extras) : true;
      if (!holds) continue;
      // An extra's candidate adds only what the extra adds; the base candidate has the rest.
      if (s.extra !== undefined && requirement.marker && evaluate(requirement.marker, s.environment, [])) continue;
      edges.push(normalizePypiName(requirement.name));
      requires.push(...this.#requirementSets(requirement));
    }
    if (s.kind === 'extra') requires.push(this.#exactBase(s.project, s.release.version, s.release.text));
    else this.#edges.set(id, edges);
    return { kind: 'known', requires, constrains: [] };
  }

  /** The base project's candidates of exactly this version (an extra's candidate needs its release). */
  #exactBase(project: string, version: PypiVersion | undefined, text: string): VersionSetId {
    const name = this.#baseName(project);
    return this.#versionSet(`\0exact:${project}:${text}`, name, `${project} ==${text} (PyPI)`, (list) =>
      list.filter((s) => {
        const v = this.#versionOf(pypi(s));
        return version === undefined ? v === undefined : v !== undefined && v.compare(version) === 0;
      }),
    );
  }
}

function evaluate(marker: PypiMarker, environment: MarkerEnvironment, extras: readonly string[]): boolean {
  try {
    return marker.evaluate(environment, { extras });
  } catch {
    // packaging raises for a comparison it cannot make; pip then skips the requirement.
    return false;
  }
}

function usesPython(node: MarkerNode): boolean {
  if (node.kind === 'compare')
    return [node.left, node.right].some((o) => 'variable' in o && (PYTHON_VARIABLES as readonly string[]).includes(o.variable));
  return node.items.some(usesPython);
}

function collectVariables(node: MarkerNode, into: Set<string>): void {
  if (node.kind === 'compare') {
    for (const operand of [node.left, node.right]) if ('variable' in operand) into.add(operand.variable);
  } else for (const item of node.items) collectVariables(item, into);
}

function usedPythonVariables(requirements: readonly PypiRequirement[]): Set<string> {
  const used = new Set<string>();
  for (const requirement of requirements) if (requirement.marker) collectVariables(requirement.marker.node, used);
  return used;
}

const requiresPythonCache = new Map<string, PypiSpecifierSet | null>();
function parseRequiresPython(text: string | null): PypiSpecifierSet | null {
  if (text === null || text.trim() === '') return null;
  let known = requiresPythonCache.get(text);
  if (known === undefined) {
    try {
      known = parsePypiSpecifierSet(text);
    } catch {
      known = null;
    }
    requiresPythonCache.set(text, known);
  }
  return known;
}

/** `3.11.*`, `3.10.* | 3.11.*`, `3.8.* to 3.13.*`, or the full version when a group has only one. */
function pythonLabel(facts: readonly PythonFacts[]): string {
  const minors = [...new Set(facts.map((f) => f.environment.python_version))];
  const fulls = [...new Set(facts.map((f) => f.environment.python_full_version))];
  if (minors.length === 0) return 'no python';
  if (fulls.length === 1) return fulls[0];
  return minors.length <= 3 ? minors.map((m) => `${m}.*`).join(' | ') : `${minors[minors.length - 1]}.* to ${minors[0]}.*`;
}

/** An `===` or a non-wildcard `==` specifier: the one kind that may select a yanked release (PEP 592). */
function isPinned(spec: PypiSpecifierSet): boolean {
  return spec.specifiers.some((s) => s.operator === '===' || (s.operator === '==' && !s.version.endsWith('.*')));
}
