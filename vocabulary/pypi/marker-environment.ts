/**
 * The PEP 508 marker environment of a conda target, computed from what the solve knows, never
 * read from the machine conda-resolve runs on: the platform (subdir) gives `sys_platform`,
 * `platform_system`, `os_name` and `platform_machine` (Python's values on that OS and CPU); the
 * solved `python` record gives the interpreter (CPython, PyPy, GraalPy), its versions and whether
 * it is a free-threaded build; the virtual packages give `platform_release` and `platform_version`
 * where they say something (`__linux`: the kernel release; `__osx`: the Darwin release of that
 * macOS; `__win`: the Windows version). What no input says is `""`, as pixi leaves it.
 */
import type { PackageRecord } from '../record.js';
import { isKnownSubdir, subdirOs, type KnownSubdir } from '../platform.js';
import type { VirtualPackage } from '../virtual-packages.js';
import { PypiEnvironmentError } from './errors.js';
import type { MarkerEnvironment } from './markers.js';
import { tryParsePypiVersion } from './version.js';

/** The fields of a record this module reads. */
export type RecordLike = Pick<PackageRecord, 'name' | 'version' | 'build' | 'depends'>;

/** The Python interpreter a conda `python` record installs. */
export interface PythonInterpreter {
  /** `sys.implementation.name`: `cpython`, `pypy` or `graalpy`. */
  readonly implementationName: 'cpython' | 'pypy' | 'graalpy';
  /** `platform.python_implementation()`: `CPython`, `PyPy` or `GraalVM`. */
  readonly platformPythonImplementation: 'CPython' | 'PyPy' | 'GraalVM';
  /** The language version, `major.minor.micro` (with a pre-release suffix): `3.13.0rc1`. */
  readonly pythonFullVersion: string;
  /** `major.minor`: `3.13`. */
  readonly pythonVersion: string;
  /** The implementation's own version (PyPy's 7.3.17; CPython's as packaging formats it, `3.13.0c1`). */
  readonly implementationVersion: string;
  /** A free-threaded (no-GIL, PEP 703) build: ABI tag `cp313t`. */
  readonly freeThreaded: boolean;
}

/** What a target's marker environment is computed from. */
export interface MarkerEnvironmentTarget {
  /** The conda platform (subdir): `linux-64`, `osx-arm64`, `win-64`, ... */
  readonly platform: string;
  /** The solved `python` record. */
  readonly python: RecordLike;
  /** The other records of the solve (the `pypy3.x`/`graalpy` record, `python-freethreading`), if known. */
  readonly records?: readonly RecordLike[];
  /** The virtual packages of the solve (`__linux`, `__osx`, `__win`, ...). */
  readonly virtualPackages?: readonly VirtualPackage[];
}

interface PlatformMarkers {
  readonly sys_platform: string;
  readonly platform_system: string;
  readonly os_name: string;
}

const OS_MARKERS: Readonly<Record<string, PlatformMarkers>> = {
  linux: { sys_platform: 'linux', platform_system: 'Linux', os_name: 'posix' },
  osx: { sys_platform: 'darwin', platform_system: 'Darwin', os_name: 'posix' },
  win: { sys_platform: 'win32', platform_system: 'Windows', os_name: 'nt' },
  // Pyodide: sys.platform "emscripten", platform.system() "Emscripten".
  emscripten: { sys_platform: 'emscripten', platform_system: 'Emscripten', os_name: 'posix' },
};

/** `platform.machine()` on each target: uname's name on Unix, the Windows names on Windows. */
const MACHINES: Partial<Readonly<Record<KnownSubdir, string>>> = {
  'linux-32': 'i686',
  'linux-64': 'x86_64',
  'linux-aarch64': 'aarch64',
  'linux-armv6l': 'armv6l',
  'linux-armv7l': 'armv7l',
  'linux-ppc64': 'ppc64',
  'linux-ppc64le': 'ppc64le',
  'linux-riscv64': 'riscv64',
  'linux-s390x': 's390x',
  'osx-64': 'x86_64',
  'osx-arm64': 'arm64',
  'win-32': 'x86',
  'win-64': 'AMD64',
  'win-arm64': 'ARM64',
  'emscripten-wasm32': 'wasm32',
};

const PYPY_PACKAGE = /^pypy3\.\d+$/;
const FREE_THREADED_ABI = /(?:^|_)cp3\d+t$/;

/** The version a dependency spec pins (`pypy3.9 7.3.8.*` -> `7.3.8`), if it pins one. */
function pinnedVersion(depends: readonly string[], name: RegExp): string | undefined {
  for (const dep of depends) {
    const [depName, spec] = dep.trim().split(/\s+/);
    if (depName !== undefined && name.test(depName) && spec !== undefined) {
      const m = /^=?=?(\d+(?:\.\d+)*)(?:\.\*)?$/.exec(spec);
      if (m) return m[1];
    }
  }
  return undefined;
}

/**
 * The interpreter a `python` record installs. CPython unless its build says `pypy`/`graalpy` (or it
 * depends on a `pypy3.x`/`graalpy` package); free-threaded when its build or its `python_abi`
 * dependency carries a `cpXYt` ABI, or `python-freethreading` is among the records.
 */
export function pythonInterpreter(python: RecordLike, records: readonly RecordLike[] = []): PythonInterpreter {
  if (python.name !== 'python') throw new PypiEnvironmentError(`the interpreter record is "${python.name}", not "python"`);
  const version = tryParsePypiVersion(python.version);
  if (!version || version.release.length < 2)
    throw new PypiEnvironmentError(`python ${python.version} is not a Python version (major.minor[.micro])`);
  const [major, minor, micro = 0] = version.release;
  const pre = version.pre ? `${version.pre[0]}${version.pre[1]}` : '';
  const pythonFullVersion = `${major}.${minor}.${micro}${pre}`;
  const pythonVersion = `${major}.${minor}`;
  const depends = python.depends;
  const depNames = depends.map((d) => d.trim().split(/\s+/)[0] ?? '');
  const freeThreaded =
    FREE_THREADED_ABI.test(python.build) ||
    depends.some((d) => /^python_abi\s/.test(d.trim()) && /_cp3\d+t$/.test(d.trim())) ||
    records.some((r) => r.name === 'python-freethreading');

  if (/_pypy$/.test(python.build) || depNames.some((n) => PYPY_PACKAGE.test(n))) {
    const implementationVersion = records.find((r) => PYPY_PACKAGE.test(r.name))?.version ?? pinnedVersion(depends, PYPY_PACKAGE);
    if (implementationVersion === undefined)
      throw new PypiEnvironmentError(
        `python ${python.version} ${python.build} is PyPy, but neither the records nor its dependencies give the PyPy version`,
      );
    return {
      implementationName: 'pypy',
      platformPythonImplementation: 'PyPy',
      pythonFullVersion,
      pythonVersion,
      implementationVersion,
      freeThreaded,
    };
  }
  if (/_graalpy$/.test(python.build) || depNames.includes('graalpy')) {
    const implementationVersion = records.find((r) => r.name === 'graalpy')?.version ?? pinnedVersion(depends, /^graalpy$/);
    if (implementationVersion === undefined)
      throw new PypiEnvironmentError(
        `python ${python.version} ${python.build} is GraalPy, but neither the records nor its dependencies give the GraalPy version`,
      );
    return {
      implementationName: 'graalpy',
      platformPythonImplementation: 'GraalVM',
      pythonFullVersion,
      pythonVersion,
      implementationVersion,
      freeThreaded,
    };
  }
  // sys.implementation.version as packaging formats it: the release level's first letter
  // (alpha a, beta b, candidate c).
  const level = version.pre ? `${version.pre[0] === 'rc' ? 'c' : version.pre[0]}${version.pre[1]}` : '';
  const implementationVersion = `${major}.${minor}.${micro}${level}`;
  return {
    implementationName: 'cpython',
    platformPythonImplementation: 'CPython',
    pythonFullVersion,
    pythonVersion,
    implementationVersion,
    freeThreaded,
  };
}

/** The Darwin release of a macOS version (`uname -r`): 11-15 are Darwin 20-24, 26 is Darwin 25. */
function darwinRelease(macos: string): string {
  const m = /^(\d+)(?:\.(\d+))?/.exec(macos);
  if (!m) return '';
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  // macOS 10.x had no fixed mapping of minor releases to Darwin's: leave it unknown.
  if (major < 11) return '';
  return `${major >= 26 ? major - 1 : major + 9}.${minor}.0`;
}

/** `platform_release` and `platform_version` from the virtual packages, `""` where they say nothing. */
function releaseMarkers(os: string, virtualPackages: readonly VirtualPackage[]): { platform_release: string; platform_version: string } {
  const version = (name: string) => {
    const v = virtualPackages.find((p) => p.name === name)?.version;
    return v === undefined || v === '0' ? undefined : v;
  };
  if (os === 'linux') return { platform_release: version('__linux') ?? '', platform_version: '' };
  if (os === 'osx') {
    const macos = version('__osx');
    return { platform_release: macos ? darwinRelease(macos) : '', platform_version: '' };
  }
  if (os === 'win') {
    const win = version('__win');
    if (!win) return { platform_release: '', platform_version: '' };
    const [major, , build] = win.split('.').map(Number);
    // platform.release() says "11" from build 22000 on (Windows 11 still reports 10.0.x).
    return { platform_release: major === 10 && (build ?? 0) >= 22000 ? '11' : String(major), platform_version: win };
  }
  return { platform_release: '', platform_version: '' };
}

/**
 * The marker environment of a target, e.g. linux-64 with python 3.12.4: `sys_platform` linux,
 * `platform_machine` x86_64, `os_name` posix, `python_version` 3.12. Throws `PypiEnvironmentError`
 * (`CR_ERR_PYPI_ENVIRONMENT`) for a platform Python's markers cannot be given for (noarch,
 * freebsd, wasi, z/OS) or a record that is not a Python interpreter.
 */
export function markerEnvironment(target: MarkerEnvironmentTarget): MarkerEnvironment {
  const { platform } = target;
  const os = subdirOs(platform);
  const markers = OS_MARKERS[os];
  const machine = isKnownSubdir(platform) ? MACHINES[platform] : undefined;
  if (!markers || machine === undefined) {
    throw new PypiEnvironmentError(
      `conda-resolve knows Python's markers for linux, osx, win and emscripten platforms, not ${JSON.stringify(platform)}`,
    );
  }
  const interpreter = pythonInterpreter(target.python, target.records);
  return {
    implementation_name: interpreter.implementationName,
    implementation_version: interpreter.implementationVersion,
    os_name: markers.os_name,
    platform_machine: machine,
    ...releaseMarkers(os, target.virtualPackages ?? []),
    platform_system: markers.platform_system,
    python_full_version: interpreter.pythonFullVersion,
    platform_python_implementation: interpreter.platformPythonImplementation,
    python_version: interpreter.pythonVersion,
    sys_platform: markers.sys_platform,
  };
}
