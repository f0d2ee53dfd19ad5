import { describe, expect, it } from 'vitest';
import { virtualPackageList } from '../../../vocabulary/virtual-packages.js';
import { markerEnvironment, pythonInterpreter, type RecordLike } from '../../../vocabulary/pypi/marker-environment.js';
import { evaluateMarker } from '../../../vocabulary/pypi/markers.js';
import { LINUX_CPYTHON_312 } from './vectors.js';

const python = (version: string, build = 'h9e4cc4f_0_cpython', depends: string[] = []): RecordLike => ({
  name: 'python',
  version,
  build,
  depends,
});

describe('the marker environment of a conda target', () => {
  it('linux-64 with CPython 3.12.4 and the default virtual packages', () => {
    expect(markerEnvironment({ platform: 'linux-64', python: python('3.12.4'), virtualPackages: virtualPackageList('linux-64') })).toEqual({
      ...LINUX_CPYTHON_312,
      platform_release: '4.18',
    });
  });

  it.each([
    ['linux-aarch64', 'linux', 'Linux', 'posix', 'aarch64'],
    ['linux-ppc64le', 'linux', 'Linux', 'posix', 'ppc64le'],
    ['osx-64', 'darwin', 'Darwin', 'posix', 'x86_64'],
    ['osx-arm64', 'darwin', 'Darwin', 'posix', 'arm64'],
    ['win-64', 'win32', 'Windows', 'nt', 'AMD64'],
    ['win-arm64', 'win32', 'Windows', 'nt', 'ARM64'],
    ['emscripten-wasm32', 'emscripten', 'Emscripten', 'posix', 'wasm32'],
  ])(
    '%s: sys_platform %s, platform_system %s, os_name %s, platform_machine %s',
    (platform, sys_platform, platform_system, os_name, platform_machine) => {
      expect(markerEnvironment({ platform, python: python('3.11.9') })).toMatchObject({
        sys_platform,
        platform_system,
        os_name,
        platform_machine,
      });
    },
  );

  it('reads the kernel, Darwin and Windows releases from the virtual packages', () => {
    const osx = (v: string) =>
      markerEnvironment({ platform: 'osx-arm64', python: python('3.12.0'), virtualPackages: [{ name: '__osx', version: v, build: '0' }] })
        .platform_release;
    expect(osx('14.5')).toBe('23.5.0');
    expect(osx('11.0')).toBe('20.0.0');
    expect(osx('26.1')).toBe('25.1.0');
    expect(osx('10.15')).toBe('');
    const win = markerEnvironment({
      platform: 'win-64',
      python: python('3.12.0'),
      virtualPackages: [{ name: '__win', version: '10.0.22631', build: '0' }],
    });
    expect(win).toMatchObject({ platform_release: '11', platform_version: '10.0.22631' });
    expect(
      markerEnvironment({ platform: 'win-64', python: python('3.12.0'), virtualPackages: virtualPackageList('win-64') }),
    ).toMatchObject({ platform_release: '', platform_version: '' });
    expect(
      markerEnvironment({
        platform: 'linux-64',
        python: python('3.12.0'),
        virtualPackages: virtualPackageList('linux-64', { CONDA_OVERRIDE_LINUX: '6.8.0' }),
      }).platform_release,
    ).toBe('6.8.0');
  });

  it('gives CPython pre-releases as Python does (python_full_version 3.13.0rc1, implementation_version 3.13.0c1) and pads a short version', () => {
    expect(pythonInterpreter(python('3.13.0rc1'))).toMatchObject({
      pythonFullVersion: '3.13.0rc1',
      implementationVersion: '3.13.0c1',
      pythonVersion: '3.13',
    });
    expect(pythonInterpreter(python('3.14'))).toMatchObject({ pythonFullVersion: '3.14.0', pythonVersion: '3.14' });
  });

  it("recognises conda-forge's free-threaded builds", () => {
    expect(pythonInterpreter(python('3.13.0', 'h9ebbce0_100_cp313t')).freeThreaded).toBe(true);
    expect(pythonInterpreter(python('3.13.1', 'h9ebbce0_1_cpython', ['python_abi 3.13.* *_cp313t'])).freeThreaded).toBe(true);
    expect(
      pythonInterpreter(python('3.13.1'), [{ name: 'python-freethreading', version: '3.13.1', build: '0', depends: [] }]).freeThreaded,
    ).toBe(true);
    expect(pythonInterpreter(python('3.13.1')).freeThreaded).toBe(false);
  });

  it('recognises PyPy (version from the pypy3.x record or the pin) and GraalPy', () => {
    // conda-forge's python 3.9.10 0_73_pypy (shared channel snapshot).
    const pypy = python('3.9.10', '0_73_pypy', ['pypy3.9 7.3.8.*', 'python_abi 3.9 *_pypy39_pp73', 'pip']);
    expect(markerEnvironment({ platform: 'linux-64', python: pypy })).toMatchObject({
      implementation_name: 'pypy',
      implementation_version: '7.3.8',
      platform_python_implementation: 'PyPy',
      python_full_version: '3.9.10',
    });
    expect(pythonInterpreter(pypy, [{ name: 'pypy3.9', version: '7.3.9', build: 'h', depends: [] }]).implementationVersion).toBe('7.3.9');
    expect(pythonInterpreter(python('3.10.8', '1_graalpy', ['graalpy 23.0.0.*']))).toMatchObject({
      implementationName: 'graalpy',
      platformPythonImplementation: 'GraalVM',
      implementationVersion: '23.0.0',
    });
  });

  it('answers markers for the target, not for this machine', () => {
    const win = markerEnvironment({ platform: 'win-64', python: python('3.10.14') });
    expect(evaluateMarker('sys_platform == "win32" and platform_machine == "AMD64" and python_version < "3.11"', win)).toBe(true);
    expect(evaluateMarker('os_name == "posix"', win)).toBe(false);
  });

  it('refuses targets it cannot describe, with a typed error', () => {
    for (const platform of ['noarch', 'freebsd-64', 'wasi-wasm32', 'zos-z', 'linux-128']) {
      expect(() => markerEnvironment({ platform, python: python('3.12.0') })).toThrow(
        expect.objectContaining({ code: 'CR_ERR_PYPI_ENVIRONMENT' }),
      );
    }
    expect(() => markerEnvironment({ platform: 'linux-64', python: { ...python('3.12.0'), name: 'numpy' } })).toThrow('not "python"');
    expect(() => pythonInterpreter(python('3.9.10', '0_73_pypy'))).toThrow(
      'is PyPy, but neither the records nor its dependencies give the PyPy version',
    );
  });
});
