import { describe, expect, it } from 'vitest';
import {
  hostSubdir,
  InvalidPlatformError,
  isKnownSubdir,
  KNOWN_SUBDIRS,
  parsePlatform,
  subdirArch,
  subdirOs,
  TARGET_SUBDIRS,
} from '../../vocabulary/platform.js';

describe('known subdirs', () => {
  it("is conda's KNOWN_SUBDIRS list", () => {
    expect([...KNOWN_SUBDIRS]).toEqual([
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
    ]);
    expect(TARGET_SUBDIRS).not.toContain('noarch');
    expect(TARGET_SUBDIRS).toHaveLength(KNOWN_SUBDIRS.length - 1);
  });

  it('recognises known subdirs only', () => {
    expect(isKnownSubdir('linux-64')).toBe(true);
    expect(isKnownSubdir('noarch')).toBe(true);
    expect(isKnownSubdir('linux-65')).toBe(false);
    expect(isKnownSubdir('Linux-64')).toBe(false);
    expect(isKnownSubdir('')).toBe(false);
  });

  it('parsePlatform names the bad value and lists the valid ones', () => {
    expect(parsePlatform(' osx-arm64 ')).toBe('osx-arm64');
    const run = () => parsePlatform('macos-arm64');
    expect(run).toThrow(InvalidPlatformError);
    expect(run).toThrow(`Cannot use platform "macos-arm64": unknown platform. Valid platforms are: ${KNOWN_SUBDIRS.join(', ')}`);
    try {
      run();
    } catch (e) {
      expect((e as InvalidPlatformError).code).toBe('CR_ERR_PLATFORM_INVALID');
      expect((e as InvalidPlatformError).platform).toBe('macos-arm64');
    }
  });

  it('splits a subdir into os and arch', () => {
    expect([subdirOs('linux-aarch64'), subdirArch('linux-aarch64')]).toEqual(['linux', 'aarch64']);
    expect([subdirOs('emscripten-wasm32'), subdirArch('emscripten-wasm32')]).toEqual(['emscripten', 'wasm32']);
    expect([subdirOs('noarch'), subdirArch('noarch')]).toEqual(['noarch', '']);
  });
});

describe('hostSubdir', () => {
  it.each([
    ['linux', 'x64', 'linux-64'],
    ['linux', 'arm64', 'linux-aarch64'],
    ['linux', 'ia32', 'linux-32'],
    ['linux', 'arm', 'linux-armv7l'],
    ['linux', 'ppc64', 'linux-ppc64le'],
    ['linux', 's390x', 'linux-s390x'],
    ['linux', 'riscv64', 'linux-riscv64'],
    ['darwin', 'x64', 'osx-64'],
    ['darwin', 'arm64', 'osx-arm64'],
    ['win32', 'x64', 'win-64'],
    ['win32', 'ia32', 'win-32'],
    ['win32', 'arm64', 'win-arm64'],
    ['freebsd', 'x64', 'freebsd-64'],
    ['os390', 's390x', 'zos-z'],
  ])('%s/%s -> %s', (platform, arch, expected) => {
    expect(hostSubdir(platform, arch)).toBe(expected);
  });

  it('throws a typed error for hosts conda has no subdir for', () => {
    expect(() => hostSubdir('openbsd', 'x64')).toThrow(InvalidPlatformError);
    expect(() => hostSubdir('linux', 'mips')).toThrow(
      'Cannot use platform "linux/mips": conda has no subdir for this host; pass a platform explicitly',
    );
  });
});
