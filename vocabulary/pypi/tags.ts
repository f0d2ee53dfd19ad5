/**
 * The wheel tags (PEP 425, https://packaging.python.org/specifications/platform-compatibility-tags/)
 * a conda target accepts, best first, computed from the target and never from this machine: the
 * conda platform, the Python version, implementation and free-threading of the solved `python`, and
 * the virtual packages. The order is that of `packaging.tags.sys_tags` on such a machine (packaging
 * 26.2): `cpython_tags` (the interpreter's ABI, `abi3`, `none`, then `abi3` of older minors) over the
 * platform tags, then `compatible_tags` (`py3x-none-<platform>`, `cp3x-none-any`, `py3x-none-any`).
 * The platform tags of each conda platform are listed on `condaPlatformTags`.
 */
import type { WheelTag } from './distribution-file-name.js';
import { InvalidTagTargetError } from './distribution-errors.js';
import type { PythonInterpreter } from './marker-environment.js';

export type PythonImplementation = 'cpython' | 'pypy' | 'graalpy';

export interface TagTarget {
  /** The conda platform (subdir): `linux-64`, `osx-arm64`, `win-64`, ... */
  readonly platform: string;
  /** The Python version, `3.12` (anything after the minor, `3.12.4`, is ignored). */
  readonly pythonVersion: string;
  /** Default `cpython`. */
  readonly implementation?: PythonImplementation;
  /** A free-threaded build (conda's `python` with the `*_cp313t` build, `python-freethreading`). */
  readonly freeThreading?: boolean;
  /**
   * PyPy's or GraalPy's own release (`7.3.17`, `24.2.1`), which names its ABI (`pypy310_pp73`,
   * `graalpy242_311_native`); without it such a target takes only `none` ABI wheels.
   */
  readonly implementationVersion?: string;
  /** The target's virtual packages (`virtualPackageList`): `__glibc`, `__osx`, `__musl` are read. */
  readonly virtualPackages?: readonly { readonly name: string; readonly version: string }[];
}

export interface TargetTags {
  /** The conda platform the tags are for. */
  readonly platform: string;
  /** The tags, best first, as `interpreter-abi-platform`. */
  readonly tags: readonly string[];
  /** Tag -> its index in `tags` (0 is best). */
  readonly rank: ReadonlyMap<string, number>;
  /** The platform tags alone, best first (`manylinux_2_28_x86_64`, ..., `linux_x86_64`). */
  readonly platforms: readonly string[];
  /** What the target is, for messages: `linux-64, CPython 3.12, glibc 2.28`. */
  readonly description: string;
}

/** The Linux architecture name in platform tags, per conda subdir. */
const LINUX_ARCH: Readonly<Record<string, string>> = {
  'linux-64': 'x86_64',
  'linux-32': 'i686',
  'linux-aarch64': 'aarch64',
  'linux-armv6l': 'armv6l',
  'linux-armv7l': 'armv7l',
  'linux-ppc64': 'ppc64',
  'linux-ppc64le': 'ppc64le',
  'linux-s390x': 's390x',
  'linux-riscv64': 'riscv64',
};
/** Architectures manylinux is defined for (packaging's `_ALLOWED_ARCHS`, plus armv7l hard-float and i686, which conda's are). */
const MANYLINUX_ARCHS = new Set(['x86_64', 'i686', 'aarch64', 'armv7l', 'ppc64', 'ppc64le', 's390x', 'riscv64', 'loongarch64']);
const MAC_ARCH: Readonly<Record<string, string>> = { 'osx-64': 'x86_64', 'osx-arm64': 'arm64' };
const WINDOWS_PLATFORM: Readonly<Record<string, string>> = { 'win-64': 'win_amd64', 'win-32': 'win32', 'win-arm64': 'win_arm64' };

/** glibc minor versions assumed per older major when a newer major exists (packaging's `_LAST_GLIBC_MINOR`). */
const LAST_GLIBC_MINOR = 50;
const LEGACY_MANYLINUX: Readonly<Record<string, string>> = { '2.17': 'manylinux2014', '2.12': 'manylinux2010', '2.5': 'manylinux1' };

export type MajorMinor = readonly [number, number];

function majorMinor(text: string, what: string): MajorMinor {
  const match = /^\s*([0-9]+)(?:\.([0-9]+))?/.exec(text);
  if (!match) throw new InvalidTagTargetError(`${what} "${text}" is not a version`);
  return [Number(match[1]), Number(match[2] ?? '0')];
}

function less(a: MajorMinor, b: MajorMinor): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** `packaging._manylinux.platform_tags([arch])` for a glibc of `glibc`. */
export function manylinuxPlatforms(glibc: MajorMinor, arch: string): string[] {
  if (!MANYLINUX_ARCHS.has(arch)) return [];
  // The oldest glibc manylinux defines: 2.17, or 2.5 on x86 (PEP 513).
  const oldest: MajorMinor = arch === 'x86_64' || arch === 'i686' ? [2, 5] : [2, 17];
  const maxima: MajorMinor[] = [glibc];
  for (let major = glibc[0] - 1; major > 1; major--) maxima.push([major, LAST_GLIBC_MINOR]);
  const out: string[] = [];
  for (const [major, maxMinor] of maxima) {
    const minMinor = major === oldest[0] ? oldest[1] : 0;
    for (let minor = maxMinor; minor >= minMinor; minor--) {
      out.push(`manylinux_${major}_${minor}_${arch}`);
      const legacy = LEGACY_MANYLINUX[`${major}.${minor}`];
      if (legacy !== undefined) out.push(`${legacy}_${arch}`);
    }
  }
  return out;
}

/** `packaging._musllinux.platform_tags([arch])` for a musl of `musl`. */
export function musllinuxPlatforms(musl: MajorMinor, arch: string): string[] {
  const out: string[] = [];
  for (let minor = musl[1]; minor >= 0; minor--) out.push(`musllinux_${musl[0]}_${minor}_${arch}`);
  return out;
}

/** `packaging.tags._mac_binary_formats`. */
export function macBinaryFormats(version: MajorMinor, arch: string): string[] {
  const formats = [arch];
  if (arch === 'x86_64') {
    if (less(version, [10, 4])) return [];
    formats.push('intel', 'fat64', 'fat3');
  } else if (arch === 'i386') {
    if (less(version, [10, 4])) return [];
    formats.push('intel', 'fat3', 'fat');
  } else if (arch === 'ppc64') {
    if (less([10, 5], version) || less(version, [10, 4])) return [];
    formats.push('fat64');
  } else if (arch === 'ppc') {
    if (less([10, 6], version)) return [];
    formats.push('fat3', 'fat');
  }
  if (arch === 'arm64' || arch === 'x86_64') formats.push('universal2');
  if (['x86_64', 'i386', 'ppc64', 'ppc', 'intel'].includes(arch)) formats.push('universal');
  return formats;
}

/** `packaging.tags.mac_platforms(version, arch)`. */
export function macPlatforms(version: MajorMinor, arch: string): string[] {
  const out: string[] = [];
  const add = (major: number, minor: number, formats: readonly string[]) => {
    for (const format of formats) out.push(`macosx_${major}_${minor}_${format}`);
  };
  if (!less(version, [10, 0]) && less(version, [11, 0])) {
    // Before macOS 11 each yearly release bumped the minor version.
    for (let minor = version[1]; minor >= 0; minor--) add(10, minor, macBinaryFormats([10, minor], arch));
  }
  if (!less(version, [11, 0])) {
    // From macOS 11 each yearly release bumps the major version.
    for (let major = version[0]; major > 10; major--) add(major, 0, macBinaryFormats([major, 0], arch));
    // x86_64 runs binaries built for older releases; arm64 only universal2 ones (their x86_64 half can be older).
    for (let minor = 16; minor > 3; minor--) add(10, minor, arch === 'x86_64' ? macBinaryFormats([10, minor], arch) : ['universal2']);
  }
  return out;
}

function virtualVersion(target: TagTarget, name: string): MajorMinor | undefined {
  const pkg = target.virtualPackages?.find((candidate) => candidate.name === name);
  return pkg === undefined ? undefined : majorMinor(pkg.version, `the version of ${name}`);
}

/**
 * The platform tags of a conda target, best first:
 * - linux: `manylinux_X_Y_<arch>` from `__glibc` down to 2.17 (2.5 on x86_64 and i686), each legacy
 *   alias (`manylinux2014`, `manylinux2010`, `manylinux1`) after its version, as
 *   `packaging._manylinux` yields them; then `musllinux_1_Y_<arch>` only when a `__musl` virtual
 *   package is given (conda-forge's Linux is glibc; no conda tool defines `__musl` yet, so it is
 *   opt-in: `--virtual-package __musl=1.2`); then `linux_<arch>` last, as packaging up to 26.2, pip
 *   and uv rank it (packaging 26.3 moved it first, for installers on the build machine; a resolver
 *   picking among an index's wheels should not prefer a wheel built for some unknown Linux).
 *   Without `__glibc` there are no manylinux tags.
 * - osx: `packaging.tags.mac_platforms(__osx, arch)`: every macOS from `__osx` down, `arm64` and
 *   `universal2` on osx-arm64, `x86_64`, `intel`, `fat64`, `fat3`, `universal2`, `universal` on
 *   osx-64. Without `__osx` there are no macOS tags.
 * - win-64 `win_amd64`, win-32 `win32`, win-arm64 `win_arm64`.
 * - other platforms (freebsd, emscripten, wasi, zos): no platform tags, only pure-Python wheels.
 */
export function condaPlatformTags(target: TagTarget): string[] {
  const linuxArch = LINUX_ARCH[target.platform];
  if (linuxArch !== undefined) {
    const glibc = virtualVersion(target, '__glibc');
    const musl = virtualVersion(target, '__musl');
    return [
      ...(glibc === undefined ? [] : manylinuxPlatforms(glibc, linuxArch)),
      ...(musl === undefined ? [] : musllinuxPlatforms(musl, linuxArch)),
      `linux_${linuxArch}`,
    ];
  }
  const macArch = MAC_ARCH[target.platform];
  if (macArch !== undefined) {
    const osx = virtualVersion(target, '__osx');
    return osx === undefined ? [] : macPlatforms(osx, macArch);
  }
  const windows = WINDOWS_PLATFORM[target.platform];
  return windows === undefined ? [] : [windows];
}

/** A Python version as packaging takes it: `[3]` or `[3, 12]`. */
export type PythonVersionTuple = readonly [number] | readonly [number, number];

function versionNodot(version: PythonVersionTuple): string {
  return version.join('');
}

function atLeast32(version: PythonVersionTuple): boolean {
  return version.length > 1 && !less(version as MajorMinor, [3, 2]);
}

/** `packaging.tags._py_interpreter_range`: `py312`, `py3`, `py311`, ..., `py30`. */
function pyInterpreterRange(version: PythonVersionTuple): string[] {
  const out: string[] = [];
  if (version.length > 1) out.push(`py${versionNodot(version)}`);
  out.push(`py${version[0]}`);
  if (version.length > 1) for (let minor = (version as readonly number[])[1]! - 1; minor >= 0; minor--) out.push(`py${version[0]}${minor}`);
  return out;
}

/**
 * `packaging.tags.cpython_tags(version, abis, platforms)`: the interpreter's ABIs, the stable ABI
 * (`abi3`, or `abi3t` for a free-threaded ABI such as `cp313t`, PEP 803), `none`, then the stable ABI
 * of each older minor down to 3.2 (PEP 384).
 */
export function cpythonTags(version: PythonVersionTuple, abis: readonly string[], platforms: readonly string[]): string[] {
  const interpreter = `cp${versionNodot(version)}`;
  const threading = /^cp[0-9]+(.*)$/.exec(abis[0] ?? '')?.[1]?.includes('t') ?? false;
  const rest = [...abis];
  // The stable ABIs and `none` are placed below, whatever their place in `abis`.
  for (const explicit of threading ? ['abi3', 'abi3t', 'none'] : ['abi3', 'none']) {
    const at = rest.indexOf(explicit);
    if (at >= 0) rest.splice(at, 1);
  }
  const out: string[] = [];
  for (const abi of rest) for (const platform of platforms) out.push(`${interpreter}-${abi}-${platform}`);
  const stable = atLeast32(version) ? (threading ? 'abi3t' : 'abi3') : undefined;
  if (stable !== undefined) for (const platform of platforms) out.push(`${interpreter}-${stable}-${platform}`);
  for (const platform of platforms) out.push(`${interpreter}-none-${platform}`);
  if (stable !== undefined) {
    for (let minor = (version as readonly number[])[1]! - 1; minor > 1; minor--)
      for (const platform of platforms) out.push(`cp${version[0]}${minor}-${stable}-${platform}`);
  }
  return out;
}

/** `packaging.tags.generic_tags(interpreter, abis, platforms)` (PyPy and other interpreters): `none` is added when missing. */
export function genericTags(interpreter: string, abis: readonly string[], platforms: readonly string[]): string[] {
  const all = abis.includes('none') ? abis : [...abis, 'none'];
  return all.flatMap((abi) => platforms.map((platform) => `${interpreter}-${abi}-${platform}`));
}

/** `packaging.tags.compatible_tags(version, interpreter, platforms)`: `py*-none-<platform>`, `<interpreter>-none-any`, `py*-none-any`. */
export function compatibleTags(version: PythonVersionTuple, interpreter: string | undefined, platforms: readonly string[]): string[] {
  const range = pyInterpreterRange(version);
  const out: string[] = [];
  for (const py of range) for (const platform of platforms) out.push(`${py}-none-${platform}`);
  if (interpreter) out.push(`${interpreter}-none-any`);
  for (const py of range) out.push(`${py}-none-any`);
  return out;
}

/** The CPython ABI tag (`_cpython_abis` without debug builds): `cp312`, `cp313t`, `cp37m`, `cp27mu`. */
function cpythonAbi(major: number, minor: number, freeThreading: boolean, platform: string): string {
  const threading = freeThreading && !less([major, minor], [3, 13]) ? 't' : '';
  const pymalloc = less([major, minor], [3, 8]) ? 'm' : '';
  // Python 2 on Linux and macOS was built with UCS-4; Windows used UCS-2.
  const ucs4 = less([major, minor], [3, 3]) && !platform.startsWith('win-') ? 'u' : '';
  return `cp${major}${minor}${threading}${pymalloc}${ucs4}`;
}

function describeTarget(target: TagTarget, version: MajorMinor): string {
  const implementation = target.implementation === 'pypy' ? 'PyPy' : target.implementation === 'graalpy' ? 'GraalPy' : 'CPython';
  const parts = [target.platform, `${implementation} ${version[0]}.${version[1]}${target.freeThreading ? ' (free-threaded)' : ''}`];
  for (const name of ['__glibc', '__musl', '__osx']) {
    const pkg = target.virtualPackages?.find((candidate) => candidate.name === name);
    if (pkg !== undefined && (name === '__osx' ? target.platform.startsWith('osx-') : target.platform.startsWith('linux-'))) {
      parts.push(`${name.slice(2)} ${pkg.version}`);
    }
  }
  return parts.join(', ');
}

/**
 * The tags a conda target accepts, best first, with a rank lookup: `packaging.tags.sys_tags` on a
 * machine like the target. Throws `InvalidTagTargetError` for a Python version that is not
 * `MAJOR.MINOR`, an unknown implementation, or a virtual package version that is not a version.
 */
export function targetTags(target: TagTarget): TargetTags {
  const version = majorMinor(target.pythonVersion, 'the Python version');
  const [major, minor] = version;
  const platforms = condaPlatformTags(target);
  let tags: string[];
  if (target.implementation === 'pypy' || target.implementation === 'graalpy') {
    // sys_tags for other interpreters: generic_tags with the ABI of EXT_SUFFIX, then compatible_tags
    // (with `pp3-none-any` for PyPy, no interpreter-specific pure tag for the others).
    const abis: string[] = [];
    if (target.implementationVersion !== undefined) {
      const own = majorMinor(target.implementationVersion, `the ${target.implementation} version`);
      abis.push(
        target.implementation === 'pypy'
          ? `pypy${major}${minor}_pp${own[0]}${own[1]}`
          : `graalpy${own[0]}${own[1]}_${major}${minor}_native`,
      );
    }
    const interpreter = target.implementation === 'pypy' ? 'pp' : 'graalpy';
    tags = [
      ...genericTags(`${interpreter}${major}${minor}`, abis, platforms),
      ...compatibleTags(version, target.implementation === 'pypy' ? 'pp3' : undefined, platforms),
    ];
  } else if (target.implementation === undefined || target.implementation === 'cpython') {
    const abi = cpythonAbi(major, minor, target.freeThreading === true, target.platform);
    tags = [...cpythonTags(version, [abi], platforms), ...compatibleTags(version, `cp${major}${minor}`, platforms)];
  } else {
    throw new InvalidTagTargetError(`unknown Python implementation "${String(target.implementation)}" (cpython, pypy or graalpy)`);
  }
  const rank = new Map<string, number>();
  tags.forEach((tag, index) => {
    if (!rank.has(tag)) rank.set(tag, index);
  });
  return { platform: target.platform, tags, rank, platforms, description: describeTarget(target, version) };
}

/**
 * The tag target of a conda platform whose solved `python` is `interpreter` (`pythonInterpreter` of
 * marker-environment.ts reads it from the record: implementation, version, free-threading).
 */
export function tagTargetOf(
  platform: string,
  interpreter: PythonInterpreter,
  virtualPackages: readonly { readonly name: string; readonly version: string }[],
): TagTarget {
  return {
    platform,
    pythonVersion: interpreter.pythonVersion,
    implementation: interpreter.implementationName,
    freeThreading: interpreter.freeThreaded,
    ...(interpreter.implementationName === 'cpython' ? {} : { implementationVersion: interpreter.implementationVersion }),
    virtualPackages,
  };
}

/** The best rank among a wheel's tags for the target (lower is better), or undefined when none fits. */
export function wheelRank(target: TargetTags, tags: readonly WheelTag[]): number | undefined {
  let best: number | undefined;
  for (const tag of tags) {
    const rank = target.rank.get(`${tag.interpreter}-${tag.abi}-${tag.platform}`);
    if (rank !== undefined && (best === undefined || rank < best)) best = rank;
  }
  return best;
}

/**
 * The wheel the target prefers among `wheels` (of one release): the best tag rank, then the highest
 * build tag, as pip orders candidates. Undefined when none fits.
 */
export function bestWheel<
  W extends { readonly tags: readonly WheelTag[]; readonly build?: { readonly number: number; readonly suffix: string } | undefined },
>(target: TargetTags, wheels: readonly W[]): W | undefined {
  let best: W | undefined;
  let bestRank = Infinity;
  for (const wheel of wheels) {
    const rank = wheelRank(target, wheel.tags);
    if (rank === undefined) continue;
    if (rank < bestRank || (rank === bestRank && best !== undefined && compareBuild(wheel.build, best.build) > 0)) {
      best = wheel;
      bestRank = rank;
    }
  }
  return best;
}

function compareBuild(a: { number: number; suffix: string } | undefined, b: { number: number; suffix: string } | undefined): number {
  // No build tag sorts before any build tag (packaging's `()` < `(n, s)`).
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  if (a.number !== b.number) return a.number - b.number;
  return a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0;
}
