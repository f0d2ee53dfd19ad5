/** One problem over conda and PyPI (solver/pypi): Python moved by PyPI, exact markers, no duplicates, strategies. */
import { describe, expect, it } from 'vitest';
import { solveMixed, type MixedSolveRequest } from '../../solver/pypi/solve.js';
import type { PypiSolveInput } from '../../solver/pypi/types.js';
import { parseRequirement } from '../../vocabulary/pypi/requirement.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { MapSource } from './helpers/load-channel.js';
import { rec, virtual } from './helpers/records.js';
import { pypiData, type Universe } from './helpers/pypi-universe.js';

const PYTHONS = ['3.10.14', '3.11.9', '3.12.7'].map((v) =>
  rec('python', v, {
    build: `h0_cpython`,
    depends: [`python_abi ${v.split('.').slice(0, 2).join('.')}.* *_cp${v.split('.').slice(0, 2).join('')}`],
  }),
);
const ABIS = ['3.10', '3.11', '3.12'].map((v) => rec('python_abi', v, { build: `5_cp${v.replace('.', '')}` }));

function request(
  specs: string[],
  pypi: string[],
  universe: Universe,
  extra: Partial<PypiSolveInput> = {},
  records: PackageRecord[] = [],
): MixedSolveRequest {
  return {
    specs,
    channels: [{ name: 'conda-forge', sources: [new MapSource([...PYTHONS, ...ABIS, ...records])] }],
    virtualPackages: [virtual('__glibc', '2.28'), virtual('__unix', '0')],
    pypi: {
      platform: 'linux-64',
      virtualPackages: [{ name: '__glibc', version: '2.28', build: '0' }],
      requirements: pypi.map((r) => parseRequirement(r)),
      data: pypiData(universe),
      prereleases: undefined,
      resolution: 'highest',
      providedBy: () => [],
      providers: () => [],
      ...extra,
    },
  };
}

function picks(req: MixedSolveRequest): string[] | string {
  const outcome = solveMixed(req);
  if (outcome.kind === 'unsatisfiable') return outcome.message;
  return [
    ...outcome.records.map((r) => `${r.name}=${r.version}`),
    ...outcome.pypi.map((p) => `pypi:${p.name}==${p.version}${p.extras?.length ? `[${p.extras}]` : ''}`),
  ];
}

describe('one problem over conda and PyPI', () => {
  it('moves the conda python down to the one a PyPI release supports (a conda-first solve would pick 3.12 and fail)', () => {
    const universe = { oldpkg: { '1.0': { tags: ['cp310-cp310-manylinux_2_17_x86_64'] } } };
    expect(picks(request(['python'], ['oldpkg'], universe))).toEqual(['python=3.10.14', 'python_abi=3.10', 'pypi:oldpkg==1.0']);
    // Conda alone prefers 3.12: the PyPI requirement is what moved it.
    expect(picks(request(['python'], [], universe))).toEqual(['python=3.12.7', 'python_abi=3.12']);
  });

  it('follows Requires-Python of the release the PyPI side prefers', () => {
    const universe = { modern: { '2.0': { requiresPython: '>=3.11,<3.12' }, '1.0': {} } };
    expect(picks(request(['python'], ['modern>=2'], universe))).toEqual(['python=3.11.9', 'python_abi=3.11', 'pypi:modern==2.0']);
  });

  it('explains an unsatisfiable mix naming the conda and the PyPI parts', () => {
    const universe = { oldpkg: { '1.0': { requiresPython: '<3.11' } } };
    const message = picks(request(['python 3.12.*'], ['oldpkg'], universe));
    expect(typeof message).toBe('string');
    expect(message).toContain('oldpkg (PyPI)');
    expect(message).toContain('python 3.12');
  });

  it('evaluates markers for the solved Python exactly', () => {
    const universe = {
      app: { '1.0': { requires: ['tomli>=2; python_version < "3.11"', 'rich; python_full_version >= "3.11.5"'] } },
      tomli: { '2.0.1': {} },
      rich: { '13.0': {} },
    };
    expect(picks(request(['python 3.10.*'], ['app'], universe))).toEqual([
      'python=3.10.14',
      'python_abi=3.10',
      'pypi:app==1.0',
      'pypi:tomli==2.0.1',
    ]);
    expect(picks(request(['python 3.11.*'], ['app'], universe))).toEqual([
      'python=3.11.9',
      'python_abi=3.11',
      'pypi:app==1.0',
      'pypi:rich==13.0',
    ]);
  });

  it('evaluates a root requirement marker that depends on the Python per solved Python', () => {
    const universe = { tomli: { '2.0.1': {} } };
    expect(picks(request(['python 3.12.*'], ['tomli; python_version < "3.11"'], universe))).toEqual(['python=3.12.7', 'python_abi=3.12']);
    expect(picks(request(['python 3.10.*'], ['tomli; python_version < "3.11"'], universe))).toEqual([
      'python=3.10.14',
      'python_abi=3.10',
      'pypi:tomli==2.0.1',
    ]);
  });

  it('installs extras and their requirements', () => {
    const universe = {
      requests: { '2.32.3': { requires: ['idna', 'PySocks>=1.5.6; extra == "socks"'] } },
      idna: { '3.7': {} },
      pysocks: { '1.7.1': {} },
    };
    expect(picks(request(['python 3.12.*'], ['requests[socks]'], universe))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'pypi:idna==3.7',
      'pypi:pysocks==1.7.1',
      'pypi:requests==2.32.3[socks]',
    ]);
  });
});

describe('no duplicates between conda and PyPI', () => {
  const requestsConda = rec('requests', '2.31.0', { depends: ['python >=3.8'] });
  const mapping = {
    providedBy: (r: PackageRecord) => (r.name === 'requests' ? ['requests'] : []),
    providers: (n: string) => (n === 'requests' ? ['requests'] : []),
  };
  const universe = { requests: { '2.32.3': {}, '2.31.0': {} }, app: { '1.0': { requires: ['requests>=2'] } } };

  it('a PyPI requirement satisfied by a conda package installs nothing from PyPI', () => {
    expect(picks(request(['python 3.12.*', 'requests'], ['requests>=2.30'], universe, mapping, [requestsConda]))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'requests=2.31.0',
    ]);
    expect(picks(request(['python 3.12.*', 'requests'], ['app'], universe, mapping, [requestsConda]))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'requests=2.31.0',
      'pypi:app==1.0',
    ]);
  });

  it('never chooses a PyPI distribution beside the conda package providing it', () => {
    const message = picks(request(['python 3.12.*', 'requests'], ['requests>=2.32'], universe, mapping, [requestsConda]));
    expect(typeof message).toBe('string');
    expect(message).toContain('requests');
  });

  it('without the conda package the wheel is installed', () => {
    expect(picks(request(['python 3.12.*'], ['requests'], universe, mapping, [requestsConda]))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'pypi:requests==2.32.3',
    ]);
  });
});

describe('resolution strategies and pre-releases', () => {
  const universe = { a: { '1.0': { requires: ['b>=1'] }, '2.0': { requires: ['b>=1'] } }, b: { '1.0': {}, '1.5': {}, '2.0b1': {} } };

  it('highest, lowest and lowest-direct', () => {
    expect(picks(request(['python 3.12.*'], ['a'], universe))).toEqual(['python=3.12.7', 'python_abi=3.12', 'pypi:a==2.0', 'pypi:b==1.5']);
    expect(picks(request(['python'], ['a'], universe, { resolution: 'lowest' }))).toEqual([
      'python=3.10.14',
      'python_abi=3.10',
      'pypi:a==1.0',
      'pypi:b==1.0',
    ]);
    expect(picks(request(['python 3.12.*'], ['a'], universe, { resolution: 'lowest-direct' }))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'pypi:a==1.0',
      'pypi:b==1.5',
    ]);
  });

  it('takes a pre-release only when named, allowed, or nothing else fits', () => {
    expect(picks(request(['python 3.12.*'], ['b>=2.0b1'], universe))).toEqual(['python=3.12.7', 'python_abi=3.12', 'pypi:b==2.0b1']);
    expect(picks(request(['python 3.12.*'], ['b'], universe, { prereleases: true }))).toEqual([
      'python=3.12.7',
      'python_abi=3.12',
      'pypi:b==2.0b1',
    ]);
    expect(picks(request(['python 3.12.*'], ['b>1.5'], universe))).toEqual(['python=3.12.7', 'python_abi=3.12', 'pypi:b==2.0b1']);
  });

  it('a yanked release only for an == pin', () => {
    const yanked = { c: { '1.0': {}, '2.0': { yanked: true } } };
    expect(picks(request(['python 3.12.*'], ['c'], yanked))).toEqual(['python=3.12.7', 'python_abi=3.12', 'pypi:c==1.0']);
    expect(picks(request(['python 3.12.*'], ['c==2.0'], yanked))).toEqual(['python=3.12.7', 'python_abi=3.12', 'pypi:c==2.0']);
  });
});
