/**
 * The facts `explanation` carries in native JSON, drawn from the solver's tree: virtual packages
 * the target lacks, matches hidden by strict channel priority or exclude-newer, the requested specs
 * involved; and on a real snapshot, conflicts that name real records.
 */
import { describe, expect, it } from 'vitest';
import { solve, type SolveRequest } from '../../solver/index.js';
import { nativeExplanation } from '../../src/explanation-data.js';
import { virtualPackages } from '../../vocabulary/virtual-packages.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { loadChannel, MapSource } from '../solver/helpers/load-channel.js';
import { rec, virtual } from '../solver/helpers/records.js';

function explain(request: Partial<SolveRequest> & Pick<SolveRequest, 'specs' | 'channels'>) {
  const outcome = solve({ virtualPackages: [], ...request });
  if (outcome.kind !== 'unsatisfiable') throw new Error('expected no solution');
  return nativeExplanation(outcome.explanation);
}

const channel = (name: string, records: ReturnType<typeof rec>[]): SolveRequest['channels'][number] => ({
  name,
  sources: [new MapSource(records.map((r) => ({ ...r, channel: name })))],
});

describe('nativeExplanation', () => {
  it('names a virtual package the target system does not have, with what it has', () => {
    const records = [rec('cudatoolkit', '12.4', { depends: ['__cuda >=12'] })];
    const data = explain({
      specs: ['cudatoolkit'],
      channels: [channel('conda-forge', records)],
      virtualPackages: [virtual('__cuda', '11.8')],
    });
    expect(data.virtual_packages).toEqual([
      { name: '__cuda', spec: '__cuda >=12', available: ['11.8'], note: expect.stringContaining('virtual package') },
    ]);
    expect(data.conflicts).toEqual([{ kind: 'missing', subject: 'cudatoolkit 12.4', specs: ['__cuda >=12'], against: null, detail: null }]);
  });

  it('says a match was hidden by strict channel priority', () => {
    const high = channel('conda-forge', [rec('libarrow', '14.0.2'), rec('pyarrow', '15.0.0', { depends: ['libarrow 15.0.0.*'] })]);
    const data = explain({ specs: ['pyarrow'], channels: [high, channel('defaults', [rec('libarrow', '15.0.0')])] });
    expect(data.excluded).toEqual([
      { name: 'libarrow', versions: ['15.0.0'], cause: 'channel-priority', reason: expect.stringContaining('strict channel priority') },
    ]);
  });

  it('lists the requested specs on both sides of a conflict, the blocked one first', () => {
    const records = [rec('python', '3.9.18'), rec('python', '3.10.14'), rec('numpy', '2.0.0', { depends: ['python >=3.10'] })];
    const data = explain({ specs: ['python=3.9', 'numpy>=2'], channels: [channel('conda-forge', records)] });
    expect(data.spec).toBe('numpy >=2');
    expect(data.requested).toEqual(['numpy >=2', 'python 3.9.*']);
    expect(data.candidates[0]).toEqual({ specs: ['numpy >=2'], name: 'numpy', versions: ['2.0.0'] });
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });
});

describeShared('nativeExplanation on a real snapshot', () => {
  it('exclude-newer on conda-forge python: the cause and the versions it hid', () => {
    const channels = [loadChannel(`${CHANNELS_DIR}/conda-forge-py39`, 'linux-64', 'conda-forge')];
    const data = explain({
      specs: ['python=3.9.19'],
      channels,
      excludeNewer: Date.UTC(2023, 0, 1),
      virtualPackages: virtualPackages('linux-64'),
    });
    expect(data.excluded).toEqual([
      { name: 'python', versions: ['3.9.19'], cause: 'exclude-newer', reason: expect.stringContaining('exclude-newer') },
    ]);
  });
});
