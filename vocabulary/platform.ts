/**
 * conda platforms (subdirs): the list conda knows (`conda.base.constants.KNOWN_SUBDIRS`) and the
 * host's subdir computed from Node's `process.platform` / `process.arch` values (passed in, so
 * this module stays pure and runs in a browser).
 */
import { CondaResolveError } from './errors.js';

export const KNOWN_SUBDIRS = [
  'emscripten-wasm32',
  'freebsd-64',
  'linux-32',
  'linux-64',
  'linux-aarch64',
  'linux-armv6l',
  'linux-armv7l',
  'linux-ppc64',
  'linux-ppc64le',
  'linux-riscv64',
  'linux-s390x',
  'noarch',
  'osx-64',
  'osx-arm64',
  'wasi-wasm32',
  'win-32',
  'win-64',
  'win-arm64',
  'zos-z',
] as const;

export type KnownSubdir = (typeof KNOWN_SUBDIRS)[number];

/** The known subdirs a solve can target: every known subdir except `noarch`. */
export const TARGET_SUBDIRS: readonly KnownSubdir[] = KNOWN_SUBDIRS.filter((s) => s !== 'noarch');

const KNOWN = new Set<string>(KNOWN_SUBDIRS);

/** An unknown platform; the message lists the valid ones, as conda's does. */
export class InvalidPlatformError extends CondaResolveError {
  readonly platform: string;

  constructor(platform: string, reason = 'unknown platform', valid: readonly string[] = KNOWN_SUBDIRS) {
    super(
      'CR_ERR_PLATFORM_INVALID',
      `Cannot use platform ${JSON.stringify(platform)}: ${reason}. Valid platforms are: ${valid.join(', ')}`,
    );
    this.platform = platform;
  }
}

export function isKnownSubdir(value: string): value is KnownSubdir {
  return KNOWN.has(value);
}

/** Return `value` as a known subdir, or throw `InvalidPlatformError` listing the valid ones. */
export function parsePlatform(value: string): KnownSubdir {
  const trimmed = value.trim();
  if (isKnownSubdir(trimmed)) return trimmed;
  throw new InvalidPlatformError(value);
}

/** The operating-system family of a subdir: `linux`, `osx`, `win`, ... (`noarch` for noarch). */
export function subdirOs(subdir: string): string {
  const dash = subdir.indexOf('-');
  return dash < 0 ? subdir : subdir.slice(0, dash);
}

/** The architecture part of a subdir: `64`, `aarch64`, `arm64`, ... (empty for noarch). */
export function subdirArch(subdir: string): string {
  const dash = subdir.indexOf('-');
  return dash < 0 ? '' : subdir.slice(dash + 1);
}

const HOST_SUBDIRS: Readonly<Record<string, Readonly<Record<string, KnownSubdir>>>> = {
  linux: {
    x64: 'linux-64',
    ia32: 'linux-32',
    arm64: 'linux-aarch64',
    // Node reports every 32-bit ARM as `arm`; conda-forge builds for armv7l, not armv6l.
    arm: 'linux-armv7l',
    // Node supports only little-endian POWER on Linux.
    ppc64: 'linux-ppc64le',
    s390x: 'linux-s390x',
    riscv64: 'linux-riscv64',
  },
  darwin: { x64: 'osx-64', arm64: 'osx-arm64' },
  win32: { x64: 'win-64', ia32: 'win-32', arm64: 'win-arm64' },
  freebsd: { x64: 'freebsd-64' },
  os390: { s390x: 'zos-z' },
};

/**
 * The conda subdir of a host, from Node's `process.platform` and `process.arch` values.
 * Throws `InvalidPlatformError` for a host conda has no subdir for.
 */
export function hostSubdir(platform: string, arch: string): KnownSubdir {
  const subdir = HOST_SUBDIRS[platform]?.[arch];
  if (subdir === undefined) {
    throw new InvalidPlatformError(`${platform}/${arch}`, 'conda has no subdir for this host; pass a platform explicitly', TARGET_SUBDIRS);
  }
  return subdir;
}
