/** The short form of several specs of one name that an explanation prints when none of them matches. */
import { describe, expect, it } from 'vitest';
import { compactSpecs } from '../../solver/core/explain/spec-ranges.js';

describe('compactSpecs', () => {
  it.each([
    [['python 2.7*', 'python 3.4*', 'python 3.5*'], 'python 2.7*, 3.4* or 3.5*'],
    [['python 2.7.*', 'python 3.6.*', 'python 3.4.*', 'python 3.5.*'], 'python 2.7.* or 3.4.* .. 3.6.*'],
    [['python >=3.6,<3.7.0a0', 'python >=3.7,<3.8.0a0', 'python >=3.8,<3.9.0a0'], 'python 3.6.* .. 3.8.*'],
    [['python 3.5.*', 'python 3.5*'], 'python 3.5.*'],
    [['numpy >=1.20', 'numpy 1.19.*'], 'numpy 1.19.* or >=1.20'],
    [
      ['a 1.0.*', 'a 1.1.*', 'a 1.2.*', 'a 2.0.*', 'a 2.1.*', 'a 2.2.*', 'a 3.0.*', 'a 3.1.*', 'a 3.2.*', 'a >=5', 'a <0.1', 'a 9', 'a 10'],
      'a 1.0.* .. 1.2.*, 2.0.* .. 2.2.*, 3.0.* .. 3.2.*, >=5, <0.1 or 2 more',
    ],
  ])('%j reads %s', (specs, expected) => {
    expect(compactSpecs(specs[0].split(' ')[0], specs)).toBe(expected);
  });

  it('gives up when a spec is not the name followed by a constraint', () => {
    expect(compactSpecs('a', ['a <4', 'a'])).toBeNull();
    expect(compactSpecs('a', ['b 1.*'])).toBeNull();
    expect(compactSpecs('a', [])).toBeNull();
  });
});
