/**
 * Explanations stay small on combinatorial problems: the pigeonhole problem makes every candidate's
 * reason refer to others', which once grew the explanation exponentially (31 MB of text at 6 holes,
 * out of memory at 8). Now the walk has a budget and the text a line limit. The texts, byte for byte,
 * are in `__snapshots__/explanation-bounds/`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexRepodata } from '../../repodata/monolithic.js';
import { MAX_EXPLANATION_LINES } from '../../solver/core/explain/render.js';
import { solve } from '../../solver/index.js';
import { writePigeonChannel } from '../http/helpers/pigeon-channel.js';

describe('explanations on combinatorial problems', () => {
  it.each([5, 7, 8])('pigeonhole with %i holes gives a bounded explanation', async (holes) => {
    const dir = mkdtempSync(join(tmpdir(), 'cr-pigeon-'));
    const { specs } = writePigeonChannel(dir, holes);
    const channel = { name: 'pigeons', baseUrl: 'file:///pigeons' };
    const sources = ['linux-64', 'noarch'].map((subdir) =>
      indexRepodata(new Uint8Array(readFileSync(join(dir, subdir, 'repodata.json'))), { channel, subdir }),
    );
    const outcome = solve({ specs, channels: [{ name: 'pigeons', sources }], virtualPackages: [], timeoutMs: 20_000 });
    expect(outcome.kind).toBe('unsatisfiable');
    if (outcome.kind !== 'unsatisfiable') return;
    const lines = outcome.message.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^pigeon${holes + 1} cannot be installed because`));
    expect(lines.length).toBeLessThanOrEqual(MAX_EXPLANATION_LINES);
    expect(outcome.message.length).toBeLessThan(40_000);
    await expect(outcome.message).toMatchFileSnapshot(`./__snapshots__/explanation-bounds/pigeonhole-${holes}.txt`);
  });
});
