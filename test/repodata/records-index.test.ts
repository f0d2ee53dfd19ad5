/**
 * The in-memory records index: grouping by name in the order given, the empty index of a missing
 * subdir, and the snapshot that carries records to a worker thread.
 */
import { describe, expect, it } from 'vitest';
import { EagerSubdirIndex } from '../../repodata/monolithic.js';
import { emptyIndex, RecordsIndex } from '../../repodata/records-index.js';
import type { ChannelRef } from '../../repodata/types.js';

const CHANNEL: ChannelRef = { name: 'test', baseUrl: 'https://example.invalid/test' };

const DOCUMENT = JSON.stringify({
  info: { subdir: 'noarch' },
  packages: {
    'a-1-0.tar.bz2': { name: 'a', version: '1', build: '0', build_number: 0, depends: [] },
    'b-1-0.tar.bz2': { name: 'b', version: '1', build: '0', build_number: 0, depends: ['a'] },
    'a-2-0.tar.bz2': { name: 'a', version: '2', build: '0', build_number: 0, depends: [] },
  },
});

describe('RecordsIndex', () => {
  it('groups records by name, each name in the order given', () => {
    const eager = new EagerSubdirIndex(DOCUMENT, { channel: CHANNEL, subdir: 'noarch' });
    const records = [...eager.names()].flatMap((name) => eager.records(name));
    const index = RecordsIndex.fromRecords(CHANNEL, 'noarch', [...records].reverse());
    expect([...index.names()]).toEqual(['b', 'a']);
    expect(index.records('a').map((r) => r.version)).toEqual(['2', '1']);
    expect(index.recordCount).toBe(3);
    expect(index.has('c')).toBe(false);
    expect(index.records('c')).toEqual([]);
  });

  it('is what an eager parse gives', () => {
    const eager = new EagerSubdirIndex(DOCUMENT, { channel: CHANNEL, subdir: 'noarch' });
    expect(eager).toBeInstanceOf(RecordsIndex);
    expect([...eager.names()]).toEqual(['a', 'b']);
    expect(eager.records('a').map((r) => r.version)).toEqual(['1', '2']);
    expect(eager.recordCount).toBe(3);
  });

  it('crosses threads as a structured-cloneable snapshot', () => {
    const eager = new EagerSubdirIndex(DOCUMENT, { channel: CHANNEL, subdir: 'noarch' });
    const revived = RecordsIndex.fromSnapshot(structuredClone(eager.toSnapshot()));
    expect(revived.channel).toEqual(CHANNEL);
    expect(revived.subdir).toBe('noarch');
    expect([...revived.names()]).toEqual(['a', 'b']);
    expect(revived.records('b')).toEqual(eager.records('b'));
    expect(revived.recordCount).toBe(3);
  });

  it('has one empty form, for a subdir the channel does not have', () => {
    const empty = emptyIndex(CHANNEL, 'win-32');
    expect(empty.subdir).toBe('win-32');
    expect(empty.recordCount).toBe(0);
    expect([...empty.names()]).toEqual([]);
    expect(empty.has('python')).toBe(false);
    expect(empty.records('python')).toEqual([]);
  });
});
