import { describe, expect, it } from 'vitest';
import { fileName, inputFromJson, inputFromQuery, inputFromUpload, splitSpecs } from '../../src/http/routes/resolve-input.js';

describe('splitSpecs', () => {
  it.each([
    ['numpy,scipy', ['numpy', 'scipy']],
    ['numpy>=1.26,<2, python=3.12', ['numpy>=1.26,<2', 'python=3.12']],
    ['python 3.9.*,!=3.9.1,pip', ['python 3.9.*,!=3.9.1', 'pip']],
    ["numpy[version='>=1.26,<2',build=*_0],scipy", ["numpy[version='>=1.26,<2',build=*_0]", 'scipy']],
    ['conda-forge::numpy,_libgcc_mutex', ['conda-forge::numpy', '_libgcc_mutex']],
    [' , numpy ,, ', ['numpy']],
  ])('%s', (text, specs) => {
    expect(splitSpecs(text)).toEqual(specs);
  });
});

describe('inputs', () => {
  it('a GET query: repeated singular and comma-separated plural parameters combine', () => {
    const input = inputFromQuery({
      spec: ['python=3.12', 'numpy>=1.26,<2'],
      specs: 'scipy,pandas',
      channel: 'conda-forge',
      platforms: 'linux-64, osx-arm64',
      format: 'explicit',
    });
    expect(input.request.specs).toEqual(['python=3.12', 'numpy>=1.26,<2', 'scipy', 'pandas']);
    expect(input.request.channels).toEqual(['conda-forge']);
    expect(input.request.platforms).toEqual(['linux-64', 'osx-arm64']);
    expect(input.format).toBe('explicit');
    expect(input.hasFile).toBe(false);
  });

  it('a JSON body: arrays as given, strings split, body fields win over query parameters', () => {
    const input = inputFromJson(
      {
        specs: ['numpy>=1.26,<2'],
        channels: 'conda-forge,bioconda',
        platforms: null,
        file: 'dependencies: [python]',
        filename: '../../etc/environment.yml',
      },
      { platform: 'win-64', channel: 'x', format: 'yaml' },
    );
    expect(input.request.specs).toEqual(['numpy>=1.26,<2']);
    expect(input.request.channels).toEqual(['conda-forge', 'bioconda']);
    expect(input.request.platforms).toEqual(['win-64']);
    expect(input.request.files).toEqual([{ filename: 'environment.yml', content: 'dependencies: [python]' }]);
    expect(input.format).toBe('yaml');
  });

  it('a raw upload takes everything else from the query', () => {
    const input = inputFromUpload('numpy\n', 'text/plain', { filename: 'reqs.txt', platform: 'linux-64' });
    expect(input.request.files).toEqual([{ filename: 'reqs.txt', content: 'numpy\n' }]);
    expect(input.request.platforms).toEqual(['linux-64']);
    expect(inputFromUpload('dependencies: []', 'application/yaml', {}).request.files?.[0]?.filename).toBe('environment.yml');
  });

  it('guesses a file name from the text when none is given', () => {
    expect(fileName(undefined, 'name: x\ndependencies:\n  - python\n')).toBe('environment.yml');
    expect(fileName(undefined, '@EXPLICIT\nhttps://x/y.conda\n')).toBe('requirements.txt');
    expect(fileName('C:\\Users\\me\\env.yaml', '')).toBe('env.yaml');
  });
});
