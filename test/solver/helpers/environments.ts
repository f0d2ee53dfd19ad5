/**
 * Environments over the shared channel snapshots, used by the referee tests and the solver
 * benchmark: the README's list first, then mixes, pins, old versions, cross-platform requests and
 * requests that have no solution.
 */
export interface Environment {
  /** Folder under `../shared/channels`. */
  readonly folder: 'conda-forge-py39' | 'defaults-main-2022';
  readonly platform: string;
  readonly specs: readonly string[];
  /** Listed in `../shared/channels/README.md`. */
  readonly readme?: boolean;
}

const CF = 'conda-forge-py39';
const DEFAULTS = 'defaults-main-2022';

export const ENVIRONMENTS: readonly Environment[] = [
  // The README's environments.
  { folder: CF, platform: 'linux-64', specs: ['python=3.9'], readme: true },
  { folder: CF, platform: 'linux-aarch64', specs: ['python=3.9'], readme: true },
  { folder: CF, platform: 'osx-64', specs: ['python=3.9'], readme: true },
  { folder: CF, platform: 'osx-arm64', specs: ['python=3.9'], readme: true },
  { folder: CF, platform: 'win-64', specs: ['python=3.9'], readme: true },
  { folder: CF, platform: 'linux-64', specs: ['python=3.9', 'pip'], readme: true },
  { folder: CF, platform: 'linux-64', specs: ['python'], readme: true },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.9', 'numpy', 'pandas', 'scipy', 'scikit-learn'], readme: true },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.8', 'tensorflow'], readme: true },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python', 'pytorch'], readme: true },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['jupyterlab', 'matplotlib', 'python=3.9'], readme: true },
  // Pins, old versions and mixes on conda-forge.
  { folder: CF, platform: 'linux-64', specs: ['python=3.9.7'] },
  { folder: CF, platform: 'linux-64', specs: ['python=3.9', 'openssl<3'] },
  { folder: CF, platform: 'linux-64', specs: ['python=3.9', 'sqlite=3.38'] },
  { folder: CF, platform: 'linux-64', specs: ['python=3.9', 'setuptools<60', 'pip<22'] },
  { folder: CF, platform: 'linux-64', specs: ['zlib', 'xz', 'bzip2', 'openssl<1.1.2'] },
  { folder: CF, platform: 'linux-64', specs: ['python=3.9=*_cpython', 'pip', 'wheel', 'setuptools'] },
  { folder: CF, platform: 'linux-64', specs: ['pypy3.9', 'python=3.9'] },
  // Cross-platform.
  { folder: CF, platform: 'osx-arm64', specs: ['python=3.9', 'pip', 'setuptools'] },
  { folder: CF, platform: 'osx-64', specs: ['python=3.9', 'openssl<1.1.2'] },
  { folder: CF, platform: 'win-64', specs: ['python=3.9', 'pip', 'wheel'] },
  { folder: CF, platform: 'win-64', specs: ['python=3.9.1'] },
  { folder: CF, platform: 'linux-aarch64', specs: ['python=3.9', 'openssl<3', 'pip'] },
  { folder: CF, platform: 'linux-aarch64', specs: ['python=3.9.5', 'sqlite'] },
  // Mixes, pins and old versions on defaults (linux-aarch64 + noarch).
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['numpy=1.19', 'python=3.8'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.7', 'pandas=1.2'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['scikit-learn', 'python=3.9', 'numpy<1.21'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['requests', 'flask', 'python=3.8'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.7', 'numpy'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['matplotlib=3.3', 'python=3.8'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['sqlalchemy', 'psycopg2', 'python=3.9'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.10'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['ipython', 'h5py', 'pillow', 'lxml', 'python=3.9'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['numba', 'cython', 'pyyaml'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['django=3.2', 'python=3.8'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['boto3', 'python=3.9'] },
  // No solution.
  { folder: CF, platform: 'linux-64', specs: ['python=3.9', 'python>=3.10'] },
  { folder: CF, platform: 'linux-64', specs: ['no-such-package'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['python=3.6', 'tensorflow'] },
  { folder: DEFAULTS, platform: 'linux-aarch64', specs: ['pytorch', 'python=3.10'] },
];
