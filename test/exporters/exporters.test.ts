/**
 * The six exporters on cases the reference files do not cover: conda-lock's dependency map,
 * missing hashes, ordering, pixi's deduplication and optional fields, requested specs, and
 * conda's error messages.
 */
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { condaLockV1Document, exportCondaLockV1, formatCreatedAt } from '../../src/locks/conda-lock/write.js';
import { exportEnvironmentJson } from '../../src/exporters/environment-json.js';
import { exportEnvironmentYaml } from '../../src/exporters/environment-yaml.js';
import { exportExplicit } from '../../src/exporters/explicit.js';
import { exportRattlerLockV6 } from '../../src/locks/pixi-lock/write-v6.js';
import { exportRequirements } from '../../src/exporters/requirements.js';
import { dependencyVersion } from '../../src/exporters/spec-forms.js';
import { ExportError, type ExportEnvironment } from '../../src/exporters/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { CONTEXT, records } from './reference-records.js';

function record(overrides: Partial<PackageRecord> & { name: string; subdir?: string }): PackageRecord {
  const version = overrides.version ?? '1.0';
  const build = overrides.build ?? 'h0_0';
  const subdir = overrides.subdir ?? 'linux-64';
  const fn = `${overrides.name}-${version}-${build}.conda`;
  return {
    version,
    build,
    build_number: 0,
    channel: 'conda-forge',
    subdir,
    fn,
    url: `https://conda.anaconda.org/conda-forge/${subdir}/${fn}`,
    md5: 'd41d8cd98f00b204e9800998ecf8427e',
    sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    size: 1000,
    depends: [],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
    ...overrides,
  };
}

function env(platform: string, recs: PackageRecord[], extra: Partial<ExportEnvironment> = {}): ExportEnvironment {
  return { platform, records: recs, channels: ['conda-forge'], ...extra };
}

function failure(fn: () => unknown): ExportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExportError) return error;
    throw error;
  }
  throw new Error('expected an ExportError');
}

describe('conda-lock-v1', () => {
  it.each([
    // The mappings formats.md verified against conda-lockfiles.
    ['python_abi 3.13.* *_cp313', 'python_abi', '3.13.*'],
    ['libgcc >=14', 'libgcc', '>=14'],
    ['__unix', '__unix', ''],
    ['libzlib 1.3.2 h25fd6f3_2', 'libzlib', '1.3.2'],
    ['libgcc-ng ==15.2.0=*_18', 'libgcc-ng', '15.2.0'],
    ['openssl >=3.5.0,<4.0a0', 'openssl', '>=3.5.0,<4.0a0'],
    ['__glibc >=2.17,<3.0.a0', '__glibc', '>=2.17,<3.0.a0'],
  ])('maps the dependency %j to %s: %j', (dep, name, version) => {
    expect(dependencyVersion(dep)).toEqual({ name, version });
  });

  it('writes the dependency map in order, quoting what YAML would misread; a repeated name keeps its last spec', () => {
    const r = record({ name: 'pkg', depends: ['python_abi 3.13.* *_cp313', 'libgcc >=14', '__unix', 'numpy 1.26', 'numpy >=1.26,<2'] });
    const text = exportCondaLockV1([env('linux-64', [r])], CONTEXT);
    expect(text).toContain(
      "    dependencies:\n      python_abi: 3.13.*\n      libgcc: '>=14'\n      __unix: ''\n      numpy: '>=1.26,<2'\n",
    );
  });

  it('leaves a hash out when the channel does not publish it, and writes `hash: {}` when it has none', () => {
    const text = exportCondaLockV1(
      [env('linux-64', [record({ name: 'a', md5: null }), record({ name: 'b', md5: null, sha256: null })])],
      CONTEXT,
    );
    expect(text).toContain('    hash:\n      sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n    category: main');
    expect(text).toContain('    hash: {}\n');
    expect(text).not.toContain('md5');
  });

  it('orders packages by platform, then URL, repeating noarch packages per platform; platforms sorted', () => {
    const noarch = record({ name: 'tzdata', subdir: 'noarch' });
    const document = condaLockV1Document(
      [
        env('osx-arm64', [record({ name: 'zlib', subdir: 'osx-arm64' }), noarch]),
        env('linux-64', [record({ name: 'zlib' }), noarch, record({ name: 'abc' })]),
      ],
      CONTEXT,
    ) as { metadata: { platforms: string[] }; package: { name: string; platform: string }[] };
    expect(document.metadata.platforms).toEqual(['linux-64', 'osx-arm64']);
    expect(document.package.map((p) => `${p.platform}/${p.name}`)).toEqual([
      'linux-64/abc',
      'linux-64/zlib',
      'linux-64/tzdata', // .../linux-64/... sorts before .../noarch/...
      'osx-arm64/tzdata', // .../noarch/... sorts before .../osx-arm64/...
      'osx-arm64/zlib',
    ]);
  });

  it('lists the request channels by name or URL, with empty used_env_vars', () => {
    const text = exportCondaLockV1(
      [env('linux-64', [record({ name: 'a' })], { channels: ['conda-forge', 'https://repo.example.com/internal'] })],
      CONTEXT,
    );
    expect(text).toContain(
      '  channels:\n    - url: conda-forge\n      used_env_vars: []\n    - url: https://repo.example.com/internal\n      used_env_vars: []\n',
    );
  });

  it('writes created_at in UTC to the second, quoted, and created_by with the tool', () => {
    expect(formatCreatedAt(new Date('2026-01-02T03:04:05.999Z'))).toBe('2026-01-02T03:04:05Z');
    const text = exportCondaLockV1([env('linux-64', [record({ name: 'a' })])], CONTEXT);
    expect(text).toContain(
      "  time_metadata:\n    created_at: '2026-08-20T10:00:00Z'\n  custom_metadata:\n    created_by: conda-resolve 1.2.3\n",
    );
  });

  it('reads back as the conda-lock v1 data model', () => {
    const parsed = yaml.load(exportCondaLockV1([env('linux-64', records('linux-64'))], CONTEXT)) as {
      version: number;
      metadata: Record<string, unknown>;
      package: Record<string, unknown>[];
    };
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed.metadata)).toEqual(['content_hash', 'channels', 'platforms', 'sources', 'time_metadata', 'custom_metadata']);
    expect(Object.keys(parsed.package[0])).toEqual([
      'name',
      'version',
      'manager',
      'platform',
      'dependencies',
      'url',
      'hash',
      'category',
      'optional',
    ]);
    expect(parsed.metadata.sources).toEqual(['']);
  });

  it("refuses packages without a URL with conda-lockfiles' message", () => {
    const error = failure(() => exportCondaLockV1([env('linux-64', [record({ name: 'a', url: '' }), record({ name: 'b' })])], CONTEXT));
    expect(error.code).toBe('CR_ERR_EXPORT_NO_URL');
    expect(error.message).toBe(
      'The specified environment cannot be exporting to lockfile format conda-lock-v1. ' +
        'The following packages have no URL: \n  - conda-forge/linux-64::a==1.0=h0_0',
    );
  });
});

describe('rattler-lock-v6', () => {
  it('lists a package shared by platforms once, references it per platform, in (name, platform) order', () => {
    const noarch = record({ name: 'ca-certificates', subdir: 'noarch' });
    const text = exportRattlerLockV6([
      env('osx-arm64', [record({ name: 'zlib', subdir: 'osx-arm64' }), noarch]),
      env('linux-64', [noarch, record({ name: 'zlib' })]),
    ]);
    const parsed = yaml.load(text) as {
      environments: { default: { packages: Record<string, { conda: string }[]> } };
      packages: { conda: string }[];
    };
    expect(Object.keys(parsed.environments.default.packages)).toEqual(['linux-64', 'osx-arm64']);
    expect(parsed.environments.default.packages['linux-64'].map((p) => p.conda.split('/').pop())).toEqual([
      'ca-certificates-1.0-h0_0.conda',
      'zlib-1.0-h0_0.conda',
    ]);
    expect(parsed.packages.map((p) => p.conda.split('/').slice(-2).join('/'))).toEqual([
      'noarch/ca-certificates-1.0-h0_0.conda',
      'linux-64/zlib-1.0-h0_0.conda',
      'osx-arm64/zlib-1.0-h0_0.conda',
    ]);
  });

  it('writes only the fields that have a value, in conda-lockfiles 0.2 order, never the timestamp', () => {
    const full = record({
      name: 'full',
      license: 'MIT',
      license_family: 'MIT',
      depends: ['python >=3.9'],
      constrains: ['numpy <2'],
      features: 'blas_openblas',
      track_features: ['mkl'],
      python_site_packages_path: 'lib/python3.13t/site-packages',
      timestamp: 1771350215188,
    });
    const bare = record({ name: 'bare', md5: null, sha256: null, size: null });
    const parsed = yaml.load(exportRattlerLockV6([env('linux-64', [full, bare])])) as { packages: Record<string, unknown>[] };
    expect(Object.keys(parsed.packages[1])).toEqual([
      'conda',
      'sha256',
      'md5',
      'license',
      'license_family',
      'size',
      'depends',
      'constrains',
      'features',
      'track_features',
      'python_site_packages_path',
    ]);
    expect(parsed.packages[0]).toEqual({ conda: bare.url });
  });

  it('writes `channels: []` when the channels are not known', () => {
    expect(exportRattlerLockV6([env('linux-64', [record({ name: 'a' })], { channels: [] })])).toContain('  default:\n    channels: []\n');
  });
});

describe('explicit', () => {
  it("refuses an environment without packages with conda's message", () => {
    const error = failure(() => exportExplicit(env('linux-64', []), CONTEXT));
    expect(error.code).toBe('CR_ERR_EXPORT_EXPLICIT_NO_PACKAGES');
    expect(error.message).toBe(
      "Cannot export explicit format: no explicit packages with installation metadata found. Use 'requirements' format for environments with only requested packages, or ensure the environment has been solved and installed.",
    );
  });

  it('refuses requested packages that are not in the environment, names sorted', () => {
    const error = failure(() =>
      exportExplicit(env('linux-64', [record({ name: 'a' })], { requestedSpecs: ['zlib', 'a', 'conda-forge::bzip2>=1'] }), CONTEXT),
    );
    expect(error.message).toBe(
      "Cannot export explicit format: some requested packages lack installation metadata: bzip2, zlib. Use 'requirements' format or ensure all packages are properly installed.",
    );
  });

  it('never writes a virtual package: conda create --file cannot install one', () => {
    // As conda-lock's pangeo example locks it: __osx with a file:///var/folders/... URL.
    const osx = record({ name: '__osx', version: '11.0', build: '0', subdir: 'osx-64' });
    const virtual = { ...osx, url: 'file:///var/folders/wp/0dbcjg8n2y95z6_3_5khb9kr0000gn/T/tmpwlkinwe4/osx-64/__osx-11.0-0.tar.bz2' };
    const text = exportExplicit(env('osx-64', [record({ name: 'a', subdir: 'osx-64' }), virtual]), CONTEXT);
    expect(text).not.toContain('__osx');
    expect(text.split('\n').slice(4)).toEqual(['@EXPLICIT', record({ name: 'a', subdir: 'osx-64' }).url]);
  });

  it('treats an environment of virtual packages only as one without packages', () => {
    const glibc = record({ name: '__glibc', version: '2.28', build: '0' });
    expect(failure(() => exportExplicit(env('linux-64', [glibc]), CONTEXT)).code).toBe('CR_ERR_EXPORT_EXPLICIT_NO_PACKAGES');
  });

  it('refuses a package without a URL', () => {
    expect(failure(() => exportExplicit(env('linux-64', [record({ name: 'a', url: '' })]), CONTEXT)).message).toBe(
      "Cannot export 'a': explicit format requires package URLs",
    );
  });
});

describe('requirements', () => {
  it("refuses a solved environment (no requested specs) with conda's message", () => {
    const error = failure(() => exportRequirements(env('linux-64', records('linux-64')), CONTEXT));
    expect(error.code).toBe('CR_ERR_EXPORT_REQUIREMENTS_NO_SPECS');
    expect(error.format).toBe('requirements');
    expect(error.message).toBe(
      "Cannot export requirements format: no requested packages found. Use 'explicit' format for environments with installed packages, or ensure the environment has package specifications.",
    );
  });

  it("writes requested specs in conda's canonical MatchSpec form", () => {
    const text = exportRequirements(
      env('linux-64', [], { requestedSpecs: ['numpy>=1.26', 'python=3.12', 'pip', 'conda-forge::bzip2 1.0.8 h0_1'] }),
      CONTEXT,
    );
    expect(text.split('\n').slice(4)).toEqual([
      '# Note: This is a conda requirements file (MatchSpec format)',
      '# Contains conda package specifications, not pip requirements',
      '',
      "numpy[version='>=1.26']",
      'python=3.12',
      'pip',
      'conda-forge::bzip2==1.0.8=h0_1',
    ]);
  });
});

describe('environment-yaml and environment-json', () => {
  it('list requested specs in the environment-file form (formats.md 1.6)', () => {
    const environment = env('linux-64', [], {
      name: 'myenv',
      environmentChannels: ['conda-forge', 'bioconda'],
      requestedSpecs: ['python=3.12.4=h194c7f8_0_cpython', 'numpy>=1.26', 'pip', 'conda-forge::python=3.12=*_cpython'],
      variables: { A: '1' },
      prefix: '/opt/envs/myenv',
    });
    expect(exportEnvironmentYaml(environment)).toBe(
      [
        'name: myenv',
        'channels:',
        '  - conda-forge',
        '  - bioconda',
        'dependencies:',
        '  - python=3.12.4=h194c7f8_0_cpython',
        "  - numpy[version='>=1.26']",
        '  - pip',
        '  - python=3.12[build=*_cpython]',
        'variables:',
        "  A: '1'",
        'prefix: /opt/envs/myenv',
        '',
      ].join('\n'),
    );
  });

  it('write an empty environment with `dependencies: []` and no channel list from the request', () => {
    const empty = env('linux-64', [], { channels: ['conda-forge'] });
    expect(exportEnvironmentYaml(empty)).toBe('name:\ndependencies: []\n');
    expect(exportEnvironmentJson(empty)).toBe('{\n  "name": null,\n  "dependencies": []\n}');
  });

  it("keep non-ASCII text as it is in JSON, as Python's ensure_ascii=False does", () => {
    expect(exportEnvironmentJson(env('linux-64', [], { name: 'café "x"\t' }))).toBe(
      '{\n  "name": "café \\"x\\"\\t",\n  "dependencies": []\n}',
    );
  });
});
