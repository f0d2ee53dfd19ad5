/**
 * Writes a synthetic conda-forge-scale channel (linux-64 + noarch) for benchmarks and load tests.
 *
 *   npx tsx bench/generate-channel.ts --out DIR [--records N] [--names N]
 *       [--noarch-records N] [--noarch-names N] [--seed S] [--compact]
 *
 * Defaults: 465,000 linux-64 records over 25,000 names (conda-forge linux-64 had 465,679 records in
 * May 2024), plus 100,000 noarch records over 8,000 names; seed 1; indent=2 with sorted keys, as
 * conda-index writes repodata.json. `DIR` becomes a channel: `DIR/linux-64/repodata.json` and
 * `DIR/noarch/repodata.json`, usable as a `file://` channel or served over HTTP.
 *
 * Shapes are modelled on the shared snapshots (`../shared/channels`): a hand-written core of real
 * package names with conda-forge's pins (python 3.8..3.12 with `_cpython` builds and `python_abi`,
 * numpy/pandas/scipy/scikit-learn/matplotlib built per python as `py39h1234567_0`, BLAS variants,
 * the C libraries python needs, noarch python packages such as python-dateutil and pytz), so a
 * data-science solve is meaningful; the remaining names are filler with the same shapes (python
 * extensions pinned per python, C libraries with `>=x.y,<x+1.0a0` run-export pins, R packages,
 * noarch python packages), a heavy-tailed number of records per name, `.tar.bz2` for older and
 * `.conda` for newer builds (some in both), occasional `constrains` and `track_features`.
 * The output is a pure function of the options (same seed, same bytes). The hand-written core is
 * always written (about 1,000 linux-64 records over 67 names and 100 noarch records over 15 names),
 * so smaller `--records`/`--names` values than that give just the core.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface GenerateOptions {
  readonly out: string;
  readonly records?: number;
  readonly names?: number;
  readonly noarchRecords?: number;
  readonly noarchNames?: number;
  readonly seed?: number;
  /** Compact JSON instead of indent=2. */
  readonly compact?: boolean;
}

export interface GeneratedSubdir {
  readonly subdir: string;
  readonly path: string;
  readonly records: number;
  readonly names: number;
  readonly bytes: number;
}

/** One record before serialisation; keys are written sorted, as conda-index does. */
interface RawRecord {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends: string[];
  constrains?: string[];
  track_features?: string;
  noarch?: 'python' | 'generic';
  license: string;
  license_family: string;
  size: number;
  timestamp: number;
  ext: '.tar.bz2' | '.conda';
}

/** sfc32: small, fast, deterministic. */
class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;
  constructor(seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.next();
  }
  /** Uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }
  float(): number {
    return this.next() / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.float() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }
  hex(chars: number): string {
    const words = (chars + 7) >> 3;
    for (let i = 0; i < words; i++) HEX_SCRATCH.writeUInt32LE(this.next(), i * 4);
    return HEX_SCRATCH.toString('hex', 0, words * 4).slice(0, chars);
  }
}

const HEX_SCRATCH = Buffer.alloc(64);

// --- the hand-written core (conda-forge pins, May 2024) -----------------------------------------

const PYTHONS: ReadonlyArray<{ minor: string; patches: number[]; from: number }> = [
  { minor: '3.8', patches: [6, 8, 10, 12, 13, 15, 16, 17, 18, 19], from: 0.0 },
  { minor: '3.9', patches: [1, 2, 4, 6, 7, 9, 10, 12, 13, 15, 16, 17, 18, 19], from: 0.1 },
  { minor: '3.10', patches: [0, 2, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14], from: 0.4 },
  { minor: '3.11', patches: [0, 3, 4, 5, 6, 7, 8, 9], from: 0.65 },
  { minor: '3.12', patches: [0, 1, 2, 3], from: 0.85 },
];

const T_START = Date.UTC(2018, 0, 1);
const T_END = Date.UTC(2024, 4, 20);
/** A timestamp at fraction `f` (0..1) of the channel's history. */
function when(f: number, random: Random): number {
  const span = T_END - T_START;
  return Math.floor(T_START + Math.min(1, Math.max(0, f)) * span + random.float() * 86_400_000 * 20);
}

function nextMajor(version: string): string {
  const major = Number(version.split('.')[0]);
  return `${major + 1}.0a0`;
}

function nextMinor(version: string): string {
  const [major, minor] = version.split('.');
  return `${major}.${Number(minor ?? 0) + 1}.0a0`;
}

/** `>=1.2.13,<1.3.0a0`-style run-export pin, as conda-forge's pin_subpackage/max_pin writes. */
function pin(version: string, maxPin: 'x' | 'x.x'): string {
  return `>=${version},<${maxPin === 'x' ? nextMajor(version) : nextMinor(version)}`;
}

function pythonDeps(minor: string): string[] {
  const [major, m] = minor.split('.');
  return [`python >=${minor},<${major}.${Number(m) + 1}.0a0`, `python_abi ${minor}.* *_cp${major}${m}`];
}

interface CoreLib {
  name: string;
  versions: string[];
  depends: (version: string) => string[];
  constrains?: (version: string, build: string) => string[];
  buildsPerVersion?: number;
  maxPin?: 'x' | 'x.x';
  license?: string;
}

const GCC = ['9.3.0', '10.3.0', '11.2.0', '12.2.0', '12.3.0', '13.1.0', '13.2.0'];

/**
 * The build hash of a core library version. conda-forge builds sibling packages from one recipe
 * with one hash (libgcc-ng and libgomp 13.2.0 are both `h77fa898_7`), and other records pin those
 * exact builds, so the hash must be a function of the version for those pins to be satisfiable.
 */
function coreHash(version: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < version.length; i++) h = Math.imul(h ^ version.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0').slice(0, 7);
}

const CORE_LIBS: CoreLib[] = [
  { name: '_libgcc_mutex', versions: ['0.1'], depends: () => [], buildsPerVersion: 2 },
  {
    name: '_openmp_mutex',
    versions: ['4.5'],
    depends: () => ['_libgcc_mutex 0.1 conda_forge', 'libgomp >=7.5.0'],
    constrains: () => ['openmp_impl 9999'],
    buildsPerVersion: 4,
  },
  { name: 'libgomp', versions: GCC, depends: () => ['_libgcc_mutex 0.1 conda_forge'], buildsPerVersion: 6 },
  {
    name: 'libgcc-ng',
    versions: GCC,
    depends: () => ['_libgcc_mutex 0.1 conda_forge', '_openmp_mutex >=4.5'],
    constrains: (v, b) => [`libgomp ${v} ${b}`],
    buildsPerVersion: 6,
  },
  { name: 'libstdcxx-ng', versions: GCC, depends: () => [], buildsPerVersion: 6 },
  { name: 'libgfortran5', versions: GCC, depends: () => [], constrains: (v) => [`libgfortran-ng ${v} *`], buildsPerVersion: 4 },
  { name: 'libgfortran-ng', versions: GCC, depends: (v) => [`libgfortran5 ${v} h${coreHash(v)}_*`], buildsPerVersion: 4 },
  {
    name: 'ld_impl_linux-64',
    versions: ['2.36.1', '2.38', '2.39', '2.40'],
    depends: () => [],
    constrains: (v) => [`binutils_impl_linux-64 ${v}`],
    buildsPerVersion: 3,
  },
  {
    name: 'ca-certificates',
    versions: ['2022.12.7', '2023.5.7', '2023.7.22', '2023.11.17', '2024.2.2'],
    depends: () => [],
    buildsPerVersion: 1,
  },
  { name: 'bzip2', versions: ['1.0.8'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 6, maxPin: 'x' },
  {
    name: 'libzlib',
    versions: ['1.2.11', '1.2.12', '1.2.13', '1.3', '1.3.1'],
    depends: () => ['libgcc-ng >=12'],
    constrains: (v) => [`zlib ${v} *_0`],
    buildsPerVersion: 5,
    maxPin: 'x.x',
  },
  {
    name: 'zlib',
    versions: ['1.2.11', '1.2.12', '1.2.13', '1.3', '1.3.1'],
    depends: (v) => ['libgcc-ng >=12', `libzlib ${v} h${coreHash(v)}_0`],
    buildsPerVersion: 4,
  },
  { name: 'xz', versions: ['5.2.5', '5.2.6', '5.4.2', '5.4.6'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 3, maxPin: 'x' },
  { name: 'libffi', versions: ['3.3', '3.4.2'], depends: () => ['libgcc-ng >=9.4.0'], buildsPerVersion: 5, maxPin: 'x.x' },
  { name: 'libnsl', versions: ['2.0.0', '2.0.1'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 2, maxPin: 'x.x' },
  { name: 'libuuid', versions: ['2.32.1', '2.38.1'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 3, maxPin: 'x' },
  { name: 'libxcrypt', versions: ['4.4.36'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 2 },
  {
    name: 'libexpat',
    versions: ['2.5.0', '2.6.1', '2.6.2'],
    depends: () => ['libgcc-ng >=12'],
    constrains: (v) => [`expat ${v}.*`],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'ncurses',
    versions: ['6.2', '6.3', '6.4', '6.4.20240210', '6.5'],
    depends: () => ['libgcc-ng >=12'],
    buildsPerVersion: 3,
    maxPin: 'x',
  },
  {
    name: 'readline',
    versions: ['8.1', '8.1.2', '8.2'],
    depends: () => ['libgcc-ng >=12', 'ncurses >=6.3,<7.0a0'],
    buildsPerVersion: 3,
    maxPin: 'x',
  },
  {
    name: 'tk',
    versions: ['8.6.11', '8.6.12', '8.6.13'],
    depends: () => ['libgcc-ng >=12', 'libzlib >=1.2.13,<1.3.0a0'],
    buildsPerVersion: 4,
    maxPin: 'x.x',
  },
  {
    name: 'libsqlite',
    versions: ['3.40.0', '3.42.0', '3.43.2', '3.44.2', '3.45.1', '3.45.2', '3.45.3'],
    depends: () => ['libgcc-ng >=12', 'libzlib >=1.2.13,<1.3.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'openssl',
    versions: ['1.1.1w', '3.0.13', '3.1.5', '3.2.0', '3.2.1', '3.3.0'],
    depends: () => ['ca-certificates', 'libgcc-ng >=12'],
    constrains: () => ['pyopenssl >=22.1'],
    buildsPerVersion: 3,
    maxPin: 'x',
  },
  {
    name: 'libopenblas',
    versions: ['0.3.21', '0.3.23', '0.3.25', '0.3.26', '0.3.27'],
    depends: () => ['libgcc-ng >=12', 'libgfortran-ng', 'libgfortran5 >=12.3.0'],
    constrains: (v) => [`openblas >=${v},<${nextMinor(v)}`],
    buildsPerVersion: 3,
    maxPin: 'x',
  },
  {
    name: 'mkl',
    versions: ['2022.1.0', '2022.2.1', '2023.2.0'],
    depends: () => ['_openmp_mutex >=4.5', 'llvm-openmp >=16.0.6', 'tbb 2021.*'],
    buildsPerVersion: 2,
    license: 'LicenseRef-IntelSimplifiedSoftwareOct2022',
  },
  {
    name: 'llvm-openmp',
    versions: ['15.0.7', '16.0.6', '17.0.6', '18.1.5'],
    depends: () => ['libzlib >=1.2.13,<1.3.0a0'],
    constrains: () => ['openmp 18.1.5|18.1.5.*'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'tbb',
    versions: ['2021.7.0', '2021.9.0', '2021.11.0', '2021.12.0'],
    depends: () => ['libgcc-ng >=12', 'libhwloc >=2.10.0,<2.10.1.0a0', 'libstdcxx-ng >=12'],
    buildsPerVersion: 2,
  },
  {
    name: 'libhwloc',
    versions: ['2.9.1', '2.9.3', '2.10.0'],
    depends: () => ['libgcc-ng >=12', 'libstdcxx-ng >=12', 'libxml2 >=2.12.6,<3.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x.x',
  },
  {
    name: 'libxml2',
    versions: ['2.10.4', '2.11.6', '2.12.6', '2.12.7'],
    depends: () => ['icu >=73.2,<74.0a0', 'libgcc-ng >=12', 'libiconv >=1.17,<2.0a0', 'libzlib >=1.2.13,<1.3.0a0', 'xz >=5.2.6,<6.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'icu',
    versions: ['70.1', '72.1', '73.2'],
    depends: () => ['libgcc-ng >=12', 'libstdcxx-ng >=12'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  { name: 'libiconv', versions: ['1.16', '1.17'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 2, maxPin: 'x' },
  {
    name: 'freetype',
    versions: ['2.10.4', '2.12.1'],
    depends: () => ['libgcc-ng >=12', 'libpng >=1.6.39,<1.7.0a0', 'libzlib >=1.2.13,<1.3.0a0'],
    buildsPerVersion: 3,
    maxPin: 'x',
  },
  {
    name: 'libpng',
    versions: ['1.6.37', '1.6.39', '1.6.43'],
    depends: () => ['libgcc-ng >=12', 'libzlib >=1.2.13,<1.3.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x.x',
  },
  {
    name: 'libjpeg-turbo',
    versions: ['2.1.5.1', '3.0.0'],
    depends: () => ['libgcc-ng >=12'],
    constrains: () => ['jpeg <0.0.0a'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'lcms2',
    versions: ['2.14', '2.15', '2.16'],
    depends: () => ['libgcc-ng >=12', 'libjpeg-turbo >=3.0.0,<4.0a0', 'libtiff >=4.6.0,<4.7.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'libtiff',
    versions: ['4.5.1', '4.6.0'],
    depends: () => [
      'libdeflate >=1.20,<1.21.0a0',
      'libgcc-ng >=12',
      'libjpeg-turbo >=3.0.0,<4.0a0',
      'libstdcxx-ng >=12',
      'libwebp-base >=1.3.2,<2.0a0',
      'libzlib >=1.2.13,<1.3.0a0',
      'xz >=5.2.6,<6.0a0',
      'zstd >=1.5.5,<1.6.0a0',
    ],
    buildsPerVersion: 2,
    maxPin: 'x.x',
  },
  { name: 'libdeflate', versions: ['1.18', '1.19', '1.20'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 1, maxPin: 'x.x' },
  {
    name: 'libwebp-base',
    versions: ['1.3.1', '1.3.2', '1.4.0'],
    depends: () => ['libgcc-ng >=12'],
    constrains: (v) => [`libwebp ${v}`],
    buildsPerVersion: 1,
    maxPin: 'x',
  },
  {
    name: 'brotli',
    versions: ['1.0.9', '1.1.0'],
    depends: () => ['libgcc-ng >=12', `libbrotlidec 1.1.0 h${coreHash('1.1.0')}_1`, `libbrotlienc 1.1.0 h${coreHash('1.1.0')}_1`],
    buildsPerVersion: 2,
  },
  { name: 'libbrotlicommon', versions: ['1.0.9', '1.1.0'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 2, maxPin: 'x.x' },
  {
    name: 'libbrotlidec',
    versions: ['1.0.9', '1.1.0'],
    depends: () => [`libbrotlicommon 1.1.0 h${coreHash('1.1.0')}_1`, 'libgcc-ng >=12'],
    buildsPerVersion: 2,
  },
  {
    name: 'libbrotlienc',
    versions: ['1.0.9', '1.1.0'],
    depends: () => [`libbrotlicommon 1.1.0 h${coreHash('1.1.0')}_1`, 'libgcc-ng >=12'],
    buildsPerVersion: 2,
  },
  {
    name: 'libxcb',
    versions: ['1.13', '1.15'],
    depends: () => ['libgcc-ng >=12', 'pthread-stubs', 'xorg-libxau', 'xorg-libxdmcp'],
    buildsPerVersion: 2,
    maxPin: 'x.x',
  },
  { name: 'pthread-stubs', versions: ['0.4'], depends: () => ['libgcc-ng >=7.5.0'], buildsPerVersion: 2 },
  { name: 'xorg-libxau', versions: ['1.0.9', '1.0.11'], depends: () => ['libgcc-ng >=12'], buildsPerVersion: 2 },
  { name: 'xorg-libxdmcp', versions: ['1.1.3'], depends: () => ['libgcc-ng >=9.3.0'], buildsPerVersion: 2 },
  {
    name: 'openjpeg',
    versions: ['2.5.0', '2.5.2'],
    depends: () => [
      'libgcc-ng >=12',
      'libpng >=1.6.43,<1.7.0a0',
      'libstdcxx-ng >=12',
      'libtiff >=4.6.0,<4.7.0a0',
      'libzlib >=1.2.13,<1.3.0a0',
    ],
    buildsPerVersion: 2,
    maxPin: 'x',
  },
  {
    name: 'r-base',
    versions: ['4.1.3', '4.2.3', '4.3.3'],
    depends: () => [
      'libblas >=3.9.0,<4.0a0',
      'libgcc-ng >=12',
      'libgfortran-ng',
      'liblapack >=3.9.0,<4.0a0',
      'libstdcxx-ng >=12',
      'readline >=8.2,<9.0a0',
      'tk >=8.6.13,<8.7.0a0',
    ],
    buildsPerVersion: 3,
    license: 'GPL-2.0-or-later',
  },
  {
    name: 'zstd',
    versions: ['1.5.2', '1.5.5', '1.5.6'],
    depends: () => ['libgcc-ng >=12', 'libstdcxx-ng >=12', 'libzlib >=1.2.13,<1.3.0a0'],
    buildsPerVersion: 2,
    maxPin: 'x.x',
  },
];

/** BLAS: libblas/libcblas/liblapack builds per implementation, as conda-forge's blas feedstock. */
const BLAS_VERSION = '3.9.0';
const BLAS_BUILDS = [16, 17, 18, 19, 20, 21, 22];
const BLAS_IMPLS = ['openblas', 'mkl'] as const;

interface PyExtension {
  name: string;
  versions: string[];
  /** Python minors each version is built for: index into PYTHONS by the version's position. */
  depends: (version: string, random: Random) => string[];
  constrains?: (version: string) => string[];
  buildsPerPython?: number;
  license?: string;
}

const PY_EXTENSIONS: PyExtension[] = [
  {
    name: 'numpy',
    versions: ['1.19.5', '1.20.3', '1.21.6', '1.22.4', '1.23.5', '1.24.4', '1.25.2', '1.26.0', '1.26.2', '1.26.3', '1.26.4'],
    depends: () => ['libblas >=3.9.0,<4.0a0', 'libcblas >=3.9.0,<4.0a0', 'libgcc-ng >=12', 'liblapack >=3.9.0,<4.0a0', 'libstdcxx-ng >=12'],
    constrains: () => ['numpy-base <0a0'],
    buildsPerPython: 2,
  },
  {
    name: 'pandas',
    versions: ['1.2.5', '1.3.5', '1.4.4', '1.5.3', '2.0.3', '2.1.1', '2.1.4', '2.2.0', '2.2.1', '2.2.2'],
    depends: () => [
      'libgcc-ng >=12',
      'libstdcxx-ng >=12',
      'numpy >=1.22.4,<2.0a0',
      'python-dateutil >=2.8.1',
      'python-tzdata >=2022a',
      'pytz >=2020.1',
    ],
    buildsPerPython: 2,
  },
  {
    name: 'scipy',
    versions: ['1.7.3', '1.8.1', '1.9.3', '1.10.1', '1.11.3', '1.11.4', '1.12.0', '1.13.0'],
    depends: () => [
      'libblas >=3.9.0,<4.0a0',
      'libcblas >=3.9.0,<4.0a0',
      'libgcc-ng >=12',
      'libgfortran-ng',
      'libgfortran5 >=12.3.0',
      'liblapack >=3.9.0,<4.0a0',
      'libstdcxx-ng >=12',
      'numpy >=1.22.4,<2.0a0',
    ],
    buildsPerPython: 2,
  },
  {
    name: 'scikit-learn',
    versions: ['1.0.2', '1.1.3', '1.2.2', '1.3.0', '1.3.2', '1.4.1.post1', '1.4.2'],
    depends: () => [
      '_openmp_mutex >=4.5',
      'joblib >=1.2.0',
      'libgcc-ng >=12',
      'libstdcxx-ng >=12',
      'numpy >=1.22.4,<2.0a0',
      'scipy',
      'threadpoolctl >=2.0.0',
    ],
    buildsPerPython: 2,
  },
  {
    name: 'matplotlib-base',
    versions: ['3.5.3', '3.6.3', '3.7.3', '3.8.2', '3.8.3', '3.8.4'],
    depends: () => [
      'certifi >=2020.06.20',
      'contourpy >=1.0.1',
      'cycler >=0.10',
      'fonttools >=4.22.0',
      'freetype >=2.12.1,<3.0a0',
      'kiwisolver >=1.3.1',
      'libgcc-ng >=12',
      'libstdcxx-ng >=12',
      'numpy >=1.22.4,<2.0a0',
      'packaging >=20.0',
      'pillow >=8',
      'pyparsing >=2.3.1',
      'python-dateutil >=2.7',
      'tk >=8.6.13,<8.7.0a0',
    ],
    buildsPerPython: 1,
  },
  {
    name: 'matplotlib',
    versions: ['3.5.3', '3.6.3', '3.7.3', '3.8.2', '3.8.3', '3.8.4'],
    depends: (v) => [`matplotlib-base >=${v},<${v.split('.').slice(0, 2).join('.')}.${Number(v.split('.')[2]) + 1}.0a0`, 'tornado >=5'],
    buildsPerPython: 1,
  },
  {
    name: 'pillow',
    versions: ['9.2.0', '9.4.0', '10.0.1', '10.1.0', '10.2.0', '10.3.0'],
    depends: () => [
      'freetype >=2.12.1,<3.0a0',
      'lcms2 >=2.16,<3.0a0',
      'libgcc-ng >=12',
      'libjpeg-turbo >=3.0.0,<4.0a0',
      'libtiff >=4.6.0,<4.7.0a0',
      'libwebp-base >=1.3.2,<2.0a0',
      'libxcb >=1.15,<1.16.0a0',
      'libzlib >=1.2.13,<1.3.0a0',
      'openjpeg >=2.5.2,<3.0a0',
      'tk >=8.6.13,<8.7.0a0',
    ],
    buildsPerPython: 1,
    license: 'HPND',
  },
  { name: 'kiwisolver', versions: ['1.4.4', '1.4.5'], depends: () => ['libgcc-ng >=12', 'libstdcxx-ng >=12'], buildsPerPython: 2 },
  {
    name: 'contourpy',
    versions: ['1.0.7', '1.1.1', '1.2.0', '1.2.1'],
    depends: () => ['libgcc-ng >=12', 'libstdcxx-ng >=12', 'numpy >=1.20'],
    buildsPerPython: 1,
  },
  {
    name: 'fonttools',
    versions: ['4.43.1', '4.47.2', '4.51.0'],
    depends: () => ['brotli', 'libgcc-ng >=12', 'munkres', 'unicodedata2 >=14.0.0'],
    buildsPerPython: 1,
  },
  { name: 'tornado', versions: ['6.2', '6.3.3', '6.4'], depends: () => ['libgcc-ng >=12'], buildsPerPython: 1 },
  { name: 'unicodedata2', versions: ['15.0.0', '15.1.0'], depends: () => ['libgcc-ng >=12'], buildsPerPython: 1 },
];

interface NoarchPython {
  name: string;
  versions: string[];
  depends: string[];
}

const NOARCH_PYTHON: NoarchPython[] = [
  { name: 'python-dateutil', versions: ['2.8.1', '2.8.2', '2.9.0'], depends: ['python >=3.6', 'six >=1.5'] },
  { name: 'pytz', versions: ['2022.7.1', '2023.3', '2023.3.post1', '2024.1'], depends: ['python >=3.7'] },
  { name: 'python-tzdata', versions: ['2022.7', '2023.3', '2023.4', '2024.1'], depends: ['python >=3.6'] },
  { name: 'six', versions: ['1.15.0', '1.16.0'], depends: ['python'] },
  { name: 'pip', versions: ['22.3.1', '23.0.1', '23.2.1', '23.3.2', '24.0'], depends: ['python >=3.7', 'setuptools', 'wheel'] },
  { name: 'setuptools', versions: ['65.6.3', '67.7.2', '68.2.2', '69.0.3', '69.5.1'], depends: ['python >=3.8'] },
  { name: 'wheel', versions: ['0.38.4', '0.41.2', '0.42.0', '0.43.0'], depends: ['python >=3.8'] },
  { name: 'joblib', versions: ['1.2.0', '1.3.2', '1.4.0', '1.4.2'], depends: ['python >=3.7', 'setuptools'] },
  { name: 'threadpoolctl', versions: ['3.1.0', '3.2.0', '3.3.0', '3.5.0'], depends: ['python >=3.8'] },
  { name: 'packaging', versions: ['23.0', '23.1', '23.2', '24.0'], depends: ['python >=3.7'] },
  { name: 'cycler', versions: ['0.11.0', '0.12.1'], depends: ['python >=3.8'] },
  { name: 'pyparsing', versions: ['3.0.9', '3.1.1', '3.1.2'], depends: ['python >=3.6'] },
  { name: 'certifi', versions: ['2023.7.22', '2023.11.17', '2024.2.2'], depends: ['python >=3.7'] },
  { name: 'munkres', versions: ['1.1.4'], depends: ['python'] },
  { name: 'tzdata', versions: ['2023c', '2024a'], depends: [] },
];

// --- filler --------------------------------------------------------------------------------------

const SYLLABLES = [
  'ab',
  'ar',
  'ba',
  'bo',
  'ca',
  'cy',
  'da',
  'de',
  'el',
  'fa',
  'fi',
  'ga',
  'ge',
  'ha',
  'io',
  'ja',
  'ka',
  'ki',
  'la',
  'lo',
  'ma',
  'mi',
  'na',
  'no',
  'or',
  'pa',
  'py',
  'qu',
  'ra',
  're',
  'sa',
  'si',
  'ta',
  'to',
  'ul',
  'va',
  'vi',
  'wa',
  'xe',
  'yo',
  'za',
  'zu',
];
const LICENSES: ReadonlyArray<[string, string]> = [
  ['MIT', 'MIT'],
  ['BSD-3-Clause', 'BSD'],
  ['Apache-2.0', 'APACHE'],
  ['GPL-3.0-or-later', 'GPL3'],
  ['LGPL-2.1-or-later', 'LGPL'],
  ['MPL-2.0', 'MOZILLA'],
];

type FillerKind = 'pyext' | 'clib' | 'rpkg' | 'noarch-python';

function fillerName(random: Random, kind: FillerKind, taken: Set<string>): string {
  for (;;) {
    let stem = '';
    const parts = random.int(2, 4);
    for (let i = 0; i < parts; i++) stem += random.pick(SYLLABLES);
    if (random.chance(0.25)) stem += `-${random.pick(SYLLABLES)}${random.pick(SYLLABLES)}`;
    const name =
      kind === 'clib'
        ? random.chance(0.6)
          ? `lib${stem}`
          : stem
        : kind === 'rpkg'
          ? `r-${stem}`
          : random.chance(0.3)
            ? `py${stem}`
            : stem;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

function fillerVersion(random: Random, index: number, style: number): string {
  // Versions rise with index; styles mimic calendar versions, semver and two-part versions.
  if (style === 0) return `${2018 + Math.floor(index / 6)}.${(index % 6) * 2 + 1}.${random.int(0, 3)}`;
  if (style === 1) return `${Math.floor(index / 8)}.${index % 8}.${random.int(0, 9)}`;
  return `${1 + Math.floor(index / 10)}.${index % 10}`;
}

// --- generation ----------------------------------------------------------------------------------

class SubdirBuilder {
  readonly records: RawRecord[] = [];
  readonly names = new Set<string>();
  constructor(readonly subdir: string) {}
  add(record: RawRecord): void {
    this.records.push(record);
    this.names.add(record.name);
  }
}

function extFor(f: number, random: Random): '.tar.bz2' | '.conda' {
  // conda-forge moved to .conda in 2022-2023.
  return f > 0.75 || (f > 0.6 && random.chance(0.5)) ? '.conda' : '.tar.bz2';
}

function sizeFor(random: Random, typical: number): number {
  return Math.max(1500, Math.floor(typical * Math.exp((random.float() - 0.5) * 1.4)));
}

function license(random: Random, override?: string): [string, string] {
  if (override) return [override, 'OTHER'];
  return random.pick(LICENSES);
}

function addCore(linux: SubdirBuilder, noarch: SubdirBuilder, random: Random): void {
  // python and python_abi
  for (const py of PYTHONS) {
    py.patches.forEach((patch, i) => {
      const f = py.from + ((1 - py.from) * i) / py.patches.length;
      const version = `${py.minor}.${patch}`;
      for (let bn = 0; bn < 2; bn++) {
        const depends = [
          'bzip2 >=1.0.8,<2.0a0',
          'ld_impl_linux-64 >=2.36.1',
          'libffi >=3.4,<4.0a0',
          'libgcc-ng >=12',
          'libnsl >=2.0.1,<2.1.0a0',
          'libsqlite >=3.45.2,<4.0a0',
          'libuuid >=2.38.1,<3.0a0',
          'libxcrypt >=4.4.36',
          'libzlib >=1.2.13,<1.3.0a0',
          'ncurses >=6.4.20240210,<7.0a0',
          'openssl >=3.2.1,<4.0a0',
          'readline >=8.2,<9.0a0',
          'tk >=8.6.13,<8.7.0a0',
          'tzdata',
          'xz >=5.2.6,<6.0a0',
        ];
        const [lic, family] = ['Python-2.0', 'OTHER'];
        linux.add({
          name: 'python',
          version,
          build: `h${random.hex(7)}_${bn}_cpython`,
          build_number: bn,
          depends,
          constrains: [`python_abi ${py.minor}.* *_cp${py.minor.replace('.', '')}`],
          license: lic,
          license_family: family,
          size: sizeFor(random, 30_000_000),
          timestamp: when(f, random),
          ext: extFor(f, random),
        });
      }
    });
    for (let bn = 2; bn <= 4; bn++) {
      const f = py.from + bn * 0.05;
      linux.add({
        name: 'python_abi',
        version: py.minor,
        build: `${bn}_cp${py.minor.replace('.', '')}`,
        build_number: bn,
        depends: [],
        constrains: [`python ${py.minor}.* *_cpython`],
        license: 'BSD-3-Clause',
        license_family: 'BSD',
        size: sizeFor(random, 6000),
        timestamp: when(f, random),
        ext: extFor(f, random),
      });
    }
  }

  for (const lib of CORE_LIBS) {
    lib.versions.forEach((version, i) => {
      const f = (i + 1) / (lib.versions.length + 1);
      for (let bn = 0; bn < (lib.buildsPerVersion ?? 2); bn++) {
        // Still draw the hex the builds used to take, so every record after the core keeps its bytes.
        random.hex(7);
        const build =
          lib.name === '_libgcc_mutex'
            ? bn === 0
              ? 'conda_forge'
              : 'main'
            : lib.name === '_openmp_mutex'
              ? `${bn}_${['gnu', 'llvm', 'kmp_llvm', 'gnu'][bn]}`
              : `h${coreHash(version)}_${bn}`;
        const [lic, family] = license(random, lib.license);
        const record: RawRecord = {
          name: lib.name,
          version,
          build,
          build_number: bn,
          depends: lib.depends(version),
          license: lic,
          license_family: family,
          size: sizeFor(random, 400_000),
          timestamp: when(f + bn * 0.01, random),
          ext: extFor(f, random),
        };
        const constrains = lib.constrains?.(version, build);
        if (constrains && constrains.length > 0) record.constrains = constrains;
        linux.add(record);
        if (random.chance(0.03)) linux.add({ ...record, ext: record.ext === '.conda' ? '.tar.bz2' : '.conda' });
      }
    });
  }

  // BLAS: libblas, libcblas, liblapack, blas per implementation.
  BLAS_BUILDS.forEach((n, i) => {
    const f = 0.2 + (0.8 * i) / BLAS_BUILDS.length;
    for (const impl of BLAS_IMPLS) {
      const build = `${n}_linux64_${impl}`;
      const implDep = impl === 'openblas' ? 'libopenblas >=0.3.25,<1.0a0' : 'mkl >=2022.1.0,<2023.0a0';
      const common = {
        version: BLAS_VERSION,
        build,
        build_number: n,
        license: 'BSD-3-Clause',
        license_family: 'BSD',
        ext: extFor(f, random),
      } as const;
      linux.add({
        ...common,
        name: 'libblas',
        depends: [implDep],
        constrains: [`liblapack ${BLAS_VERSION} ${build}`, `libcblas ${BLAS_VERSION} ${build}`, `blas * ${impl}`],
        size: sizeFor(random, 14_000),
        timestamp: when(f, random),
        ...(impl === 'mkl' ? { track_features: 'blas_mkl' } : {}),
      });
      linux.add({
        ...common,
        name: 'libcblas',
        depends: [`libblas ${BLAS_VERSION} ${build}`],
        constrains: [`liblapack ${BLAS_VERSION} ${build}`, `blas * ${impl}`],
        size: sizeFor(random, 14_000),
        timestamp: when(f, random),
      });
      linux.add({
        ...common,
        name: 'liblapack',
        depends: [`libblas ${BLAS_VERSION} ${build}`],
        constrains: [`libcblas ${BLAS_VERSION} ${build}`, `blas * ${impl}`],
        size: sizeFor(random, 14_000),
        timestamp: when(f, random),
      });
      linux.add({
        ...common,
        name: 'blas',
        version: '2.' + String(100 + n),
        build: impl,
        depends: [`libblas ${BLAS_VERSION} ${build}`, `libcblas ${BLAS_VERSION} ${build}`, `liblapack ${BLAS_VERSION} ${build}`],
        size: sizeFor(random, 14_000),
        timestamp: when(f, random),
      });
    }
  });

  // Python extensions, built per python minor.
  for (const ext of PY_EXTENSIONS) {
    ext.versions.forEach((version, i) => {
      const f = 0.05 + (0.95 * i) / ext.versions.length;
      const pythons = PYTHONS.filter((py) => py.from <= f + 0.05 && py.from >= f - 0.9);
      for (const py of pythons) {
        for (let bn = 0; bn < (ext.buildsPerPython ?? 1); bn++) {
          const [lic, family] = license(random, ext.license);
          const record: RawRecord = {
            name: ext.name,
            version,
            build: `py${py.minor.replace('.', '')}h${random.hex(7)}_${bn}`,
            build_number: bn,
            depends: [...ext.depends(version, random), ...pythonDeps(py.minor)].sort(),
            license: lic,
            license_family: family,
            size: sizeFor(random, 8_000_000),
            timestamp: when(Math.max(f, py.from) + bn * 0.01, random),
            ext: extFor(f, random),
          };
          const constrains = ext.constrains?.(version);
          if (constrains) record.constrains = constrains;
          linux.add(record);
        }
      }
    });
  }

  for (const pkg of NOARCH_PYTHON) {
    pkg.versions.forEach((version, i) => {
      const f = (i + 1) / (pkg.versions.length + 1);
      for (let bn = 0; bn < 2; bn++) {
        const [lic, family] = license(random);
        noarch.add({
          name: pkg.name,
          version,
          build: pkg.name === 'tzdata' ? `h${random.hex(7)}_${bn}` : `pyhd8ed1ab_${bn}`,
          build_number: bn,
          depends: pkg.depends,
          noarch: pkg.name === 'tzdata' ? 'generic' : 'python',
          license: lic,
          license_family: family,
          size: sizeFor(random, 200_000),
          timestamp: when(f + bn * 0.01, random),
          ext: extFor(f, random),
        });
      }
    });
  }
}

/** Heavy-tailed record counts per name that sum to `total`, each at least 1. */
function quotas(random: Random, names: number, total: number): number[] {
  const weights: number[] = [];
  let sum = 0;
  for (let i = 0; i < names; i++) {
    const w = Math.pow(1 - random.float(), -0.9); // Pareto tail: a few names with thousands of builds
    weights.push(w);
    sum += w;
  }
  const spare = Math.max(0, total - names);
  const out = weights.map((w) => 1 + Math.floor((w / sum) * spare));
  let assigned = out.reduce((a, b) => a + b, 0);
  for (let i = 0; assigned < total; i = (i + 1) % names, assigned++) out[i]++;
  return out;
}

function addFiller(
  builder: SubdirBuilder,
  random: Random,
  names: number,
  total: number,
  noarch: boolean,
  taken: Set<string>,
  deps: string[],
): void {
  if (names <= 0 || total <= 0) return;
  const counts = quotas(random, names, total);
  const made: string[] = [];
  for (let n = 0; n < names; n++) {
    const roll = random.float();
    const kind: FillerKind = noarch ? 'noarch-python' : roll < 0.4 ? 'pyext' : roll < 0.8 ? 'clib' : 'rpkg';
    const name = fillerName(random, kind, taken);
    const style = random.int(0, 2);
    const [lic, family] = license(random);
    // Dependencies: earlier names (a DAG, like a real channel) and a few core libraries.
    const own: string[] = [];
    const depCount = random.int(0, 4);
    for (let d = 0; d < depCount && made.length > 0; d++) own.push(random.pick(made));
    const coreDep = kind === 'clib' || kind === 'pyext' ? ['libgcc-ng >=12', ...(random.chance(0.5) ? ['libstdcxx-ng >=12'] : [])] : [];
    if (kind === 'pyext' && random.chance(0.35)) coreDep.push('numpy >=1.22.4,<2.0a0');
    if (kind === 'clib' && random.chance(0.3)) coreDep.push(random.pick(deps));
    let remaining = counts[n];
    for (let v = 0; remaining > 0; v++) {
      const version = fillerVersion(random, v, style);
      const f = Math.min(1, v / Math.max(1, counts[n] / 3));
      const pythons = kind === 'pyext' ? PYTHONS.filter((py) => py.from <= f + 0.05 && py.from >= f - 0.9) : [null];
      const builds = random.int(1, 2);
      for (const py of pythons) {
        for (let bn = 0; bn < builds && remaining > 0; bn++, remaining--) {
          const depends = own.map((dep) => `${dep} >=${fillerVersion(random, 0, 1)}`).concat(coreDep);
          let build: string;
          if (kind === 'pyext' && py) {
            depends.push(...pythonDeps(py.minor));
            build = `py${py.minor.replace('.', '')}h${random.hex(7)}_${bn}`;
          } else if (kind === 'rpkg') {
            const r = random.pick(['4.1', '4.2', '4.3']);
            depends.push(`r-base >=${r},<${r.split('.')[0]}.${Number(r.split('.')[1]) + 1}.0a0`);
            build = `r${r.replace('.', '')}h${random.hex(7)}_${bn}`;
          } else if (kind === 'noarch-python') {
            depends.push(`python >=3.${random.int(6, 9)}`);
            build = `pyhd8ed1ab_${bn}`;
          } else {
            build = `h${random.hex(7)}_${bn}`;
          }
          const record: RawRecord = {
            name,
            version,
            build,
            build_number: bn,
            depends: depends.sort(),
            license: lic,
            license_family: family,
            size: sizeFor(random, kind === 'clib' ? 600_000 : 250_000),
            timestamp: when(f, random),
            ext: extFor(f, random),
          };
          if (noarch) record.noarch = 'python';
          if (random.chance(0.08)) record.constrains = [`${random.pick(made.length > 0 ? made : [name])} >=${fillerVersion(random, v, 1)}`];
          if (random.chance(0.005)) record.track_features = random.pick(['pypy', 'blas_mkl', 'cuda']);
          builder.add(record);
        }
      }
    }
    made.push(name);
  }
}

function serialise(record: RawRecord, subdir: string, random: Random, indent: boolean): string {
  // Keys in sorted order, as conda-index's json.dumps(sort_keys=True); one template, few temporaries.
  const q = JSON.stringify;
  const [open, sep, close, colon] = indent ? ['{\n      ', ',\n      ', '\n    }', ': '] : ['{', ',', '}', ':'];
  let out = `${open}"build"${colon}${q(record.build)}${sep}"build_number"${colon}${record.build_number}`;
  if (record.constrains) out += `${sep}"constrains"${colon}${listJson(record.constrains, indent)}`;
  out += `${sep}"depends"${colon}${listJson(record.depends, indent)}${sep}"license"${colon}${q(record.license)}${sep}"license_family"${colon}${q(record.license_family)}`;
  out += `${sep}"md5"${colon}"${random.hex(32)}"${sep}"name"${colon}${q(record.name)}`;
  if (record.noarch) out += `${sep}"noarch"${colon}"${record.noarch}"`;
  out += `${sep}"sha256"${colon}"${random.hex(64)}"${sep}"size"${colon}${record.size}${sep}"subdir"${colon}${q(subdir)}${sep}"timestamp"${colon}${record.timestamp}`;
  if (record.track_features) out += `${sep}"track_features"${colon}${q(record.track_features)}`;
  return `${out}${sep}"version"${colon}${q(record.version)}${close}`;
}

function listJson(items: readonly string[], indent: boolean): string {
  if (items.length === 0) return '[]';
  let out = indent ? '[\n        ' : '[';
  for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : indent ? ',\n        ' : ',') + JSON.stringify(items[i]);
  return out + (indent ? '\n      ]' : ']');
}

function writeSubdir(out: string, builder: SubdirBuilder, random: Random, compact: boolean): GeneratedSubdir {
  const dir = join(out, builder.subdir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'repodata.json');
  const entries = builder.records.map((record) => ({ fn: `${record.name}-${record.version}-${record.build}${record.ext}`, record }));
  // Drop accidental duplicates (same file name), then sort keys like conda-index.
  const seen = new Set<string>();
  const unique = entries.filter((entry) => (seen.has(entry.fn) ? false : (seen.add(entry.fn), true)));
  unique.sort((a, b) => (a.fn < b.fn ? -1 : a.fn > b.fn ? 1 : 0));
  const fd = openSync(path, 'w');
  let bytes = 0;
  // Text goes into a 4 MiB buffer written out when full: no giant strings for the GC to copy.
  const chunk = Buffer.allocUnsafe(4 << 20);
  let used = 0;
  const flush = (): void => {
    let done = 0;
    while (done < used) done += writeSync(fd, chunk, done, used - done);
    bytes += used;
    used = 0;
  };
  const emit = (text: string): void => {
    if (used + text.length * 3 > chunk.length) flush();
    if (text.length * 3 > chunk.length) {
      bytes += writeSync(fd, text);
      return;
    }
    used += chunk.write(text, used);
  };
  const nl = compact ? '' : '\n';
  const sp = compact ? '' : ' ';
  emit(
    `{${nl}${compact ? '' : '  '}"info":${sp}{${nl}${compact ? '' : '    '}"subdir":${sp}${JSON.stringify(builder.subdir)}${nl}${compact ? '' : '  '}},${nl}`,
  );
  for (const section of ['.tar.bz2', '.conda'] as const) {
    emit(`${compact ? '' : '  '}${JSON.stringify(section === '.conda' ? 'packages.conda' : 'packages')}:${sp}{`);
    let first = true;
    for (const { fn, record } of unique) {
      if (record.ext !== section) continue;
      emit(
        `${first ? '' : ','}${nl}${compact ? '' : '    '}${JSON.stringify(fn)}:${sp}${serialise(record, builder.subdir, random, !compact)}`,
      );
      first = false;
    }
    emit(`${first ? '' : nl + (compact ? '' : '  ')}},${nl}`);
  }
  emit(`${compact ? '' : '  '}"removed":${sp}[],${nl}${compact ? '' : '  '}"repodata_version":${sp}1${nl}}${nl}`);
  flush();
  closeSync(fd);
  return { subdir: builder.subdir, path, records: unique.length, names: builder.names.size, bytes };
}

/** Generate the channel under `options.out`; deterministic for given options. */
export function generateChannel(options: GenerateOptions): GeneratedSubdir[] {
  const seed = options.seed ?? 1;
  const random = new Random(seed);
  const linux = new SubdirBuilder('linux-64');
  const noarch = new SubdirBuilder('noarch');
  addCore(linux, noarch, random);
  const taken = new Set<string>([...linux.names, ...noarch.names]);
  const coreLibPins = CORE_LIBS.filter((lib) => lib.maxPin).map(
    (lib) => `${lib.name} ${pin(lib.versions[lib.versions.length - 1], lib.maxPin ?? 'x')}`,
  );
  const records = options.records ?? 465_000;
  const names = options.names ?? 25_000;
  addFiller(linux, random, names - linux.names.size, records - linux.records.length, false, taken, coreLibPins);
  const noarchRecords = options.noarchRecords ?? 100_000;
  const noarchNames = options.noarchNames ?? 8_000;
  addFiller(noarch, random, noarchNames - noarch.names.size, noarchRecords - noarch.records.length, true, taken, coreLibPins);
  const compact = options.compact ?? false;
  return [writeSubdir(options.out, linux, random, compact), writeSubdir(options.out, noarch, random, compact)];
}

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      records: { type: 'string' },
      names: { type: 'string' },
      'noarch-records': { type: 'string' },
      'noarch-names': { type: 'string' },
      seed: { type: 'string' },
      compact: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.out) {
    process.stderr.write(
      'usage: npx tsx bench/generate-channel.ts --out DIR [--records N] [--names N] [--noarch-records N] [--noarch-names N] [--seed S] [--compact]\n',
    );
    process.exit(values.help ? 0 : 2);
  }
  const number = (text: string | undefined, what: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) {
      process.stderr.write(`generate-channel: --${what} must be a non-negative integer, got "${text}"\n`);
      process.exit(2);
    }
    return value;
  };
  const started = performance.now();
  const result = generateChannel({
    out: values.out,
    records: number(values.records, 'records'),
    names: number(values.names, 'names'),
    noarchRecords: number(values['noarch-records'], 'noarch-records'),
    noarchNames: number(values['noarch-names'], 'noarch-names'),
    seed: number(values.seed, 'seed'),
    compact: values.compact ?? false,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log('subdir      records    names       MB  path');
  for (const sub of result) {
    console.log(
      `${sub.subdir.padEnd(10)} ${String(sub.records).padStart(8)} ${String(sub.names).padStart(8)} ${(sub.bytes / 1e6).toFixed(1).padStart(8)}  ${sub.path}`,
    );
  }
  console.log(`generated in ${seconds.toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
