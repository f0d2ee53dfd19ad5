/** conda-lock.yml as CEP 37 specifies it: every field read, and written back on a transcode. */
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { lockExportEnvironments, readLockFile } from '../../src/locks/lock-file.js';
import { exportCondaLockV1 } from '../../src/locks/conda-lock/write.js';
import { InputFileError } from '../../src/errors.js';

// CEP 37's example (two of its platforms), with the optional fields it defines, and no `version`.
const CEP37 = `metadata:
  content_hash:
    linux-64: af8caa5bbfb00f2641c82d05c7258a316df062d8fadc022a7f47dfd3a25ab331
    win-64: 0330a1a7629629d74acdf2d60b6a18e7691b47b25e14fa6b1f65fc31cc302951
  channels:
  - url: conda-forge
    used_env_vars: []
  platforms:
  - linux-64
  - win-64
  sources:
  - environment.yml
  time_metadata:
    created_at: '2025-10-26T10:00:00Z'
  git_metadata:
    git_user_name: Jaime
    git_sha: 0123456789abcdef
  inputs_metadata:
    environment.yml:
      md5: d41d8cd98f00b204e9800998ecf8427e
      sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
  custom_metadata:
    team: data
package:
- name: ca-certificates
  version: 2025.10.5
  manager: conda
  platform: linux-64
  dependencies:
    __unix: ''
  url: https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2025.10.5-hbd8a1cb_0.conda
  hash:
    md5: f9e5fbc24009179e8b0409624691758a
    sha256: 3b5ad78b8bb61b6cdc0978a6a99f8dfb2cc789a451378d054698441005ecbdb6
  source:
    type: url
    url: https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2025.10.5-hbd8a1cb_0.conda
  build: hbd8a1cb_0
  category: main
  optional: false
- name: ca-certificates
  version: 2025.10.5
  manager: conda
  platform: win-64
  dependencies:
    __win: ''
  url: https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2025.10.5-h4c7d964_0.conda
  hash:
    md5: e54200a1cd1fe33d61c9df8d3b00b743
    sha256: bfb7f9f242f441fdcd80f1199edd2ecf09acea0f2bcef6f07d7cbb1a8131a345
  category: dev
  optional: true
`;

const context = { toolName: 'conda-resolve', toolVersion: '0.0.0', now: new Date('2026-01-01T00:00:00Z') };

describe('conda-lock.yml (CEP 37)', () => {
  const lock = readLockFile('conda-lock.yml', CEP37);

  it('reads a lock without `version` (CEP 37: optional, defaults to 1)', () => {
    expect(lock.version).toBe(1);
    expect(lock.environments.get('default')!.platforms.get('win-64')![0]!.depends).toEqual(['__win']);
  });

  it('writes back every field CEP 37 defines on a transcode', () => {
    const written = yaml.load(exportCondaLockV1(lockExportEnvironments(lock), context)) as Record<string, Record<string, unknown>> & {
      package: Record<string, unknown>[];
    };
    const original = yaml.load(CEP37) as Record<string, Record<string, unknown>> & { package: Record<string, unknown>[] };
    expect(written.version).toBe(1);
    expect(written.metadata).toEqual(original.metadata);
    expect(written.package).toEqual(original.package);
  });

  it('refuses a newer version and a pip entry without a version, naming the entry', () => {
    const fail = (text: string) => {
      try {
        readLockFile('conda-lock.yml', text);
      } catch (error) {
        expect(error).toBeInstanceOf(InputFileError);
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(fail(`version: 2\n${CEP37}`)).toBe(
      'Cannot read lock file "conda-lock.yml": conda-lock version 2 is newer than this conda-resolve reads (version 1, CEP 37)',
    );
    const pip = `${CEP37}- name: six\n  manager: pip\n  platform: linux-64\n  url: https://files.pythonhosted.org/packages/six-1.16.0-py2.py3-none-any.whl\n  hash: {}\n  optional: false\n`;
    expect(fail(pip)).toBe(
      'Cannot read lock file "conda-lock.yml": package[2] (six on linux-64): the pip package "six" has no "version" (a locked distribution is pinned)',
    );
  });
});
