/** conda semantics of `solve`, one rule per test, on hand-written records. */
import { describe, expect, it } from 'vitest';
import { solve, SolveAbortedError, SolveSpecError, SolveTimeoutError, type SolveRequest } from '../../solver/index.js';
import { InvalidMatchSpecError } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';
import { MapSource } from './helpers/load-channel.js';
import { rec, virtual } from './helpers/records.js';

function channel(name: string, records: PackageRecord[]): SolveRequest['channels'][number] {
  return { name, sources: [new MapSource(records.map((r) => ({ ...r, channel: name })))] };
}

function picked(request: Partial<SolveRequest> & Pick<SolveRequest, 'specs' | 'channels'>): string[] | string {
  const outcome = solve({ virtualPackages: [], ...request });
  if (outcome.kind === 'unsatisfiable') return outcome.message;
  return outcome.records.map((r) => `${r.name}=${r.version}=${r.build}${r.channel !== 'conda-forge' ? `@${r.channel}` : ''}`);
}

describe('candidate preferences', () => {
  it('prefers a record without track_features over a higher version with them', () => {
    const records = [rec('blas', '2.0', { track_features: ['mkl'] }), rec('blas', '1.0')];
    expect(picked({ specs: ['blas'], channels: [channel('conda-forge', records)] })).toEqual(['blas=1.0=h0_0']);
  });

  it('takes the higher version, then the higher build number, then the newer timestamp', () => {
    const records = [
      rec('a', '1.10', { build: 'x_0', build_number: 0 }),
      rec('a', '1.10', { build: 'x_2', build_number: 2, timestamp: 1 }),
      rec('a', '1.10', { build: 'y_2', build_number: 2, timestamp: 5 }),
      rec('a', '1.9', { build: 'z_9', build_number: 9 }),
    ];
    expect(picked({ specs: ['a'], channels: [channel('conda-forge', records)] })).toEqual(['a=1.10=y_2']);
  });

  it('prefers the .conda file over the .tar.bz2 of the same package', () => {
    const records = [rec('a', '1.0', { ext: '.tar.bz2' }), rec('a', '1.0', { ext: '.conda' })];
    const outcome = solve({ specs: ['a'], channels: [channel('conda-forge', records)], virtualPackages: [] });
    expect(outcome.kind === 'solved' && outcome.records.map((r) => r.fn)).toEqual(['a-1.0-h0_0.conda']);
  });

  it('among equal builds prefers the one whose dependencies allow the highest versions', () => {
    const records = [
      rec('numpy', '1.26.4', { build: 'py310_0', depends: ['python >=3.10,<3.11.0a0'] }),
      rec('numpy', '1.26.4', { build: 'py312_0', depends: ['python >=3.12,<3.13.0a0'] }),
      rec('numpy', '1.26.4', { build: 'py311_0', depends: ['python >=3.11,<3.12.0a0'] }),
      rec('python', '3.10.14'),
      rec('python', '3.11.9'),
      rec('python', '3.12.3'),
    ];
    const channels = [channel('conda-forge', records)];
    expect(picked({ specs: ['numpy'], channels })).toEqual(['numpy=1.26.4=py312_0', 'python=3.12.3=h0_0']);
    expect(picked({ specs: ['python=3.11', 'numpy'], channels })).toEqual(['numpy=1.26.4=py311_0', 'python=3.11.9=h0_0']);
  });

  it('orders a run of equal builds by their dependencies only when it decides among them', () => {
    const records = [
      rec('numpy', '1.26.4', { build: 'py311_0', depends: ['python >=3.11,<3.12.0a0'] }),
      rec('numpy', '1.26.4', { build: 'py312_0', depends: ['python >=3.12,<3.13.0a0'] }),
      rec('numpy', '1.25.2', { build: 'py311_0', depends: ['python >=3.11,<3.12.0a0', 'oldlib'] }),
      rec('numpy', '1.25.2', { build: 'py312_0', depends: ['python >=3.12,<3.13.0a0', 'oldlib'] }),
      rec('python', '3.11.9'),
      rec('python', '3.12.3'),
      rec('oldlib', '1.0'),
    ];
    const source = new MapSource(records.map((r) => ({ ...r, channel: 'conda-forge' })));
    const outcome = solve({ specs: ['numpy'], channels: [{ name: 'conda-forge', sources: [source] }], virtualPackages: [] });
    expect(outcome.kind === 'solved' && outcome.records.map((r) => `${r.name}=${r.version}=${r.build}`)).toEqual([
      'numpy=1.26.4=py312_0',
      'python=3.12.3=h0_0',
    ]);
    // Ordering the 1.25.2 builds would have read the candidates of their dependency `oldlib`.
    expect(source.requested.has('oldlib')).toBe(false);
  });

  it('maximises requested packages before their dependencies, in the order given', () => {
    const records = [
      rec('a', '2', { depends: ['c 1'] }),
      rec('a', '1', { depends: ['c 2'] }),
      rec('b', '2', { depends: ['c 2'] }),
      rec('b', '1', { depends: ['c 1'] }),
      rec('c', '1'),
      rec('c', '2'),
    ];
    const channels = [channel('conda-forge', records)];
    expect(picked({ specs: ['a', 'b'], channels })).toEqual(['a=2=h0_0', 'b=1=h0_0', 'c=1=h0_0']);
    expect(picked({ specs: ['b', 'a'], channels })).toEqual(['a=1=h0_0', 'b=2=h0_0', 'c=2=h0_0']);
  });

  it('gives the same answer whatever the order of records in the index', () => {
    const records = [
      rec('a', '1.0', { build: 'b1', depends: ['c'] }),
      rec('a', '1.0', { build: 'b2', depends: ['c'] }),
      rec('a', '1.0', { build: 'b3', depends: ['c'], subdir: 'noarch' }),
      rec('c', '2', { build: 'x' }),
      rec('c', '2', { build: 'y' }),
    ];
    const answers = new Set<string>();
    for (let shift = 0; shift < records.length; shift++) {
      const rotated = [...records.slice(shift), ...records.slice(0, shift)];
      answers.add(JSON.stringify(picked({ specs: ['a'], channels: [channel('conda-forge', rotated)] })));
      answers.add(JSON.stringify(picked({ specs: ['a'], channels: [channel('conda-forge', [...rotated].reverse())] })));
    }
    expect(answers.size).toBe(1);
  });
});

describe('dependencies and constraints', () => {
  it('applies constrains only to packages that are installed', () => {
    const records = [rec('a', '1', { constrains: ['c <2'] }), rec('b', '1', { depends: ['c'] }), rec('c', '1'), rec('c', '2')];
    const channels = [channel('conda-forge', records)];
    expect(picked({ specs: ['a'], channels })).toEqual(['a=1=h0_0']);
    expect(picked({ specs: ['a', 'b'], channels })).toEqual(['a=1=h0_0', 'b=1=h0_0', 'c=1=h0_0']);
  });

  it('never reads names the request cannot reach', () => {
    const source = new MapSource([
      rec('a', '1', { depends: ['b'] }),
      rec('b', '1', { constrains: ['z <1'] }),
      rec('unrelated', '1'),
      rec('z', '1'),
    ]);
    solve({ specs: ['a'], channels: [{ name: 'conda-forge', sources: [source] }], virtualPackages: [] });
    expect([...source.requested].sort()).toEqual(['a', 'b']);
  });

  it('treats virtual packages as installed and honours requirements on them', () => {
    const records = [rec('a', '2', { depends: ['__glibc >=2.34'] }), rec('a', '1', { depends: ['__glibc >=2.17'] })];
    const result = solve({ specs: ['a'], channels: [channel('conda-forge', records)], virtualPackages: [virtual('__glibc', '2.28')] });
    expect(result.kind === 'solved' && result.records.map((r) => `${r.name} ${r.version}`)).toEqual(['a 1']);
  });

  it('applies constrains to virtual packages, which are always installed', () => {
    const records = [rec('a', '2', { constrains: ['__cuda >=12'] }), rec('a', '1')];
    const result = solve({ specs: ['a'], channels: [channel('conda-forge', records)], virtualPackages: [virtual('__cuda', '11.8')] });
    expect(result.kind === 'solved' && result.records.map((r) => r.version)).toEqual(['1']);
  });

  it('ignores a record whose dependencies cannot be parsed', () => {
    const records = [rec('a', '2', { depends: ['b >=>1'] }), rec('a', '1'), rec('b', '1')];
    expect(picked({ specs: ['a'], channels: [channel('conda-forge', records)] })).toEqual(['a=1=h0_0']);
  });
});

describe('channels', () => {
  const high = [rec('numpy', '1.0'), rec('tool', '1', { depends: ['numpy >=2'] })];
  const low = [rec('numpy', '2.0'), rec('numpy', '1.5')];

  it('takes a name only from the highest-priority channel that has it under strict priority', () => {
    const channels = [channel('high', high), channel('low', low)];
    expect(picked({ specs: ['numpy'], channels })).toEqual(['numpy=1.0=h0_0@high']);
    expect(picked({ specs: ['tool'], channels })).toBe(
      'tool cannot be installed because tool 1 requires numpy >=2, but every match is excluded: numpy 2.0 comes from low, but strict channel priority takes numpy only from high',
    );
  });

  it('prefers the higher-priority channel under flexible priority, but may fall back', () => {
    const channels = [channel('high', high), channel('low', low)];
    expect(picked({ specs: ['numpy'], channels, channelPriority: 'flexible' })).toEqual(['numpy=1.0=h0_0@high']);
    expect(picked({ specs: ['tool'], channels, channelPriority: 'flexible' })).toEqual(['numpy=2.0=h0_0@low', 'tool=1=h0_0@high']);
  });

  it('ignores channel order under disabled priority', () => {
    const channels = [channel('high', high), channel('low', low)];
    expect(picked({ specs: ['numpy'], channels, channelPriority: 'disabled' })).toEqual(['numpy=2.0=h0_0@low']);
  });

  it('lets a channel-specific spec reach a lower-priority channel', () => {
    const channels = [channel('high', high), channel('low', low)];
    expect(picked({ specs: ['low::numpy'], channels })).toEqual(['numpy=2.0=h0_0@low']);
  });

  it('honours a subdir in a spec', () => {
    const records = [rec('a', '2', { subdir: 'linux-64' }), rec('a', '1', { subdir: 'noarch' })];
    expect(picked({ specs: ['a[subdir=noarch]'], channels: [channel('conda-forge', records)] })).toEqual(['a=1=h0_0']);
  });

  it('ignores records uploaded after exclude-newer', () => {
    const records = [
      rec('a', '2', { timestamp: Date.UTC(2024, 5, 1) }),
      rec('a', '1', { timestamp: Date.UTC(2023, 0, 1) }),
      rec('b', '1', { timestamp: null }),
    ];
    const channels = [channel('conda-forge', records)];
    expect(picked({ specs: ['a', 'b'], channels, excludeNewer: Date.UTC(2024, 0, 1) })).toEqual(['a=1=h0_0', 'b=1=h0_0']);
    expect(picked({ specs: ['a>=2'], channels, excludeNewer: Date.UTC(2024, 0, 1) })).toBe(
      'a >=2 cannot be installed because every match is excluded: a 2 was uploaded after 2024-01-01T00:00:00.000Z (exclude-newer)',
    );
  });
});

describe('errors and limits', () => {
  it('throws the vocabulary error for an unparsable spec', () => {
    expect(() => solve({ specs: ['numpy >=>1'], channels: [], virtualPackages: [] })).toThrow(InvalidMatchSpecError);
  });

  it('refuses a spec whose name is a pattern', () => {
    expect(() => solve({ specs: ['num*'], channels: [], virtualPackages: [] })).toThrow(SolveSpecError);
  });

  it('solves an empty request to no packages', () => {
    const outcome = solve({
      specs: [],
      channels: [channel('conda-forge', [rec('a', '1')])],
      virtualPackages: [virtual('__glibc', '2.28')],
    });
    expect(outcome).toEqual({ kind: 'solved', records: [] });
  });

  it('answers unsatisfiable, not an error, for a name with no candidates', () => {
    const outcome = solve({ specs: ['foo'], channels: [channel('conda-forge', [])], virtualPackages: [] });
    expect(outcome.kind === 'unsatisfiable' && outcome.message).toBe('foo cannot be installed because nothing provides foo');
  });

  // Pigeonhole: n + 1 packages, each must take one of n "holes", no two the same hole.
  function pigeonhole(n: number): SolveRequest {
    const records: PackageRecord[] = [];
    for (let p = 0; p <= n; p++) {
      for (let hole = 1; hole <= n; hole++) {
        const constrains = [];
        for (let q = 0; q <= n; q++) if (q !== p) constrains.push(`p${q} !=${hole}`);
        records.push(rec(`p${p}`, String(hole), { constrains }));
      }
    }
    const specs = [];
    for (let p = 0; p <= n; p++) specs.push(`p${p}`);
    return { specs, channels: [channel('conda-forge', records)], virtualPackages: [] };
  }

  // Refuting pigeonhole 13/12 takes the solver seconds, far beyond the 100 ms limit; the outcome
  // (a typed timeout, not an answer) is what is checked, not how long it took.
  it('ends a hard solve with a typed timeout error', () => {
    expect(() => solve({ ...pigeonhole(12), timeoutMs: 100 })).toThrow(SolveTimeoutError);
  });

  it('stops when the signal aborts, even mid-solve', () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(() => solve({ ...pigeonhole(3), signal: aborted.signal })).toThrow(SolveAbortedError);
    let reads = 0;
    const later = {
      get aborted() {
        return ++reads > 2;
      },
    } as AbortSignal;
    expect(() => solve({ ...pigeonhole(11), signal: later })).toThrow(SolveAbortedError);
  });

  it('proves a small pigeonhole problem unsatisfiable', () => {
    const outcome = solve(pigeonhole(4));
    expect(outcome.kind).toBe('unsatisfiable');
  });
});

describe('locked records (--lock)', () => {
  const records = [rec('a', '2', { depends: ['b >=2'] }), rec('a', '1', { depends: ['b'] }), rec('b', '3'), rec('b', '2'), rec('b', '1')];
  const channels = [channel('conda-forge', records)];
  const urlOf = (name: string, version: string) => records.find((r) => r.name === name && r.version === version)!.url;

  it('keeps every locked record the request still allows, over newer ones', () => {
    expect(picked({ specs: ['a'], channels, locked: [urlOf('a', '1'), urlOf('b', '1')] })).toEqual(['a=1=h0_0', 'b=1=h0_0']);
  });

  it('moves only what the request forces: a spec past the locked version, and the dependency it needs', () => {
    expect(picked({ specs: ['a>=2'], channels, locked: [urlOf('a', '1'), urlOf('b', '1')] })).toEqual(['a=2=h0_0', 'b=3=h0_0']);
    expect(picked({ specs: ['a>=2'], channels, locked: [urlOf('a', '1'), urlOf('b', '2')] })).toEqual(['a=2=h0_0', 'b=2=h0_0']);
  });

  it('a name left out of the locked list (--update) takes its most preferred version', () => {
    expect(picked({ specs: ['a'], channels, locked: [urlOf('a', '1')] })).toEqual(['a=1=h0_0', 'b=3=h0_0']);
  });
});
