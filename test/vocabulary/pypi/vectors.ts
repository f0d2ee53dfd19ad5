/** The vectors carried over from pypa/packaging's test suite (see vectors/extract.py). */
import { readFileSync } from 'node:fs';

type Params = Record<string, unknown>;

/** The parameter sets of one packaging test, by its name (`TestVersion.test_valid_versions`). */
export function packagingVectors<T extends Params = Params>(module: 'test_version' | 'test_specifiers' | 'test_requirements' | 'test_markers' | 'test_utils', test: string): T[] {
  const file = JSON.parse(readFileSync(new URL(`./vectors/${module}.json`, import.meta.url), 'utf8')) as { tests: Record<string, T[]> };
  const vectors = file.tests[test];
  if (!vectors || vectors.length === 0) throw new Error(`no vectors for ${module} ${test}`);
  return vectors;
}
