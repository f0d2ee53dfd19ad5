import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidMatchSpecError, matchSpecFromFields, parseMatchSpec, tryParseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { versionSpecString, versionString } from './arbitraries.js';
import { loadChannelRecords, record } from './helpers.js';

const str = (spec: string) => String(parseMatchSpec(spec));

function specError(input: string): InvalidMatchSpecError {
  try {
    parseMatchSpec(input);
  } catch (e) {
    if (e instanceof InvalidMatchSpecError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('MatchSpec canonical strings (conda test_canonical_string_forms)', () => {
  it.each([
    ['numpy', 'numpy'],
    ['numpy=1.7', 'numpy=1.7'],
    ['numpy 1.7*', 'numpy=1.7'],
    ['numpy 1.7.*', 'numpy=1.7'],
    ["numpy[version='1.7*']", 'numpy=1.7'],
    ["numpy[version='1.7.*']", 'numpy=1.7'],
    ['numpy[version=1.7.*]', 'numpy=1.7'],
    ['numpy==1.7', 'numpy==1.7'],
    ["numpy[version='1.7']", 'numpy==1.7'],
    ['numpy[version=1.7]', 'numpy==1.7'],
    ['numpy 1.7', 'numpy==1.7'],
    ["numpy[version='1.7|1.8']", "numpy[version='1.7|1.8']"],
    ['numpy[version="1.7,1.8"]', "numpy[version='1.7,1.8']"],
    ['numpy >1.7', "numpy[version='>1.7']"],
    ['numpy>=1.7', "numpy[version='>=1.7']"],
    ['numpy=1.7=py3*_2', 'numpy==1.7[build=py3*_2]'],
    ['numpy=1.7.*=py3*_2', 'numpy=1.7[build=py3*_2]'],
    ['defaults::numpy', 'defaults::numpy'],
    ['numpy[channel=defaults]', 'defaults::numpy'],
    ['conda-forge::numpy', 'conda-forge::numpy'],
    ['numpy[channel=conda-forge]', 'conda-forge::numpy'],
    ['numpy[channel=defaults,subdir=osx-64]', 'defaults/osx-64::numpy'],
    ['defaults/win-32::numpy', 'defaults/win-32::numpy'],
    ['conda-forge/linux-64::numpy', 'conda-forge/linux-64::numpy'],
    ['numpy[channel=conda-forge,subdir=noarch]', 'conda-forge/noarch::numpy'],
    ['numpy[subdir=win-32]', 'numpy[subdir=win-32]'],
    ['*/win-32::numpy', 'numpy[subdir=win-32]'],
    ['*/win-32::numpy[subdir="osx-64"]', 'numpy[subdir=osx-64]'],
    ['numpy=1.10=py38_0', 'numpy==1.10=py38_0'],
    ['numpy==1.10=py38_0', 'numpy==1.10=py38_0'],
    ['numpy[version=1.10 build=py38_0]', 'numpy==1.10=py38_0'],
    ['numpy!=1.10', 'numpy!=1.10'],
    ['numpy !=1.10', 'numpy!=1.10'],
    ['numpy!=1.10 py38_0', "numpy[version='!=1.10',build=py38_0]"],
    ['numpy !=1.10 py38_0', "numpy[version='!=1.10',build=py38_0]"],
    ['numpy!=1.10=py38_0', "numpy[version='!=1.10',build=py38_0]"],
    ['numpy !=1.10=py38_0', "numpy[version='!=1.10',build=py38_0]"],
    ['numpy >1.7,!=1.10 py38_0', "numpy[version='>1.7,!=1.10',build=py38_0]"],
    ['numpy!=1.10.*', 'numpy!=1.10.*'],
    ['numpy!=1.10,!=1.11', "numpy[version='!=1.10,!=1.11']"],
    ['numpy=1.10.*,!=1.10.2', "numpy[version='=1.10.*,!=1.10.2']"],
    ['numpy ~=1.10.1', 'numpy~=1.10.1'],
    ['numpy~=1.10.1', 'numpy~=1.10.1'],
    ['numpy ~=1.10.1 py38_0', "numpy[version='~=1.10.1',build=py38_0]"],
    ['openssl=1.1.1_', 'openssl=1.1.1_'],
    ['openssl>=1.1.1_,!=1.1.1c', "openssl[version='>=1.1.1_,!=1.1.1c']"],
    ['mkl@', '*[track_features=mkl]'],
    ['defaults::*', 'defaults::*'],
    // conda's docstring examples
    ['foo 1.0 py27_0', 'foo==1.0=py27_0'],
    ['foo=1.0=py27_0', 'foo==1.0=py27_0'],
    ['conda-forge::foo[version=1.0.*]', 'conda-forge::foo=1.0'],
    ['conda-forge/linux-64::foo>=1.0', "conda-forge/linux-64::foo[version='>=1.0']"],
    ['*/linux-64::foo>=1.0', "foo[subdir=linux-64,version='>=1.0']"],
    // the brief's grammar
    ['name=1.2=*_0', 'name==1.2[build=*_0]'],
    ['name>=1.2,<2|==3', "name[version='>=1.2,<2|==3']"],
    ["conda-forge::numpy[version='>=1.26',build=*_0]", "conda-forge::numpy[version='>=1.26',build=*_0]"],
    ['pytorch 2.* cuda*', 'pytorch=2[build=cuda*]'],
    ['python_abi 3.9.* *_cp39', 'python_abi=3.9[build=*_cp39]'],
    ['python >=3.9,<3.10.0a0', "python[version='>=3.9,<3.10.0a0']"],
    ['__glibc >=2.17,<3.0.a0', "__glibc[version='>=2.17,<3.0.a0']"],
    ['libgcc-ng >=12', "libgcc-ng[version='>=12']"],
    ["python[build_number='>=3']", "python[build_number='>=3']"],
    ['python[build_number=3]', 'python[build_number=3]'],
    ["numpy[build='^py.*$']", "numpy[build='^py.*$']"],
    ['numpy[build=^py.*]', "numpy[build='^py.*']"],
    ["numpy[version='(=1.2)']", 'numpy=1.2'],
    ["numpy[version='==1.2,<2']", "numpy[version='1.2,<2']"],
    ["numpy[version='(==1.2),<2']", "numpy[version='1.2,<2']"],
    ["numpy[version='(==1.2.*,<2)']", "numpy[version='(==1.2.*,<2)']"],
    ['NumPy 1.7', 'numpy==1.7'],
    ['numpy # a comment', 'numpy'],
    ['numpy >=1.0 , < 2.0 py34_0', "numpy[version='>=1.0,<2.0',build=py34_0]"],
    ["foo[license='GPL v3']", "foo[license='gpl v3']"],
    ['foo[track_features="b a"]', "foo[track_features='a b']"],
    ['foo[md5=0123456789ABCDEF0123456789ABCDEF]', 'foo[md5=0123456789abcdef0123456789abcdef]'],
    ['conda-forge::foo[build=3](target=blarg,optional)', 'conda-forge::foo[build=3]'],
    // A `*` version matches everything and is left out.
    ['numpy *', 'numpy'],
    ['numpy * py_0', 'numpy[build=py_0]'],
    ['* 2.7.4', '*==2.7.4'],
    ['* >=1.3 2', "*[version='>=1.3',build=2]"],
    ['numpy=', 'numpy'],
  ])('%s -> %s', (input, expected) => {
    expect(str(input)).toBe(expected);
    // The canonical string is stable.
    expect(str(expected)).toBe(expected);
  });

  it('names URL channels by their URL, where conda prints the path', () => {
    expect(str('https://repo.anaconda.com/pkgs/free::numpy')).toBe('https://repo.anaconda.com/pkgs/free::numpy');
    expect(str('numpy[channel=https://repo.anaconda.com/pkgs/free]')).toBe('https://repo.anaconda.com/pkgs/free::numpy');
    expect(str('numpy[channel=https://repo.anaconda.com/pkgs/free/osx-64, subdir=linux-64]')).toBe(
      'https://repo.anaconda.com/pkgs/free/linux-64::numpy',
    );
    expect(str('https://repo.anaconda.com/pkgs/free/win-32::numpy')).toBe('https://repo.anaconda.com/pkgs/free/win-32::numpy');
    expect(str('https://conda.anaconda.org/conda-forge::numpy')).toBe('conda-forge::numpy');
    expect(str('https://conda.anaconda.org/conda-forge/label/dev::numpy')).toBe('conda-forge/label/dev::numpy');
    expect(str('pkgs/main::*')).toBe('https://repo.anaconda.com/pkgs/main::*');
  });

  it('parses package URLs into channel, subdir, name, version and build (test_tarball_match_specs)', () => {
    const url = 'https://conda.anaconda.org/conda-canary/linux-64/conda-4.3.21.post699+1dab973-py36h4a561cd_0.tar.bz2';
    const ms = parseMatchSpec(url);
    expect(String(ms)).toBe('conda-canary/linux-64::conda==4.3.21.post699+1dab973=py36h4a561cd_0');
    expect(ms).toMatchObject({
      channel: 'conda-canary',
      subdir: 'linux-64',
      name: 'conda',
      build: 'py36h4a561cd_0',
      fn: 'conda-4.3.21.post699+1dab973-py36h4a561cd_0.tar.bz2',
      url,
    });
    expect(ms.version?.source).toBe('4.3.21.post699+1dab973');

    const notChannel = 'https://conda.anaconda.org/conda-canary/conda-4.3.21.post699+1dab973-py36h4a561cd_0.tar.bz2';
    expect(str(notChannel)).toBe(`*[url=${notChannel}]`);
    expect(str('/some/file/on/disk/package-1.2.3-2.tar.bz2')).toBe('*[url=file:///some/file/on/disk/package-1.2.3-2.tar.bz2]');
    expect(str('https://conda.anaconda.org/conda-forge/noarch/tzdata-2024a-h0c530f3_0.conda')).toBe(
      'conda-forge/noarch::tzdata==2024a=h0c530f3_0',
    );
  });

  it('drops credentials from package URLs', () => {
    const ms = parseMatchSpec('https://u:secret@conda.anaconda.org/t/tk-123/private/linux-64/foo-1.0-0.conda');
    expect(ms.url).toBe('https://conda.anaconda.org/private/linux-64/foo-1.0-0.conda');
    expect(String(ms)).not.toContain('secret');
    expect(String(ms)).not.toContain('tk-123');
  });

  it('gives conda env form: no channel, first == as = (conda_env_form)', () => {
    expect(parseMatchSpec('numpy==1.21.0=py39h1234567_0').condaEnvForm()).toBe('numpy=1.21.0=py39h1234567_0');
    expect(parseMatchSpec('numpy=1.21.0').condaEnvForm()).toBe('numpy=1.21.0');
    expect(parseMatchSpec('conda-forge::numpy==1.21.0=py39h1234567_0').condaEnvForm()).toBe('numpy=1.21.0=py39h1234567_0');
  });
});

describe('MatchSpec fields (conda _parse_spec_str tables)', () => {
  const fields = (spec: string) => {
    const ms = parseMatchSpec(spec);
    return { name: ms.name, channel: ms.channel, subdir: ms.subdir, version: ms.version?.source ?? null, build: ms.build };
  };
  it.each([
    ['numpy', { name: 'numpy', channel: null, version: null, build: null }],
    ['defaults::numpy', { name: 'numpy', channel: 'defaults' }],
    ['defaults::numpy=1.8', { name: 'numpy', channel: 'defaults', version: '1.8*' }],
    ['defaults::numpy =1.8', { name: 'numpy', channel: 'defaults', version: '1.8*' }],
    ['defaults::numpy=1.8=py27_0', { name: 'numpy', channel: 'defaults', version: '1.8', build: 'py27_0' }],
    ['defaults::numpy 1.8 py27_0', { name: 'numpy', channel: 'defaults', version: '1.8', build: 'py27_0' }],
    ['defaults::numpy[channel=anaconda]', { name: 'numpy', channel: 'anaconda' }],
    ['defaults::numpy 1.8 py27_0[channel=anaconda]', { channel: 'anaconda', version: '1.8', build: 'py27_0' }],
    ['defaults::numpy=1.8=py27_0 [channel=anaconda,version=1.9, build=3]', { channel: 'anaconda', version: '1.9', build: '3' }],
    [
      "defaults::numpy=1.8=py27_0 [channel='anaconda',version=\">=1.8,<2|1.9\", build='3']",
      { channel: 'anaconda', version: '>=1.8,<2|1.9', build: '3' },
    ],
    ['* 2.7.4', { name: '*', version: '2.7.4', build: null }],
    ['* >=1.3 2', { name: '*', version: '>=1.3', build: '2' }],
    ['numpy==1.7', { name: 'numpy', version: '1.7' }],
    ['numpy ==1.7', { name: 'numpy', version: '1.7' }],
    ['numpy=1.7', { name: 'numpy', version: '1.7*' }],
    ['numpy =1.7', { name: 'numpy', version: '1.7*' }],
    ['numpy !=1.7', { name: 'numpy', version: '!=1.7' }],
    ['numpy~=1.7.1', { version: '~=1.7.1' }],
    ['numpy>1.8,<2|==1.7', { version: '>1.8,<2|==1.7' }],
    ['numpy >1.8,<2|==1.7,!=1.9,~=1.7.1 py34_0', { version: '>1.8,<2|==1.7,!=1.9,~=1.7.1', build: 'py34_0' }],
    ['*>1.8,<2|==1.7', { name: '*', version: '>1.8,<2|==1.7' }],
    ['* >1.8,<2|==1.7', { name: '*', version: '>1.8,<2|==1.7' }],
    ['* 1 *', { name: '*', version: '1', build: '*' }],
    ['* * openblas_0', { name: '*', version: '*', build: 'openblas_0' }],
    ['* * *', { name: '*', version: '*', build: '*' }],
    ['* *', { name: '*', version: '*', build: null }],
    ['conda-forge::foo>=1.0', { channel: 'conda-forge', name: 'foo', version: '>=1.0' }],
    ['conda-forge/linux-32::foo>=1.0', { channel: 'conda-forge', subdir: 'linux-32', version: '>=1.0' }],
    ['*/linux-32::foo>=1.0', { channel: '*', subdir: 'linux-32', version: '>=1.0' }],
    ['conda-forge::foo[build=3](target=blarg,optional)', { channel: 'conda-forge', name: 'foo', build: '3' }],
    ['python >=3.9,<3.10.0a0', { name: 'python', version: '>=3.9,<3.10.0a0', build: null }],
    ['pip', { name: 'pip', version: null }],
  ])('%s', (spec, expected) => {
    expect(fields(spec)).toMatchObject(expected);
  });

  it('reads build_number brackets (test_parse_build_number_brackets)', () => {
    for (const v of ['3', '>3', '>=3', '<3', '<=3']) expect(parseMatchSpec(`python[build_number='${v}']`).buildNumber?.text).toBe(v);
  });
});

describe('MatchSpec.matches', () => {
  const numpy = record('numpy-1.7.1-py27_0');

  it.each([
    ['numpy 1.7*', true],
    ['numpy 1.7.1', true],
    ['numpy 1.7', false],
    ['numpy 1.5*', false],
    ['numpy >=1.5', true],
    ['numpy >=1.5,<2', true],
    ['numpy >=1.8,<1.9', false],
    ['numpy >1.5,<2,!=1.7.1', false],
    ['numpy >1.8,<2|==1.7', false],
    ['numpy >1.8,<2|>=1.7.1', true],
    ['numpy >=1.8|1.7*', true],
    ['numpy ==1.7', false],
    ['numpy >=1.5,>1.6', true],
    ['numpy ==1.7.1', true],
    ['numpy ==1.7.1.0', true],
    ['numpy==1.7.1.0.0', true],
    ['numpy >=1,*.7.*', true],
    ['numpy *.7.*,>=1', true],
    ['numpy >=1,*.8.*', false],
    ['numpy >=2,*.7.*', false],
    ['numpy 1.6*|1.7*', true],
    ['numpy 1.6*|1.8*', false],
    ['numpy 1.6.2|1.7*', true],
    ['numpy 1.6.2|1.7.1', true],
    ['numpy 1.6.2|1.7.0', false],
    ['numpy 1.7.1 py27_0', true],
    ['numpy 1.7.1 py26_0', false],
    ['numpy >1.7.1a', true],
    ['python', false],
    ['numpy=1.7', true],
    ['numpy=1.7.1=py27_0', true],
    // With a build, `=1.7` means exactly 1.7 (conda's _sanitize_version_str).
    ['numpy=1.7=py2*', false],
    ['numpy=1.7.1=py2*', true],
    ['numpy=1.7=py3*', false],
    ['numpy * *_0', true],
    ["numpy[build='^py\\d+_0$']", true],
    // A leading "^" makes a regex even without "$" (conda would read a literal "^" that never matches).
    ['numpy[build=^py.*]', true],
    ['numpy[build=^py3.*]', false],
    ['num*', true],
    ['*', true],
    ['^num.*$', true],
    ['numpy[build_number=0]', true],
    ["numpy[build_number='>=1']", false],
    ["numpy[build_number='<1']", true],
    ['numpy[subdir=linux-64]', true],
    ['numpy[subdir=osx-64]', false],
    ['numpy[md5=0123456789ABCDEF0123456789ABCDEF]', true],
    ['numpy[md5=ffffffffffffffffffffffffffffffff]', false],
    ['numpy[fn=numpy-1.7.1-py27_0.tar.bz2]', true],
    ['numpy[fn=numpy-1.7.1-py27_0.conda]', false],
    ['numpy[url=https://conda.anaconda.org/conda-forge/linux-64/numpy-1.7.1-py27_0.tar.bz2]', true],
    ['https://conda.anaconda.org/conda-forge/linux-64/numpy-1.7.1-py27_0.tar.bz2', true],
    ['https://conda.anaconda.org/conda-forge/linux-64/numpy-1.7.1-py27_0.conda', false],
  ])('%s -> %s', (spec, expected) => {
    expect(parseMatchSpec(spec).matches(numpy)).toBe(expected);
  });

  it('handles PEP 440-ish and openssl versions as conda does', () => {
    expect(parseMatchSpec('numpy >=1.0.1').matches(record('numpy-1.0.1a-0'))).toBe(false);
    expect(parseMatchSpec('numpy >=1.0.1.vc11').matches(record('numpy-1.0.1a.vc11-0'))).toBe(false);
    expect(parseMatchSpec('numpy >=1.0.1*.vc11').matches(record('numpy-1.0.1a.vc11-0'))).toBe(true);
    expect(parseMatchSpec('numpy <1.0.1').matches(record('numpy-1.0.1.vc11-0'))).toBe(true);
    expect(parseMatchSpec('numpy <1.0.1').matches(record('numpy-1.0.1a.vc11-0'))).toBe(true);
    expect(parseMatchSpec('numpy >=1.0.1.vc11').matches(record('numpy-1.0.1a-0'))).toBe(false);
    expect(parseMatchSpec('numpy >=1.0.1a').matches(record('numpy-1.0.1z-0'))).toBe(true);
    expect(parseMatchSpec('numpy >=1.0.1a py27*').matches(record('numpy-1.0.1z-py27_1'))).toBe(true);
    expect(parseMatchSpec('blas * openblas_0').matches(record('blas-1.0-openblas_0'))).toBe(true);
    expect(parseMatchSpec('openssl>=1.0.1_').matches(record('openssl-1.0.1_-4'))).toBe(true);
    expect(parseMatchSpec('openssl>=1.0.1').matches(record('openssl-1.0.1_-4'))).toBe(false);
    expect(parseMatchSpec('openssl >=1.1.1l').matches(record('openssl-1.1.1w-h0'))).toBe(true);
  });

  it('matches bracket versions and build numbers (test_bracket_matches)', () => {
    const r = record('numpy-1.11.0-py34_7');
    expect(parseMatchSpec('numpy<2').matches(r)).toBe(true);
    expect(parseMatchSpec('numpy>2').matches(r)).toBe(false);
    expect(parseMatchSpec("numpy[version='>2']").matches(r)).toBe(false);
    expect(parseMatchSpec("numpy[build_number='7']").matches(r)).toBe(true);
    expect(parseMatchSpec("numpy[build_number='<8']").matches(r)).toBe(true);
    expect(parseMatchSpec("numpy[build_number='>7']").matches(r)).toBe(false);
    expect(parseMatchSpec("numpy[build_number='>=7']").matches(r)).toBe(true);
    expect(parseMatchSpec("numpy[build_number='!=7']").matches(r)).toBe(false);
    expect(parseMatchSpec('numpy ~=1.10').matches(r)).toBe(true);
    expect(parseMatchSpec('numpy~=1.10').matches(r)).toBe(true);
  });

  it('matches licenses case-insensitively with globs (test_license_match)', () => {
    const r = record('numpy-1.11.0-py34_7', { license: 'LGPLv3+', license_family: 'LGPL' });
    for (const spec of [
      "*[license_family='LGPL']",
      "*[license_family='lgpl']",
      "*[license_family='*GP*']",
      "*[license_family='*gpl*']",
      "*[license_family='*GPL*']",
      "*[license='*gpl*']",
      "*[license='*v3+']",
    ]) {
      expect(parseMatchSpec(spec).matches(r), spec).toBe(true);
    }
    expect(parseMatchSpec("*[license='MIT']").matches(r)).toBe(false);
    expect(parseMatchSpec("*[license='MIT']").matches(record('x-1-0'))).toBe(false);
  });

  it('matches track_features and features as exact sets (test_track_features_match)', () => {
    const foo = (track: string[]) => record('foo-1.2.3-4', { track_features: track });
    const a = parseMatchSpec('*[track_features=test]');
    expect(a.matches(foo(['test']))).toBe(true);
    expect(a.matches(foo(['test2']))).toBe(false);
    expect(a.matches(foo(['test', 'me']))).toBe(false);
    expect(a.matches(foo([]))).toBe(false);
    const b = parseMatchSpec("*[track_features='mkl debug']");
    expect(b.matches(foo(['debug', 'mkl']))).toBe(true);
    expect(b.matches(foo(['mkl']))).toBe(false);
    expect(parseMatchSpec('mkl@').matches(foo(['mkl']))).toBe(true);
    expect(parseMatchSpec('*[features=test]').matches(record('foo-1-0', { features: 'test' }))).toBe(true);
    expect(parseMatchSpec('*[features=test]').matches(record('foo-1-0'))).toBe(false);
  });

  it('compares channels canonically (test_channel_matching)', () => {
    const from = (channel: string) => record('numpy-1.0-0', { channel });
    const cf = parseMatchSpec('conda-forge::numpy');
    expect(cf.matches(from('conda-forge'))).toBe(true);
    expect(cf.matches(from('https://conda.anaconda.org/conda-forge'))).toBe(true);
    expect(cf.matches(from('https://conda.anaconda.org/conda-forge/'))).toBe(true);
    expect(cf.matches(from('https://conda.anaconda.org/conda-forge/linux-64'))).toBe(true);
    expect(cf.matches(from('bioconda'))).toBe(false);
    expect(cf.matches(from('https://mirror.example.com/conda-forge'))).toBe(false);
    expect(cf.matches(from('@'))).toBe(false);
    expect(parseMatchSpec('https://conda.anaconda.org/conda-forge::numpy').matches(from('conda-forge'))).toBe(true);
    expect(parseMatchSpec('https://conda.anaconda.org/conda-forge/::numpy').matches(from('conda-forge'))).toBe(true);
    expect(parseMatchSpec('https://repo.anaconda.com/pkgs/main::numpy').matches(from('conda-forge'))).toBe(false);
    expect(parseMatchSpec('https://mirror.example.com/conda-forge::numpy').matches(from('https://mirror.example.com/conda-forge'))).toBe(
      true,
    );
    expect(parseMatchSpec('conda-forge/label/dev::numpy').matches(from('conda-forge/label/dev'))).toBe(true);
    expect(parseMatchSpec('conda-forge/label/dev::numpy').matches(from('conda-forge'))).toBe(false);
    // `defaults` stands for Anaconda's main channels; a single one of them does not stand for defaults.
    expect(parseMatchSpec('defaults::numpy').matches(from('https://repo.anaconda.com/pkgs/main'))).toBe(true);
    expect(parseMatchSpec('defaults::numpy').matches(from('https://repo.anaconda.com/pkgs/r/linux-64'))).toBe(true);
    expect(parseMatchSpec('defaults::numpy').matches(from('conda-forge'))).toBe(false);
    expect(parseMatchSpec('pkgs/main::numpy').matches(from('https://repo.anaconda.com/pkgs/main'))).toBe(true);
    // Globs match display names.
    expect(parseMatchSpec('numpy[channel=conda-*]').matches(from('https://conda.anaconda.org/conda-forge'))).toBe(true);
    expect(parseMatchSpec('numpy[channel=conda-*]').matches(from('bioconda'))).toBe(false);
    expect(parseMatchSpec('*::numpy').matches(from('anything'))).toBe(true);
    // A channel/subdir spec also constrains the subdir.
    expect(parseMatchSpec('conda-forge/linux-64::numpy').matches(from('conda-forge'))).toBe(true);
    expect(parseMatchSpec('conda-forge/osx-64::numpy').matches(from('conda-forge'))).toBe(false);
  });

  it('matches file channels by URL', () => {
    const ms = parseMatchSpec('file:///srv/channel::numpy');
    expect(ms.matches(record('numpy-1.0-0', { channel: 'file:///srv/channel' }))).toBe(true);
    expect(ms.matches(record('numpy-1.0-0', { channel: 'file:///srv/other' }))).toBe(false);
  });

  it('does not match records whose version string is not a conda version', () => {
    expect(parseMatchSpec('numpy >=1').matches(record('numpy-1.0-0', { version: '1.0 beta' }))).toBe(false);
  });
});

describe('MatchSpec errors', () => {
  it.each([
    ['', 'empty match spec', 0],
    ['   ', 'empty match spec', 0],
    ['blas [optional', 'unclosed "[" (bracket attributes end with "]")', 5],
    ['blas ]x[', 'unexpected "]"', 5],
    ['blas [test=]', 'empty value for "test"', 11],
    [
      'blas[invalid="1"]',
      'unknown key "invalid" (valid keys: channel, subdir, name, version, build, build_number, track_features, features, url, md5, sha256, license, license_family, fn)',
      5,
    ],
    ['!xyz 1.3', 'no package name found before "!"', 0],
    ['>=1.2', 'no package name found before ">"', 0],
    ['conda-forge::', 'no package name found', 13],
    ['numpy[version<2]', 'expected "=" after "version" in brackets', 13],
    ['numpy[version=>=1.0,<2]', 'expected key=value in brackets, found "<"', 20],
    ["numpy[version='>=1.0]", "unterminated ' quote", 14],
    ['numpy]', 'unexpected "]"', 5],
    ['numpy:1.2', 'unexpected ":" (a channel is separated from the name by "::")', 5],
    ['numpy>', 'expected a version after ">"', 5],
    ['numpy ==', 'invalid version "==": expected a version after "=="', 6],
    ['numpy >=1..2', 'invalid version ">=1..2": invalid version "1..2": empty version component', 10],
    ['numpy 1.2 py 0', 'unexpected " " in build string', 12],
    ['foo[md5=xyz]', 'md5 must be 32 hexadecimal digits', 8],
    ['numpy[build_number=abc]', 'invalid build number "abc"', 19],
    ['*[name=foo]', 'the name in brackets ("foo") differs from the package name ("*")', 7],
    ['num/py', 'unexpected "/" in package name', 3],
    ['numpy\n>=1', 'control characters are not allowed', 5],
    ['numpy[version=1][build=2]', 'unexpected "]"', 15],
    ['relative/pkg-1.0-0.conda', 'a package file must be given as a URL or an absolute path', 0],
    ['ftp://host/chan::numpy', 'invalid channel "ftp://host/chan": unsupported URL scheme "ftp" (use https, http or file)', 0],
    ["numpy[build='^py[$']", 'invalid regular expression "^py[$"', 13],
  ])('rejects %j: %s at position %i', (input, reason, position) => {
    const e = specError(input);
    expect(e.code).toBe('CR_ERR_MATCH_SPEC_INVALID');
    expect(e.reason).toBe(reason);
    expect(e.position).toBe(position);
    expect(e.message).toBe(`Cannot parse match spec ${JSON.stringify(input)}: ${reason} at position ${position}`);
  });

  it('never carries channel credentials in its message', () => {
    const e = specError('https://u:hunter2@conda.anaconda.org/t/tok-secret/chan::numpy>');
    expect(e.message).toContain('/t/<TOKEN>/');
    expect(e.message).not.toContain('hunter2');
    expect(e.message).not.toContain('tok-secret');
  });

  it('tryParseMatchSpec returns null instead of throwing', () => {
    expect(tryParseMatchSpec('numpy>')).toBeNull();
    expect(tryParseMatchSpec('numpy')?.name).toBe('numpy');
  });
});

describe('MatchSpec from fields', () => {
  it('builds specs from bracket values', () => {
    expect(String(matchSpecFromFields({ name: 'numpy', version: '>=1.26', build: 'py*' }))).toBe("numpy[version='>=1.26',build=py*]");
    expect(
      String(matchSpecFromFields({ name: 'numpy', version: '1.26.4', build: 'py39_0', channel: 'conda-forge', subdir: 'linux-64' })),
    ).toBe('conda-forge/linux-64::numpy==1.26.4=py39_0');
  });
});

describe('MatchSpec properties', () => {
  const names = fc.constantFrom('numpy', 'python', 'libgcc-ng', '_openmp_mutex', '*', 'py*', 'zope.interface');
  const builds = fc.constantFrom('py39_0', 'py*', '*_0', 'h1234_1', '*', 'cuda*');
  const channels = fc.constantFrom('conda-forge', 'bioconda', 'conda-forge/label/dev', 'https://example.com/ch', 'defaults', 'conda-*');
  const subdirs = fc.constantFrom('linux-64', 'osx-arm64', 'noarch');
  const specText = fc
    .record(
      {
        channel: channels,
        subdir: subdirs,
        name: names,
        version: versionSpecString,
        build: builds,
        buildNumber: fc.constantFrom('0', '>=2', '<3', '!=1'),
        md5: fc.constant('0123456789abcdef0123456789abcdef'),
        license: fc.constantFrom('MIT', 'BSD*'),
      },
      { requiredKeys: ['name'] },
    )
    .map((f) => {
      const brackets: string[] = [];
      if (f.version !== undefined) brackets.push(`version="${f.version}"`);
      if (f.build !== undefined) brackets.push(`build="${f.build}"`);
      if (f.buildNumber !== undefined) brackets.push(`build_number="${f.buildNumber}"`);
      if (f.subdir !== undefined) brackets.push(`subdir=${f.subdir}`);
      if (f.md5 !== undefined) brackets.push(`md5=${f.md5}`);
      if (f.license !== undefined) brackets.push(`license="${f.license}"`);
      const prefix = f.channel === undefined ? '' : `${f.channel}::`;
      return `${prefix}${f.name}${brackets.length ? `[${brackets.join(', ')}]` : ''}`;
    });
  const records = fc.record({
    name: fc.constantFrom('numpy', 'python', 'libgcc-ng', 'pytest'),
    version: versionString,
    build: fc.constantFrom('py39_0', 'py310_1', 'h1234_1', 'cuda112_0', '0'),
    build_number: fc.integer({ min: 0, max: 4 }),
    channel: fc.constantFrom(
      'conda-forge',
      'https://conda.anaconda.org/bioconda',
      'https://example.com/ch',
      'https://repo.anaconda.com/pkgs/main',
    ),
    subdir: fc.constantFrom('linux-64', 'osx-arm64', 'noarch'),
    license: fc.constantFrom('MIT', 'BSD-3-Clause', null),
  });

  it('parses its canonical string to an equivalent spec', () => {
    fc.assert(
      fc.property(specText, fc.array(records, { minLength: 1, maxLength: 6 }), (text, recs) => {
        const ms = parseMatchSpec(text);
        const again = parseMatchSpec(String(ms));
        expect(String(again)).toBe(String(ms));
        for (const r of recs) {
          const full: PackageRecord = record(`${r.name}-${r.version}-${r.build}`, r);
          expect(again.matches(full), `${String(ms)} on ${JSON.stringify(r)}`).toBe(ms.matches(full));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('matches a record with the exact spec built from it', () => {
    fc.assert(
      fc.property(records, (r) => {
        const full = record(`${r.name}-${r.version}-${r.build}`, r);
        expect(parseMatchSpec(`${r.name}==${r.version}=${r.build}`).matches(full)).toBe(true);
        expect(parseMatchSpec(`${r.name} ${r.version} ${r.build}`).matches(full)).toBe(true);
        expect(parseMatchSpec(`${r.name}[version='${r.version}', build_number=${r.build_number}]`).matches(full)).toBe(true);
        expect(parseMatchSpec(`${r.name}==${r.version}=${r.build}_x`).matches(full)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws anything but InvalidMatchSpecError on arbitrary strings', () => {
    const specish = fc.stringMatching(/^[a-z0-9_.*:=<>!~,| [\]()'"/@#^$+-]{0,24}$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), specish), (s) => {
        try {
          const ms = parseMatchSpec(s);
          ms.matches(record('numpy-1.7.1-py27_0'));
          String(ms);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidMatchSpecError);
          const { position } = e as InvalidMatchSpecError;
          expect(position).toBeGreaterThanOrEqual(0);
          expect(position).toBeLessThanOrEqual(s.length);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describeShared('MatchSpec on real repodata (../shared/channels)', () => {
  // Loaded on first use: a skipped describe still runs its body to collect the tests.
  let loaded: PackageRecord[] | undefined;
  const allRecords = () =>
    (loaded ??= [
      ...loadChannelRecords(join(CHANNELS_DIR, 'conda-forge-py39'), 'conda-forge'),
      ...loadChannelRecords(join(CHANNELS_DIR, 'defaults-main-2022'), 'https://repo.anaconda.com/pkgs/main'),
    ]);

  it('parses every depends and constrains string, and prints each canonically', () => {
    const specs = new Set(allRecords().flatMap((r) => [...r.depends, ...r.constrains]));
    expect(specs.size).toBeGreaterThan(5000);
    for (const s of specs) {
      const ms = parseMatchSpec(s);
      expect(String(parseMatchSpec(String(ms))), s).toBe(String(ms));
    }
  });

  it('matches every record with its own name==version=build spec and no other build of it', () => {
    const byName = new Map<string, PackageRecord[]>();
    for (const r of allRecords()) {
      const group = byName.get(r.name);
      if (group === undefined) byName.set(r.name, [r]);
      else group.push(r);
    }
    const failures: string[] = [];
    for (const group of byName.values()) {
      for (const r of group) {
        const ms = parseMatchSpec(`${r.name}==${r.version}=${r.build}`);
        if (!ms.matches(r)) failures.push(`${String(ms)} does not match its own record`);
        for (const o of group) {
          if (o.build !== r.build && ms.matches(o)) failures.push(`${String(ms)} matches ${o.fn}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('selects python 3.9 records with python_abi 3.9.* *_cp39 and python >=3.9,<3.10.0a0', () => {
    const abi = parseMatchSpec('python_abi 3.9.* *_cp39');
    const hits = allRecords().filter((r) => abi.matches(r));
    expect(hits.length).toBeGreaterThan(0);
    for (const r of hits) expect(r.version.startsWith('3.9') && r.build.endsWith('_cp39')).toBe(true);
    const py = parseMatchSpec('python >=3.9,<3.10.0a0');
    const pythons = allRecords().filter((r) => r.name === 'python');
    expect(pythons.some((r) => py.matches(r))).toBe(true);
    for (const r of pythons) expect(py.matches(r)).toBe(/^3\.9\./.test(r.version));
  });
});
