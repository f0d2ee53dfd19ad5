import { describe, expect, it } from 'vitest';
import { CondaResolveError, userMessage } from '../../src/errors.js';

const hidden = (message: string): string => userMessage(new CondaResolveError('CR_ERR_SOLVE_UNSATISFIABLE', message), { hidePaths: true });

describe('userMessage with hidePaths', () => {
  it('hides a checkout under any top folder, as a file:// URL or a bare path', () => {
    // CI clones into /check; a user's server may run from /data, /build or /srv.
    for (const root of ['/check', '/data/ci', '/build/x', '/home/me', '/opt/app', '/a']) {
      expect(hidden(`Channels searched: file://${root}/fixtures/demo (linux-64 and noarch).`)).toBe(
        'Channels searched: <path> (linux-64 and noarch).',
      );
      expect(hidden(`cannot read ${root}/cache/x.json: gone`)).toBe('cannot read <path>: gone');
      expect(hidden(`"${root}/fixtures/demo"`)).toBe('"<path>"');
    }
  });

  it('keeps URLs, platform pairs, specs and route names as they are', () => {
    for (const text of [
      'Cannot fetch https://conda.anaconda.org/conda-forge/linux-64/repodata.json',
      'python exists for linux-64/noarch only',
      'requires python >=3.9,<3.10 and numpy 1.2/1.3',
      'use POST /resolve instead',
    ])
      expect(hidden(text)).toBe(text);
  });

  it('hides Windows paths', () => {
    expect(hidden('cannot read C:\\Users\\me\\env.yml')).toBe('cannot read <path>');
  });
});
