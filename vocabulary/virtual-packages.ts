/**
 * Virtual packages for a target platform (docs/command-line.md, "Semantics"): the defaults a conda user
 * expects when locking for that platform from any host, conda's `CONDA_OVERRIDE_*` variables, and
 * per-request `NAME=VERSION[=BUILD]` entries.
 */
import { CondaResolveError } from './errors.js';
import { isKnownSubdir, InvalidPlatformError, subdirOs } from './platform.js';
import type { PackageRecord } from './record.js';
import { InvalidVersionError, parseVersion } from './version.js';

export class InvalidVirtualPackageError extends CondaResolveError {
  readonly entry: string;

  constructor(entry: string, reason: string) {
    super('CR_ERR_VIRTUAL_PACKAGE_INVALID', `Cannot use virtual package ${JSON.stringify(entry)}: ${reason}`);
    this.entry = entry;
  }
}

export interface VirtualPackage {
  readonly name: string;
  readonly version: string;
  readonly build: string;
}

/** The channel name of virtual packages, as conda prints it. */
export const VIRTUAL_CHANNEL = '@';

/**
 * `__archspec`'s build string per platform when solving for a platform other than the host:
 * archspec's generic microarchitecture names (as rattler and conda use them), `m1` for the first
 * Apple Silicon. Platforms archspec does not describe (wasm, z/OS) get no `__archspec`.
 */
export const ARCHSPEC_BY_SUBDIR: Readonly<Record<string, string>> = {
  'linux-64': 'x86_64',
  'linux-32': 'x86',
  'linux-aarch64': 'aarch64',
  'linux-armv6l': 'armv6l',
  'linux-armv7l': 'armv7l',
  'linux-ppc64le': 'ppc64le',
  'linux-ppc64': 'ppc64',
  'linux-s390x': 's390x',
  'linux-riscv64': 'riscv64',
  'osx-64': 'x86_64',
  'osx-arm64': 'm1',
  'win-64': 'x86_64',
  'win-32': 'x86',
  'win-arm64': 'aarch64',
  'freebsd-64': 'x86_64',
};

const DEFAULT_LINUX = '4.18';
const DEFAULT_GLIBC = '2.28';
const DEFAULT_OSX = '13.0';

const NAME = /^__[a-z0-9_.-]+$/;

function checkVersion(entry: string, version: string, what: string): string {
  try {
    parseVersion(version);
  } catch (error) {
    if (error instanceof InvalidVersionError)
      throw new InvalidVirtualPackageError(entry, `${what} "${version}" is not a version: ${error.reason}`);
    throw error;
  }
  return version;
}

/**
 * Parse one `NAME=VERSION[=BUILD]` entry (as `--virtual-package` takes it). `NAME` alone means
 * version `0`, build `0`, as conda gives virtual packages without a version.
 */
export function parseVirtualPackage(entry: string): VirtualPackage {
  const text = entry.trim();
  const parts = text.split('=');
  if (parts.length > 3) throw new InvalidVirtualPackageError(entry, 'expected NAME=VERSION[=BUILD]');
  const [rawName, version = '0', build = '0'] = parts;
  const name = rawName!.trim().toLowerCase();
  if (!NAME.test(name)) {
    throw new InvalidVirtualPackageError(
      entry,
      name.startsWith('__')
        ? `"${rawName}" is not a valid package name`
        : 'virtual package names start with "__" (for example __cuda=12.4)',
    );
  }
  if (version.trim() === '') throw new InvalidVirtualPackageError(entry, 'the version is empty');
  if (build.trim() === '') throw new InvalidVirtualPackageError(entry, 'the build string is empty');
  if (!/^[A-Za-z0-9_.+]+$/.test(build.trim())) {
    throw new InvalidVirtualPackageError(entry, `"${build}" is not a valid build string`);
  }
  return { name, version: checkVersion(entry, version.trim(), 'version'), build: build.trim() };
}

/** `__linux`'s version from a kernel release string, as conda trims it (`5.15.0-91-generic` -> `5.15.0`). */
function linuxVersion(release: string): string {
  return /^\d+\.\d+(\.\d+)?(\.\d+)?/.exec(release)?.[0] ?? '0';
}

/**
 * The virtual packages conda-resolve assumes for `platform`, after `CONDA_OVERRIDE_*` variables in
 * `env` (an empty value removes the package; `CONDA_OVERRIDE_CUDA` adds `__cuda`) and `extra`
 * entries (`NAME=VERSION[=BUILD]`, replacing a package of the same name or adding one).
 * Sorted by name.
 */
export function virtualPackageList(
  platform: string,
  env: Readonly<Record<string, string | undefined>> = {},
  extra: readonly string[] = [],
): VirtualPackage[] {
  if (!isKnownSubdir(platform)) throw new InvalidPlatformError(platform);
  const packages = new Map<string, VirtualPackage>();
  const put = (name: string, version: string, build = '0') => packages.set(name, { name, version, build });
  const override = (variable: string): string | undefined => {
    const value = env[variable];
    return value === undefined ? undefined : value.trim();
  };
  const overridden = (variable: string, name: string, fallback: string | null, transform = (v: string) => v) => {
    const value = override(variable);
    if (value === undefined) {
      if (fallback !== null) put(name, fallback);
    } else if (value !== '') {
      put(name, checkVersion(`${variable}=${value}`, transform(value), 'the value'));
    }
  };

  const os = subdirOs(platform);
  if (platform === 'noarch') return [];
  if (os === 'linux' || os === 'osx' || os === 'freebsd' || os === 'zos' || platform === 'emscripten-wasm32') put('__unix', '0');
  if (os === 'linux') {
    overridden('CONDA_OVERRIDE_LINUX', '__linux', DEFAULT_LINUX, linuxVersion);
    overridden('CONDA_OVERRIDE_GLIBC', '__glibc', DEFAULT_GLIBC);
  }
  if (os === 'osx') overridden('CONDA_OVERRIDE_OSX', '__osx', DEFAULT_OSX);
  if (os === 'win') overridden('CONDA_OVERRIDE_WIN', '__win', '0');
  overridden('CONDA_OVERRIDE_CUDA', '__cuda', null);

  const archspec = override('CONDA_OVERRIDE_ARCHSPEC');
  const arch = archspec === undefined ? ARCHSPEC_BY_SUBDIR[platform] : archspec;
  if (arch !== undefined && arch !== '') {
    if (!/^[A-Za-z0-9_.+]+$/.test(arch)) {
      throw new InvalidVirtualPackageError(`CONDA_OVERRIDE_ARCHSPEC=${arch}`, 'not a valid archspec name');
    }
    put('__archspec', '1', arch);
  }

  for (const entry of extra) {
    const pkg = parseVirtualPackage(entry);
    packages.set(pkg.name, pkg);
  }
  return [...packages.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A virtual package as a record: channel `@`, the platform's subdir, no dependencies. */
export function virtualPackageRecord(pkg: VirtualPackage, platform: string): PackageRecord {
  const fn = `${pkg.name}-${pkg.version}-${pkg.build}.conda`;
  return {
    name: pkg.name,
    version: pkg.version,
    build: pkg.build,
    build_number: 0,
    channel: VIRTUAL_CHANNEL,
    subdir: platform,
    fn,
    url: `virtual://${platform}/${fn}`,
    md5: null,
    sha256: null,
    size: null,
    depends: [],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
  };
}

/**
 * The virtual packages for `platform` as records, ready to add to a solve (see
 * `virtualPackageList` for the rules). Throws `InvalidVirtualPackageError` naming a bad entry or
 * override, `InvalidPlatformError` for an unknown platform.
 */
export function virtualPackages(
  platform: string,
  env: Readonly<Record<string, string | undefined>> = {},
  extra: readonly string[] = [],
): PackageRecord[] {
  return virtualPackageList(platform, env, extra).map((pkg) => virtualPackageRecord(pkg, platform));
}
