/**
 * A tiny textual package universe for testing the generic core without conda.
 *
 * One package per line: `name version [build] [features=N]: requirement, requirement | constraint, constraint`.
 * Versions are integers; a requirement is `name` or `name` followed by comma-separated
 * comparisons (`>=2`, `<4`, `=3`, `!=3`) joined with `,` inside the same requirement, e.g.
 * `b >=2 <4`. Candidates are sorted by fewer features, higher version, higher build.
 */
import type { ExplainInterner } from '../../../solver/core/explain/explain.js';
import type { Candidates, Dependencies, DependencyProvider, ExcludedCandidate } from '../../../solver/core/provider.js';

export interface UniversePackage {
  readonly name: string;
  readonly version: number;
  readonly build: number;
  readonly features: number;
  readonly requires: readonly string[];
  readonly constrains: readonly string[];
}

interface Comparison {
  readonly op: '>=' | '>' | '<=' | '<' | '=' | '!=';
  readonly value: number;
}

export interface ParsedRequirement {
  readonly name: string;
  readonly comparisons: readonly Comparison[];
}

export function parseRequirement(text: string): ParsedRequirement {
  const parts = text.trim().split(/\s+/);
  const name = parts[0];
  const comparisons: Comparison[] = [];
  for (const part of parts.slice(1)) {
    for (const item of part.split(',').filter(Boolean)) {
      const m = /^(>=|<=|!=|>|<|=)?(\d+)$/.exec(item);
      if (!m) throw new Error(`bad comparison ${item} in ${text}`);
      comparisons.push({ op: (m[1] ?? '=') as Comparison['op'], value: Number(m[2]) });
    }
  }
  return { name, comparisons };
}

export function matchesRequirement(requirement: ParsedRequirement, pkg: UniversePackage): boolean {
  if (pkg.name !== requirement.name) return false;
  return requirement.comparisons.every(({ op, value }) => {
    switch (op) {
      case '>=':
        return pkg.version >= value;
      case '>':
        return pkg.version > value;
      case '<=':
        return pkg.version <= value;
      case '<':
        return pkg.version < value;
      case '=':
        return pkg.version === value;
      case '!=':
        return pkg.version !== value;
    }
  });
}

export function parseUniverse(text: string): UniversePackage[] {
  const packages: UniversePackage[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [head, rest = ''] = line.split(':');
    const fields = head.trim().split(/\s+/);
    let build = 0;
    let features = 0;
    for (const field of fields.slice(2)) {
      if (field.startsWith('features=')) features = Number(field.slice(9));
      else build = Number(field);
    }
    const [requiresText = '', constrainsText = ''] = rest.split('|');
    const list = (s: string): string[] =>
      s
        .split(';')
        .map((x) => x.trim())
        .filter(Boolean);
    packages.push({
      name: fields[0],
      version: Number(fields[1]),
      build,
      features,
      requires: list(requiresText),
      constrains: list(constrainsText),
    });
  }
  return packages;
}

export function comparePreference(a: UniversePackage, b: UniversePackage): number {
  return a.features - b.features || b.version - a.version || b.build - a.build;
}

export class UniverseProvider implements DependencyProvider, ExplainInterner {
  readonly packages: UniversePackage[];
  readonly names: string[] = [];
  readonly #nameIds = new Map<string, number>();
  readonly versionSets: { name: number; text: string; requirement: ParsedRequirement }[] = [];
  readonly #versionSetIds = new Map<string, number>();
  /** Names whose candidates were requested, in order (laziness tests). */
  readonly requestedNames: string[] = [];
  readonly #byName = new Map<number, number[]>();
  readonly #excluded: Map<number, string>;

  constructor(packages: UniversePackage[], options: { excluded?: Map<number, string> } = {}) {
    this.packages = packages;
    this.#excluded = options.excluded ?? new Map();
    packages.forEach((pkg, id) => {
      const name = this.nameId(pkg.name);
      let list = this.#byName.get(name);
      if (!list) this.#byName.set(name, (list = []));
      list.push(id);
    });
    for (const list of this.#byName.values()) list.sort((x, y) => comparePreference(packages[x], packages[y]) || x - y);
  }

  nameId(name: string): number {
    let id = this.#nameIds.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.#nameIds.set(name, id);
    }
    return id;
  }

  versionSet(text: string): number {
    let id = this.#versionSetIds.get(text);
    if (id === undefined) {
      const requirement = parseRequirement(text);
      id = this.versionSets.length;
      this.versionSets.push({ name: this.nameId(requirement.name), text, requirement });
      this.#versionSetIds.set(text, id);
    }
    return id;
  }

  nameOfSolvable(solvable: number): number {
    return this.nameId(this.packages[solvable].name);
  }

  nameOfVersionSet(versionSet: number): number {
    return this.versionSets[versionSet].name;
  }

  candidates(name: number): Candidates {
    this.requestedNames.push(this.names[name]);
    const all = this.#byName.get(name) ?? [];
    return {
      solvables: all.filter((id) => !this.#excluded.has(id)),
      excluded: all.filter((id) => this.#excluded.has(id)).map((id) => ({ solvable: id, reason: this.#excluded.get(id)! })),
    };
  }

  matching(versionSet: number): readonly number[] {
    const { name, requirement } = this.versionSets[versionSet];
    return (this.#byName.get(name) ?? []).filter((id) => !this.#excluded.has(id) && matchesRequirement(requirement, this.packages[id]));
  }

  notMatching(versionSet: number): readonly number[] {
    const { name, requirement } = this.versionSets[versionSet];
    return (this.#byName.get(name) ?? []).filter((id) => !this.#excluded.has(id) && !matchesRequirement(requirement, this.packages[id]));
  }

  dependencies(solvable: number): Dependencies {
    const pkg = this.packages[solvable];
    return {
      kind: 'known',
      requires: pkg.requires.map((r) => this.versionSet(r)),
      constrains: pkg.constrains.map((r) => this.versionSet(r)),
    };
  }

  display(solvable: number): string {
    const pkg = this.packages[solvable];
    return `${pkg.name} ${pkg.version}${pkg.build ? ` b${pkg.build}` : ''}`;
  }

  displayName(name: number): string {
    return this.names[name];
  }

  displayVersionSet(versionSet: number): string {
    return this.versionSets[versionSet].text;
  }

  displayVersion(solvable: number): string {
    return String(this.packages[solvable].version);
  }

  compareVersions(a: number, b: number): number {
    return this.packages[a].version - this.packages[b].version;
  }

  excludedMatching(versionSet: number): readonly ExcludedCandidate[] {
    const { name, requirement } = this.versionSets[versionSet];
    return (this.#byName.get(name) ?? [])
      .filter((id) => this.#excluded.has(id) && matchesRequirement(requirement, this.packages[id]))
      .map((id) => ({ solvable: id, reason: this.#excluded.get(id)! }));
  }
}
