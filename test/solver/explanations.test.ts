/**
 * The explanation a user sees for unsatisfiable requests, word for word: on the real channel
 * snapshots (skipped without ../shared) and on small hand-written channels.
 */
import { describe, expect, it } from 'vitest';
import { solve, type SolveRequest } from '../../solver/index.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { virtualPackages } from '../../vocabulary/virtual-packages.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { loadChannel, MapSource } from './helpers/load-channel.js';
import { rec, virtual } from './helpers/records.js';

function explain(request: Partial<SolveRequest> & Pick<SolveRequest, 'specs' | 'channels'>): string {
  const outcome = solve({ virtualPackages: [], ...request });
  if (outcome.kind !== 'unsatisfiable') throw new Error(`expected no solution, got ${outcome.records.map((r) => r.fn).join(' ')}`);
  return outcome.message;
}

function channel(name: string, records: PackageRecord[]): SolveRequest['channels'][number] {
  return { name, sources: [new MapSource(records.map((r) => ({ ...r, channel: name })))] };
}

describe('explanations on small channels', () => {
  it('1. a requested package whose every version needs a newer python than the one requested', () => {
    const records = [
      ...['3.9.18', '3.9.19', '3.10.14', '3.11.9', '3.12.3'].map((v) => rec('python', v)),
      ...['2.0.0', '2.0.1', '2.0.2', '2.1.0'].map((v) => rec('numpy', v, { depends: ['python >=3.10'] })),
      rec('numpy', '1.26.4', { depends: ['python >=3.9'] }),
    ];
    expect(explain({ specs: ['python=3.9', 'numpy>=2'], channels: [channel('conda-forge', records)] })).toBe(
      'numpy >=2 cannot be installed because every numpy >=2 (2.0.0 .. 2.1.0) requires python >=3.10, which conflicts with the requested python 3.9.*',
    );
  });

  it('2. a virtual package that is too old', () => {
    const records = [rec('cudatoolkit', '12.4', { depends: ['__cuda >=12'] }), rec('cudatoolkit', '12.1', { depends: ['__cuda >=12'] })];
    expect(explain({ specs: ['cudatoolkit'], channels: [channel('conda-forge', records)], virtualPackages: [virtual('__cuda', '11.8')] })).toBe(
      'cudatoolkit cannot be installed because every cudatoolkit (12.1, 12.4) requires __cuda >=12, but no __cuda matches (available: 11.8) (a virtual package of the target system; CONDA_OVERRIDE_CUDA changes it)',
    );
    expect(explain({ specs: ['cudatoolkit'], channels: [channel('conda-forge', records)] })).toBe(
      'cudatoolkit cannot be installed because every cudatoolkit (12.1, 12.4) requires __cuda >=12, which nothing provides (a virtual package the target system does not have; CONDA_OVERRIDE_CUDA adds it)',
    );
  });

  it('3. a constraint of one requested package against another', () => {
    const records = [
      rec('matplotlib', '3.8.4', { constrains: ['pyqt >=5.15'] }),
      rec('matplotlib', '3.8.3', { constrains: ['pyqt >=5.15'] }),
      rec('pyqt', '5.12.3'),
      rec('pyqt', '5.15.9'),
    ];
    expect(explain({ specs: ['pyqt=5.12', 'matplotlib'], channels: [channel('conda-forge', records)] })).toBe(
      'matplotlib cannot be installed because every matplotlib (3.8.3, 3.8.4) constrains pyqt >=5.15, which conflicts with the requested pyqt 5.12.*',
    );
  });

  it('4. two requested packages that need different versions of a shared dependency', () => {
    const records = [
      rec('tensorflow', '2.15.0', { depends: ['protobuf >=3.20,<4.24'] }),
      rec('grpcio-tools', '1.62.0', { depends: ['protobuf >=4.25'] }),
      rec('grpcio-tools', '1.61.0', { depends: ['protobuf >=4.25'] }),
      rec('protobuf', '3.20.3'),
      rec('protobuf', '4.23.4'),
      rec('protobuf', '4.25.3'),
    ];
    expect(explain({ specs: ['tensorflow', 'grpcio-tools'], channels: [channel('conda-forge', records)] })).toBe(
      [
        'grpcio-tools cannot be installed because every grpcio-tools (1.61.0, 1.62.0) requires protobuf >=4.25, which conflicts with protobuf >=3.20,<4.24 required by tensorflow 2.15.0',
        '└─ tensorflow 2.15.0 is the only candidate for the requested tensorflow',
      ].join('\n'),
    );
  });

  it('5. strict channel priority hides the version that would fit', () => {
    const records = [rec('libarrow', '14.0.2'), rec('pyarrow', '15.0.0', { depends: ['libarrow 15.0.0.*'] })];
    const low = [rec('libarrow', '15.0.0')];
    expect(explain({ specs: ['pyarrow'], channels: [channel('conda-forge', records), channel('defaults', low)] })).toBe(
      'pyarrow cannot be installed because pyarrow 15.0.0 requires libarrow 15.0.0.*, but every match is excluded: libarrow 15.0.0 comes from defaults, but strict channel priority takes libarrow only from conda-forge',
    );
  });

  it('6. a chain of forced choices (the PubGrub article)', () => {
    const records = [
      rec('menu', '1.5.0', { depends: ['dropdown >=2.0.0'] }),
      rec('menu', '1.0.0', { depends: ['dropdown >=1.0.0,<2.0.0'] }),
      rec('dropdown', '2.3.0', { depends: ['icons >=2.0.0'] }),
      rec('dropdown', '1.8.0', { depends: ['intl 3.*'] }),
      rec('dropdown', '1.0.0', { depends: ['icons >=2.0.0'] }),
      rec('icons', '2.0.0'),
      rec('icons', '1.0.0'),
      rec('intl', '5.0.0'),
      rec('intl', '3.0.0'),
    ];
    expect(explain({ specs: ['menu', 'icons=1', 'intl=5'], channels: [channel('conda-forge', records)] })).toBe(
      [
        'intl 5.* cannot be installed because no menu can be installed with it:',
        '├─ menu 1.5.0 requires dropdown >=2.0.0, which requires icons >=2.0.0, which conflicts with the requested icons 1.*',
        '└─ menu 1.0.0 requires dropdown >=1.0.0,<2.0.0, which cannot be installed:',
        '   ├─ dropdown 1.8.0 requires intl 3.*, which conflicts with the requested intl 5.*',
        '   └─ dropdown 1.0.0 requires icons >=2.0.0, which conflicts with the requested icons 1.*',
      ].join('\n'),
    );
  });

  it('7. a package whose metadata cannot be read', () => {
    const records = [rec('broken', '1.0', { depends: ['zlib >=>1'] })];
    expect(explain({ specs: ['broken'], channels: [channel('conda-forge', records)] })).toMatch(
      /^broken cannot be installed because broken 1\.0 cannot be used: its dependency "zlib >=>1" cannot be parsed \(Cannot parse .+\)$/,
    );
  });
});

describeShared('explanations on the real channel snapshots', () => {
  const load = (folder: string, platform: string): SolveRequest['channels'][number] =>
    loadChannel(`${CHANNELS_DIR}/${folder}`, platform, folder === 'conda-forge-py39' ? 'conda-forge' : 'defaults');

  it('8. a python that the channel does not have', () => {
    expect(explain({ specs: ['python=3.9', 'python>=3.10'], channels: [load('conda-forge-py39', 'linux-64')], virtualPackages: virtualPackages('linux-64') })).toBe(
      'python >=3.10 cannot be installed because no python matches (available: 3.9.0 .. 3.9.19)',
    );
  });

  it('9. a package that exists nowhere', () => {
    expect(explain({ specs: ['python=3.9', 'no-such-package'], channels: [load('conda-forge-py39', 'linux-64')] })).toBe(
      'no-such-package cannot be installed because nothing provides no-such-package',
    );
  });

  it('10. pytorch built for older pythons than the one requested', () => {
    const channels = [load('defaults-main-2022', 'linux-aarch64')];
    expect(explain({ specs: ['pytorch', 'python=3.10'], channels, virtualPackages: virtualPackages('linux-aarch64') })).toBe(
      'python 3.10.* cannot be installed because pytorch 1.8.1 requires python 3.7.10 .. 3.9.7, which conflicts with the requested python 3.10.*',
    );
  });

  it('11. an openssl too old for every python 3.9 build', () => {
    const channels = [load('conda-forge-py39', 'linux-64')];
    expect(explain({ specs: ['python=3.9', 'openssl=1.0'], channels, virtualPackages: virtualPackages('linux-64') })).toBe(
      [
        'openssl 1.0.* cannot be installed because no python 3.9.* can be installed with it:',
        '├─ python 3.9.0 .. 3.9.19 requires openssl 1.1.1h .. 3.3.0, which conflicts with the requested openssl 1.0.*',
        '├─ python 3.9.10, 3.9.12, 3.9.16, 3.9.18 requires pypy3.9 7.3.8 .. 7.3.11, 7.3.13, 7.3.15, which requires openssl >=3.2.1,<4.0a0, which conflicts with the requested openssl 1.0.*',
        '└─ python 3.9.17 requires pypy3.9 7.3.12.*, which cannot be installed:',
        '   ├─ pypy3.9 7.3.12 requires openssl >=3.1.2,<4.0a0 or openssl >=3.1.3,<4.0a0, which conflicts with the requested openssl 1.0.*',
        '   └─ pypy3.9 7.3.12 constrains python 3.9.* *_7.3_pypy, which conflicts with the requested python 3.9.*',
      ].join('\n'),
    );
  });

  it('12. a pinned python newer than the exclude-newer date', () => {
    const channels = [load('conda-forge-py39', 'linux-64')];
    expect(explain({ specs: ['python=3.9.19'], channels, excludeNewer: Date.UTC(2023, 0, 1) })).toBe(
      'python 3.9.19.* cannot be installed because every match is excluded: python 3.9.19 was uploaded after 2023-01-01T00:00:00.000Z (exclude-newer)',
    );
  });
});
