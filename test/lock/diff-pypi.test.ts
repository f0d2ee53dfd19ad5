/**
 * `diff` of native JSON results that carry PyPI distributions (`manager: "pip"`) as a solve
 * writes them: compared by name and version beside the conda records.
 */
import { describe, expect, it } from 'vitest';
import { diffEnvironments } from '../../src/lock/diff.js';
import { readExactRecords } from '../../src/lock/exact-records.js';

const pip = (name: string, version: string) => ({
  name,
  version,
  filename: `${name}-${version}-py3-none-any.whl`,
  url: `https://files.example/${name}-${version}-py3-none-any.whl`,
  index: 'https://pypi.org/simple',
  sha256: null,
  hashes: {},
  size: null,
  upload_time: null,
  yanked: false,
  requires_dist: [],
  requires_python: null,
  extras: [],
  depends: [],
  manager: 'pip',
});
const conda = {
  name: 'python',
  version: '3.12.3',
  build: 'h0_0',
  channel: 'conda-forge',
  subdir: 'linux-64',
  url: 'https://conda.anaconda.org/conda-forge/linux-64/python-3.12.3-h0_0.conda',
  manager: 'conda',
};

describe('diff with PyPI packages', () => {
  it('reads them from the native JSON result and names added, removed and changed ones', () => {
    const before = readExactRecords(
      'a.json',
      JSON.stringify([{ platform: 'linux-64', packages: [conda, pip('click', '8.4.0'), pip('colorama', '0.4.6')], error: null }]),
    );
    const after = readExactRecords(
      'b.json',
      JSON.stringify([{ platform: 'linux-64', packages: [conda, pip('click', '8.1.7'), pip('rich', '13.9.4')], error: null }]),
    );
    expect(
      diffEnvironments(before, after)[0]!.changes.map(
        (c) => `${c.kind} ${c.name} ${c.old?.version ?? ''} ${c.new?.version ?? ''} ${c.manager ?? 'conda'}`,
      ),
    ).toEqual(['downgraded click 8.4.0 8.1.7 pip', 'removed colorama 0.4.6  pip', 'added rich  13.9.4 pip']);
  });
});
