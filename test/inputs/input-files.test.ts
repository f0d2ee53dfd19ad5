import { describe, expect, it } from 'vitest';
import { parseInputFile, parseExplicitUrl } from '../../src/inputs/index.js';
import { InputFileError } from '../../src/errors.js';

function failure(fn: () => unknown): InputFileError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputFileError);
    return error as InputFileError;
  }
  throw new Error('expected a failure');
}

describe('environment.yml', () => {
  it('reads name, channels, dependencies, platforms and the pip: section', () => {
    const parsed = parseInputFile(
      'environment.yml',
      [
        'name: demo',
        'channels:',
        '  - conda-forge',
        '  - nodefaults',
        'dependencies:',
        '  - python=3.9',
        '  - "numpy >=1.26"',
        '  - pip',
        '  - pip:',
        '      - requests==2.32.3',
        'platforms: [linux-64, osx-arm64]',
        '',
      ].join('\n'),
    );
    expect(parsed.kind).toBe('environment');
    expect(parsed.channels).toEqual(['conda-forge']);
    expect(parsed.platforms).toEqual(['linux-64', 'osx-arm64']);
    expect(parsed.specs).toEqual([
      { spec: 'python=3.9', line: 6 },
      { spec: 'numpy >=1.26', line: 7 },
      { spec: 'pip', line: 8 },
    ]);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.pypi).toEqual([{ requirement: 'requests==2.32.3', at: 'environment.yml, line 10', file: 'environment.yml' }]);
  });

  it('accepts .yaml names and an empty document', () => {
    const parsed = parseInputFile('env.yaml', '');
    expect(parsed.specs).toEqual([]);
  });

  it('names the line and column of a YAML syntax error', () => {
    const error = failure(() => parseInputFile('environment.yml', 'dependencies:\n  - python\n - numpy: [\n'));
    expect(error.code).toBe('CR_ERR_INPUT_YAML');
    expect(error.message).toMatch(/^Cannot read environment file "environment\.yml": .+ at line \d+, column \d+$/);
  });

  it('names the field that has the wrong shape', () => {
    expect(failure(() => parseInputFile('environment.yml', 'dependencies: python')).message).toBe(
      'Cannot read environment file "environment.yml": "dependencies" must be a list',
    );
    expect(failure(() => parseInputFile('environment.yml', 'channels: conda-forge\ndependencies: [python]')).message).toBe(
      'Cannot read environment file "environment.yml": "channels" must be a list of strings',
    );
    expect(failure(() => parseInputFile('environment.yml', 'dependencies:\n  - {a: 1}')).message).toBe(
      'Cannot read environment file "environment.yml": "dependencies" item 1 must be a package spec string or a "pip:" list',
    );
    expect(failure(() => parseInputFile('environment.yml', '- python')).message).toBe(
      'Cannot read environment file "environment.yml": the document must be a mapping with "dependencies"',
    );
  });
});

describe('spec lists', () => {
  it('reads one spec per line with comments and blank lines', () => {
    const parsed = parseInputFile('requirements.txt', '# a comment\npython=3.9\n\nnumpy >=1.26  # pinned\n');
    expect(parsed.kind).toBe('spec-list');
    expect(parsed.specs).toEqual([
      { spec: 'python=3.9', line: 2 },
      { spec: 'numpy >=1.26', line: 4 },
    ]);
  });

  it('refuses file names it does not know', () => {
    const error = failure(() => parseInputFile('Cargo.toml', '[package]'));
    expect(error.code).toBe('CR_ERR_INPUT_FILE_TYPE');
    expect(error.message).toBe(
      'Cannot read "Cargo.toml": unsupported file type (expected environment.yml/.yaml, a *.txt spec list, an @EXPLICIT file, pixi.lock, conda-lock.yml, pixi.toml or pyproject.toml with [tool.pixi])',
    );
  });
});

describe('@EXPLICIT files', () => {
  const text = [
    '# This file may be used to create an environment using:',
    '# $ conda create --name <env> --file <this file>',
    '# platform: linux-64',
    '# created-by: conda 26.7.1',
    '@EXPLICIT',
    'https://conda.anaconda.org/conda-forge/linux-64/bzip2-1.0.8-hda65f42_9.conda',
    'https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2026.4.22-hbd8a1cb_0.conda#e18ad67cf881dcadee8b8d9e2f8e5f73',
    '',
  ].join('\n');

  it('turns each URL into an exact spec on its channel and subdir, and reads the platform', () => {
    const parsed = parseInputFile('explicit.txt', text);
    expect(parsed.kind).toBe('explicit');
    expect(parsed.platforms).toEqual(['linux-64']);
    expect(parsed.channels).toEqual(['https://conda.anaconda.org/conda-forge']);
    expect(parsed.specs.map((s) => s.spec)).toEqual([
      'https://conda.anaconda.org/conda-forge/linux-64::bzip2==1.0.8=hda65f42_9',
      'https://conda.anaconda.org/conda-forge/noarch::ca-certificates==2026.4.22=hbd8a1cb_0[md5=e18ad67cf881dcadee8b8d9e2f8e5f73]',
    ]);
  });

  it('is recognised by content whatever the file is called', () => {
    expect(parseInputFile('locked', text).kind).toBe('explicit');
  });

  it('names the line that is not a package URL', () => {
    const error = failure(() => parseInputFile('explicit.txt', '@EXPLICIT\nhttps://example.com/not-a-package\n'));
    expect(error.message).toBe(
      'Cannot read explicit file "explicit.txt": line 2 is not a package URL (expected https://.../<subdir>/<name>-<version>-<build>.conda or .tar.bz2)',
    );
  });

  it('splits names that contain dashes correctly', () => {
    expect(parseExplicitUrl('https://repo.anaconda.com/pkgs/main/noarch/typing-extensions-4.1.1-hd3eb1b0_0.tar.bz2')).toEqual({
      channelUrl: 'https://repo.anaconda.com/pkgs/main',
      subdir: 'noarch',
      name: 'typing-extensions',
      version: '4.1.1',
      build: 'hd3eb1b0_0',
    });
  });
});
