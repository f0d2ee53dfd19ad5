/**
 * The explanation a user sees for unsatisfiable requests, word for word (the texts are in
 * `__snapshots__/explanations/`): on the real channel snapshots (skipped without ../shared) and on
 * small hand-written channels.
 */
import { describe, expect, it } from 'vitest';
import { renderExplanation, solve, type SolveRequest } from '../../solver/index.js';
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

/** Compares with `__snapshots__/explanations/<name>.txt`, the text byte for byte. */
async function expectText(text: string, name: string): Promise<void> {
  await expect(text).toMatchFileSnapshot(`./__snapshots__/explanations/${name}.txt`);
}

function channel(name: string, records: PackageRecord[]): SolveRequest['channels'][number] {
  return { name, sources: [new MapSource(records.map((r) => ({ ...r, channel: name })))] };
}

describe('explanations on small channels', () => {
  it('1. a requested package whose every version needs a newer python than the one requested', async () => {
    const records = [
      ...['3.9.18', '3.9.19', '3.10.14', '3.11.9', '3.12.3'].map((v) => rec('python', v)),
      ...['2.0.0', '2.0.1', '2.0.2', '2.1.0'].map((v) => rec('numpy', v, { depends: ['python >=3.10'] })),
      rec('numpy', '1.26.4', { depends: ['python >=3.9'] }),
    ];
    await expectText(
      explain({ specs: ['python=3.9', 'numpy>=2'], channels: [channel('conda-forge', records)] }),
      '01-numpy-needs-newer-python',
    );
  });

  it('2. a virtual package that is too old', async () => {
    const records = [rec('cudatoolkit', '12.4', { depends: ['__cuda >=12'] }), rec('cudatoolkit', '12.1', { depends: ['__cuda >=12'] })];
    await expectText(
      explain({ specs: ['cudatoolkit'], channels: [channel('conda-forge', records)], virtualPackages: [virtual('__cuda', '11.8')] }),
      '02-virtual-package-too-old',
    );
    await expectText(explain({ specs: ['cudatoolkit'], channels: [channel('conda-forge', records)] }), '02-virtual-package-missing');
  });

  it('3. a constraint of one requested package against another', async () => {
    const records = [
      rec('matplotlib', '3.8.4', { constrains: ['pyqt >=5.15'] }),
      rec('matplotlib', '3.8.3', { constrains: ['pyqt >=5.15'] }),
      rec('pyqt', '5.12.3'),
      rec('pyqt', '5.15.9'),
    ];
    await expectText(
      explain({ specs: ['pyqt=5.12', 'matplotlib'], channels: [channel('conda-forge', records)] }),
      '03-constraint-against-requested',
    );
  });

  it('4. two requested packages that need different versions of a shared dependency', async () => {
    const records = [
      rec('tensorflow', '2.15.0', { depends: ['protobuf >=3.20,<4.24'] }),
      rec('grpcio-tools', '1.62.0', { depends: ['protobuf >=4.25'] }),
      rec('grpcio-tools', '1.61.0', { depends: ['protobuf >=4.25'] }),
      rec('protobuf', '3.20.3'),
      rec('protobuf', '4.23.4'),
      rec('protobuf', '4.25.3'),
    ];
    await expectText(
      explain({ specs: ['tensorflow', 'grpcio-tools'], channels: [channel('conda-forge', records)] }),
      '04-shared-dependency',
    );
  });

  it('5. strict channel priority hides the version that would fit', async () => {
    const records = [rec('libarrow', '14.0.2'), rec('pyarrow', '15.0.0', { depends: ['libarrow 15.0.0.*'] })];
    const low = [rec('libarrow', '15.0.0')];
    await expectText(
      explain({ specs: ['pyarrow'], channels: [channel('conda-forge', records), channel('defaults', low)] }),
      '05-strict-channel-priority',
    );
  });

  it('6. a chain of forced choices (the PubGrub article)', async () => {
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
    await expectText(explain({ specs: ['menu', 'icons=1', 'intl=5'], channels: [channel('conda-forge', records)] }), '06-pubgrub-article');
  });

  it('7. a package whose metadata cannot be read', async () => {
    const records = [rec('broken', '1.0', { depends: ['zlib >=>1'] })];
    const text = explain({ specs: ['broken'], channels: [channel('conda-forge', records)] });
    expect(text).toMatch(
      /^broken cannot be installed because broken 1\.0 cannot be used: its dependency "zlib >=>1" cannot be parsed \(Cannot parse .+\)$/,
    );
    await expectText(text, '07-unreadable-metadata');
  });
});

describe('explanations as data', () => {
  it('are plain data: versions as single versions and runs, kept by JSON and structuredClone, rendered the same from a copy', () => {
    const records = [
      ...['3.9.18', '3.10.14'].map((v) => rec('python', v)),
      ...['2.0.0', '2.0.1', '2.0.2', '2.1.0'].map((v) => rec('numpy', v, { depends: ['python >=3.10'] })),
    ];
    const outcome = solve({ specs: ['python=3.9', 'numpy>=2'], channels: [channel('conda-forge', records)], virtualPackages: [] });
    if (outcome.kind !== 'unsatisfiable') throw new Error('expected no solution');
    const { explanation } = outcome;
    expect(explanation.failure).toMatchObject({
      kind: 'unsatisfiable',
      groups: [
        {
          name: 'numpy',
          versions: [{ kind: 'run', first: '2.0.0', last: '2.1.0' }],
          all: true,
          reason: { kind: 'requires', versions: [{ kind: 'version', version: '3.10.14' }] },
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(explanation))).toEqual(explanation);
    expect(renderExplanation(structuredClone(explanation))).toBe(outcome.message);
  });
});

describeShared('explanations on the real channel snapshots', () => {
  const load = (folder: string, platform: string): SolveRequest['channels'][number] =>
    loadChannel(`${CHANNELS_DIR}/${folder}`, platform, folder === 'conda-forge-py39' ? 'conda-forge' : 'defaults');

  it('8. a python that the channel does not have', async () => {
    await expectText(
      explain({
        specs: ['python=3.9', 'python>=3.10'],
        channels: [load('conda-forge-py39', 'linux-64')],
        virtualPackages: virtualPackages('linux-64'),
      }),
      '08-python-not-in-channel',
    );
  });

  it('9. a package that exists nowhere', async () => {
    await expectText(
      explain({ specs: ['python=3.9', 'no-such-package'], channels: [load('conda-forge-py39', 'linux-64')] }),
      '09-package-nowhere',
    );
  });

  it('10. pytorch built for older pythons than the one requested', async () => {
    const channels = [load('defaults-main-2022', 'linux-aarch64')];
    await expectText(
      explain({ specs: ['pytorch', 'python=3.10'], channels, virtualPackages: virtualPackages('linux-aarch64') }),
      '10-pytorch-older-pythons',
    );
  });

  it('11. an openssl too old for every python 3.9 build', async () => {
    const channels = [load('conda-forge-py39', 'linux-64')];
    await expectText(
      explain({ specs: ['python=3.9', 'openssl=1.0'], channels, virtualPackages: virtualPackages('linux-64') }),
      '11-openssl-too-old',
    );
  });

  it('12. a pinned python newer than the exclude-newer date', async () => {
    const channels = [load('conda-forge-py39', 'linux-64')];
    await expectText(explain({ specs: ['python=3.9.19'], channels, excludeNewer: Date.UTC(2023, 0, 1) }), '12-exclude-newer');
  });
});
