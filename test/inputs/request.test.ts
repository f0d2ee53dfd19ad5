import { describe, expect, it } from 'vitest';
import { parseExcludeNewer, prepareRequest } from '../../src/request.js';
import { UsageError } from '../../src/errors.js';
import { MatchSpec } from '../../vocabulary/match-spec.js';

const options = { env: {}, cwd: '/home/user/project', hostPlatform: 'linux-64', defaultChannels: ['conda-forge'] };

describe('prepareRequest', () => {
  it("puts -c channels first, then the files' channels, without duplicates; conda-forge when none", () => {
    const prepared = prepareRequest(
      {
        specs: ['numpy'],
        channels: ['bioconda', 'https://conda.anaconda.org/conda-forge/'],
        files: [{ filename: 'environment.yml', content: 'channels: [conda-forge, defaults]\ndependencies: [python=3.12]\n' }],
      },
      options,
    );
    expect(prepared.channels.map((c) => c.name)).toEqual([
      'bioconda',
      'conda-forge',
      'https://repo.anaconda.com/pkgs/main',
      'https://repo.anaconda.com/pkgs/r',
    ]);
    expect(prepared.specs.map((s) => s.source)).toEqual(['python=3.12', 'numpy']);
    expect(prepareRequest({ specs: ['numpy'] }, options).channels.map((c) => c.name)).toEqual(['conda-forge']);
  });

  it('carries each spec parsed, with its text as written (trimmed), for the solver to use as it is', () => {
    const prepared = prepareRequest({ specs: [' numpy >=1.26 ', 'conda-forge::python 3.12.*'] }, options);
    expect(prepared.specs.every((spec) => spec instanceof MatchSpec)).toBe(true);
    expect(prepared.specs.map((spec) => [spec.source, spec.name, spec.channel])).toEqual([
      ['numpy >=1.26', 'numpy', null],
      ['conda-forge::python 3.12.*', 'python', 'conda-forge'],
    ]);
  });

  it('takes platforms from flags, else from the files, else the host', () => {
    const file = { filename: 'environment.yml', content: 'dependencies: [python]\nplatforms: [osx-arm64, win-64]\n' };
    expect(prepareRequest({ files: [file] }, options).platforms).toEqual(['osx-arm64', 'win-64']);
    expect(prepareRequest({ files: [file], platforms: ['linux-aarch64'] }, options).platforms).toEqual(['linux-aarch64']);
    expect(prepareRequest({ specs: ['python'] }, options).platforms).toEqual(['linux-64']);
    expect(prepareRequest({ specs: ['python'], platforms: ['linux-64', 'linux-64'] }, options).platforms).toEqual(['linux-64']);
  });

  it('resolves local channel paths against the working directory and applies CONDA_CHANNEL_ALIAS', () => {
    const prepared = prepareRequest(
      { specs: ['x'], channels: ['./channel', 'my-org'] },
      { ...options, env: { CONDA_CHANNEL_ALIAS: 'https://mirror.example.com/conda' } },
    );
    expect(prepared.channels.map((c) => c.baseUrl)).toEqual([
      'file:///home/user/project/channel',
      'https://mirror.example.com/conda/my-org',
    ]);
  });

  it('refuses noarch as a target, an empty request, and a bad virtual package', () => {
    expect(() => prepareRequest({ specs: ['x'], platforms: ['noarch'] }, options)).toThrow(/noarch is not a target platform/);
    expect(() => prepareRequest({}, options)).toThrow(
      new UsageError('CR_ERR_INPUT_NO_SPECS', 'Cannot resolve: give package specs or an environment file'),
    );
    expect(() => prepareRequest({ files: [{ filename: 'e.yml', content: 'dependencies: []' }] }, options)).toThrow(
      'Cannot resolve: "e.yml" lists no conda packages',
    );
    expect(() => prepareRequest({ specs: ['x'], virtualPackages: ['glibc'] }, options)).toThrow(UsageError);
  });
});

describe('parseExcludeNewer', () => {
  it('reads dates as midnight UTC and date-times with zones', () => {
    expect(parseExcludeNewer('2024-05-01')).toBe(Date.UTC(2024, 4, 1));
    expect(parseExcludeNewer('2024-05-01T12:30:00Z')).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseExcludeNewer('2024-05-01T12:30:00+02:00')).toBe(Date.UTC(2024, 4, 1, 10, 30));
    expect(() => parseExcludeNewer('May 1st')).toThrow(UsageError);
  });
});
