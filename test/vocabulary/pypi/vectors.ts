/**
 * The vectors of pypa/packaging's test suite, made by vectors/extract.py into
 * ../shared/third-party/pypa-packaging/ (test/THIRD-PARTY-DATA.md): absent, a table is empty and
 * its tests are not there.
 */
import { thirdPartyJson } from '../../helpers/third-party.js';
import type { MarkerEnvironment } from '../../../vocabulary/pypi/markers.js';

type Params = Record<string, unknown>;

/** Whether the vectors are in ../shared/third-party (tests that read a table whole skip without them). */
export const HAVE_PACKAGING_VECTORS = thirdPartyJson('pypa-packaging/test_version.json') !== undefined;

/** The parameter sets of one packaging test, by its name; none when the vectors are absent. */
export function packagingVectors<T extends Params = Params>(
  module: 'test_version' | 'test_specifiers' | 'test_requirements' | 'test_markers' | 'test_utils',
  test: string,
): T[] {
  const file = thirdPartyJson<{ tests: Record<string, T[]> }>(`pypa-packaging/${module}.json`);
  if (file === undefined) return [];
  const vectors = file.tests[test];
  if (!vectors || vectors.length === 0) throw new Error(`no vectors for ${module} ${test}`);
  return vectors;
}

/** CPython 3.12.4 on linux-64 as markerEnvironment computes it (with no __linux: no platform_release). */
export const LINUX_CPYTHON_312: MarkerEnvironment = {
  implementation_name: 'cpython',
  implementation_version: '3.12.4',
  os_name: 'posix',
  platform_machine: 'x86_64',
  platform_release: '',
  platform_system: 'Linux',
  platform_version: '',
  python_full_version: '3.12.4',
  platform_python_implementation: 'CPython',
  python_version: '3.12',
  sys_platform: 'linux',
};
