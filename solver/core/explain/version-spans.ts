/**
 * Versions as an explanation lists them: one name's records as spans, lowest first, where three
 * or more versions that are consecutive among all the name has (selectable or excluded) become
 * one run, so `numpy 1.0 .. 2.1` is one span rather than forty versions.
 */
import type { NameId, SolvableId } from '../ids.js';
import type { DependencyProvider } from '../provider.js';
import type { ExplainInterner } from './interner.js';
import type { VersionList, VersionSpan } from './types.js';

/** Collapses records into spans; each name's version universe is worked out once. */
export class VersionSpans {
  readonly #provider: DependencyProvider;
  readonly #interner: ExplainInterner;
  readonly #universes = new Map<NameId, readonly string[]>();

  constructor(provider: DependencyProvider, interner: ExplainInterner) {
    this.#provider = provider;
    this.#interner = interner;
  }

  /** A set of one name's solvables as versions, lowest first, consecutive ones in runs. */
  collapse(name: NameId, solvables: readonly SolvableId[]): VersionSpan[] {
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
    const known = this.#universes.get(name);
    if (known) return known;
    const candidates = this.#provider.candidates(name);
    const all = [...candidates.solvables, ...candidates.excluded.map((e) => e.solvable)];
    all.sort((a, b) => this.#interner.compareVersions(a, b));
    const versions = [...new Set(all.map((solvable) => this.#interner.displayVersion(solvable)))];
    this.#universes.set(name, versions);
    return versions;
  }
}

/** The spans of several lists, each once (equal when they cover the same versions), in order of first appearance. */
export function uniqueSpans(spans: VersionList): VersionSpan[] {
  const seen = new Map<string, VersionSpan>();
  for (const span of spans) {
    const key = span.kind === 'run' ? `${span.first}\0${span.last}` : span.version;
    if (!seen.has(key)) seen.set(key, span);
  }
  return [...seen.values()];
}
