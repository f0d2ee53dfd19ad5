/**
 * Runs resolver scenarios in astral-sh/packse's format (uv's resolver test suite) through our mixed
 * solve: each scenario's packages become an in-memory index (releases, wheel tags, Requires-Python,
 * Requires-Dist with extras as `extra == "x"` markers, yanked), its environment a conda `python`
 * record of the scenario's version on linux-64, and its root requirements the PyPI requirements.
 *
 * The format (packse's `src/packse/scenario.py`): `[root] requires`, `[packages.NAME.versions."V"]`
 * with `requires`, `requires_python` (default ">=3.12"), `extras`, `wheel` / `sdist` (default both),
 * `wheel_tags` (default py3-none-any), `yanked`; `[environment] python` (default 3.12);
 * `[resolver_options]` (`python`, `prereleases`, `universal`, `python_platform`, `no_build`,
 * `no_binary`); `[expected] satisfiable` and `packages` (name -> version).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { solveMixed } from '../../solver/pypi/solve.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import { parseRequirement } from '../../vocabulary/pypi/requirement.js';
import { parsePypiSpecifierSet } from '../../vocabulary/pypi/specifier.js';
import { tryParsePypiVersion } from '../../vocabulary/pypi/version.js';
import { MapSource } from '../solver/helpers/load-channel.js';
import { rec, virtual } from '../solver/helpers/records.js';
import { pypiData, type ReleaseSpec } from '../solver/helpers/pypi-universe.js';

interface VersionSpec {
  readonly requires?: readonly string[];
  readonly requires_python?: string | null;
  readonly extras?: Readonly<Record<string, readonly string[]>>;
  readonly sdist?: boolean;
  readonly wheel?: boolean;
  readonly yanked?: boolean;
  readonly wheel_tags?: readonly string[];
}

export interface PackseScenario {
  readonly name: string;
  readonly description?: string;
  readonly root: { readonly requires?: readonly string[]; readonly requires_python?: string | null };
  readonly packages: Readonly<Record<string, { readonly versions: Readonly<Record<string, VersionSpec>> }>>;
  readonly expected: { readonly satisfiable: boolean; readonly packages?: Readonly<Record<string, string>>; readonly explanation?: string };
  readonly environment?: { readonly python?: string };
  readonly resolver_options?: {
    readonly python?: string;
    readonly prereleases?: boolean;
    readonly universal?: boolean;
    readonly python_platform?: string;
    readonly no_build?: readonly string[];
    readonly no_binary?: readonly string[];
  };
}

export type PackseResult =
  | { readonly kind: 'pass' }
  | { readonly kind: 'fail'; readonly expected: string; readonly got: string }
  /** Not a question our resolver answers: uv's universal (forking) mode, or an answer that needs a build. */
  | { readonly kind: 'not-applicable'; readonly why: string };

export function readScenario(path: string): PackseScenario {
  const text = readFileSync(path, 'utf8');
  return (path.endsWith('.json') ? JSON.parse(text) : parseToml(text)) as unknown as PackseScenario;
}

/** Every `.toml`/`.json` scenario under `dir`, recursively, sorted (packse's YAML examples are left out). */
export function scenarioFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at).sort()) {
      const path = join(at, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.toml') || entry.endsWith('.json')) out.push(path);
    }
  };
  walk(dir);
  return out
    .map((p) => relative(dir, p))
    .sort()
    .map((p) => join(dir, p));
}

/**
 * Scenarios where uv's documented choice differs from pip's, and we follow PEP 440 / PEP 345 as pip
 * does: the outcome we (and pip) give instead of packse's expected one.
 */
export const FOLLOWS_PIP: Readonly<Record<string, { readonly outcome: string; readonly why: string }>> = {
  'package-only-prereleases-in-range': {
    outcome: 'a==1.0.0a1',
    why: 'PEP 440: a pre-release is taken when no final release satisfies the specifier (uv refuses when the project has any final release)',
  },
  'transitive-package-only-prereleases-in-range': { outcome: 'a==0.1.0, b==1.0.0a1', why: 'PEP 440: as above, for a dependency' },
  'python-less-than-current': {
    outcome: 'unsatisfiable',
    why: 'Requires-Python is a whole specifier (PEP 345): uv ignores its upper bound, pip does not',
  },
};

/** Why the scenario asks something our resolver does not answer, or undefined. */
function notApplicable(s: PackseScenario): string | undefined {
  const options = s.resolver_options ?? {};
  if (options.universal) return 'universal (forking) resolution';
  if ((options.no_binary ?? []).length > 0) return 'no_binary: needs a build';
  if (options.python_platform && !/linux/.test(options.python_platform)) return `platform ${options.python_platform}`;
  // An expected pick with no wheel can only come from building its sdist, which we never do.
  for (const [name, version] of Object.entries(s.expected.packages ?? {})) {
    const spec = s.packages[name]?.versions[version];
    if (spec && spec.wheel === false) return `${name} ${version} has only an sdist: needs a build`;
  }
  // Satisfiable with nothing named: uv reads an sdist's static metadata where no wheel fits.
  if (s.expected.satisfiable && Object.keys(s.expected.packages ?? {}).length === 0) {
    const python = tryParsePypiVersion(targetPython(s));
    for (const requirement of s.root.requires ?? []) {
      const versions = Object.values(s.packages[parseRequirement(requirement).name]?.versions ?? {});
      const wheelFits = (v: VersionSpec): boolean =>
        v.wheel !== false &&
        (v.wheel_tags ?? []).length === 0 &&
        (python === undefined ||
          parsePypiSpecifierSet(v.requires_python === undefined ? '>=3.12' : (v.requires_python ?? '')).contains(python, {
            prereleases: true,
          }));
      if (versions.length > 0 && !versions.some(wheelFits)) return `${requirement} has no wheel for the target: needs a build`;
    }
  }
  return undefined;
}

function targetPython(s: PackseScenario): string {
  return s.resolver_options?.python ?? s.environment?.python ?? '3.12';
}

function withExtra(requirement: string, extra: string): string {
  const [req, marker] = requirement.split(';', 2) as [string, string | undefined];
  return marker && marker.trim() !== ''
    ? `${req.trim()} ; (${marker.trim()}) and extra == "${extra}"`
    : `${req.trim()} ; extra == "${extra}"`;
}

function pythonRecords(version: string) {
  const parts = version.split('.');
  const full = parts.length >= 3 ? version : `${parts[0]}.${parts[1]}.0`;
  const minor = `${parts[0]}.${parts[1]}`;
  const abi = `cp${parts[0]}${parts[1]}`;
  return [
    rec('python', full, { build: 'h0_cpython', depends: [`python_abi ${minor}.* *_${abi}`] }),
    rec('python_abi', minor, { build: `5_${abi}` }),
  ];
}

export function runScenario(s: PackseScenario): PackseResult {
  const why = notApplicable(s);
  if (why) return { kind: 'not-applicable', why };
  const universe: Record<string, Record<string, ReleaseSpec>> = {};
  for (const [name, pkg] of Object.entries(s.packages)) {
    const releases: Record<string, ReleaseSpec> = {};
    for (const [version, spec] of Object.entries(pkg.versions)) {
      if (spec.wheel === false) continue; // sdist only: never a candidate (we never build)
      const requires = [
        ...(spec.requires ?? []),
        ...Object.entries(spec.extras ?? {}).flatMap(([extra, list]) => list.map((r) => withExtra(r, extra))),
      ];
      const requiresPython = spec.requires_python === undefined ? '>=3.12' : spec.requires_python;
      releases[version] = {
        requires,
        ...(requiresPython ? { requiresPython } : {}),
        ...(spec.yanked ? { yanked: true } : {}),
        ...(spec.wheel_tags && spec.wheel_tags.length > 0 ? { tags: spec.wheel_tags } : {}),
      };
    }
    universe[name] = releases;
  }
  const python = targetPython(s);
  let outcome;
  try {
    outcome = solveMixed({
      specs: [`python ${pythonRecords(python)[0]!.version}`],
      channels: [{ name: 'conda-forge', sources: [new MapSource(pythonRecords(python))] }],
      virtualPackages: [virtual('__glibc', '2.28'), virtual('__unix', '0')],
      pypi: {
        platform: 'linux-64',
        virtualPackages: [{ name: '__glibc', version: '2.28', build: '0' }],
        requirements: (s.root.requires ?? []).map((r) => parseRequirement(r)),
        data: pypiData(universe),
        prereleases: s.resolver_options?.prereleases ? true : undefined,
        resolution: 'highest',
        providedBy: () => [],
        providers: () => [],
      },
    });
  } catch (error) {
    return { kind: 'fail', expected: describe(s), got: `error: ${(error as Error).message}` };
  }
  const got = outcome.kind === 'solved' ? picks(Object.fromEntries(outcome.pypi.map((p) => [p.name, p.version ?? '']))) : 'unsatisfiable';
  const pip = FOLLOWS_PIP[s.name];
  const expected = pip ? pip.outcome : describe(s);
  if (pip) return got === expected ? { kind: 'pass' } : { kind: 'fail', expected, got };
  if (!s.expected.satisfiable) return got === 'unsatisfiable' ? { kind: 'pass' } : { kind: 'fail', expected, got };
  // A satisfiable scenario without expected packages only says that a solution exists.
  if (s.expected.packages === undefined || Object.keys(s.expected.packages).length === 0)
    return got !== 'unsatisfiable' ? { kind: 'pass' } : { kind: 'fail', expected, got };
  return got === expected ? { kind: 'pass' } : { kind: 'fail', expected, got };
}

function describe(s: PackseScenario): string {
  return s.expected.satisfiable ? picks(s.expected.packages ?? {}) : 'unsatisfiable';
}

/** `a==1.0.0, b==2` with names normalised and versions in PEP 440's normal form, sorted. */
function picks(map: Readonly<Record<string, string>>): string {
  return Object.entries(map)
    .map(([name, version]) => `${normalizePypiName(name)}==${tryParsePypiVersion(version)?.toString() ?? version}`)
    .sort()
    .join(', ');
}
