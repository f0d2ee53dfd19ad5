/** The vectors carried over from pypa/packaging's test suite (see vectors/extract.py). */
import { readFileSync } from 'node:fs';
import type { MarkerEnvironment } from '../../../vocabulary/pypi/markers.js';

type Params = Record<string, unknown>;

/** The parameter sets of one packaging test, by its name (`TestVersion.test_valid_versions`). */
export function packagingVectors<T extends Params = Params>(module: 'test_version' | 'test_specifiers' | 'test_requirements' | 'test_markers' | 'test_utils', test: string): T[] {
  const file = JSON.parse(readFileSync(new URL(`./vectors/${module}.json`, import.meta.url), 'utf8')) as { tests: Record<string, T[]> };
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
