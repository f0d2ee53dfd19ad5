/** The serde_yaml layout pixi.lock v7 is written in: indentless sequences, no folding, and its quoting. */
import { describe, expect, it } from 'vitest';
import { emitSerdeYaml } from '../../src/locks/serde-yaml.js';

describe('emitSerdeYaml', () => {
  it.each([
    ['0.1', "'0.1'"],
    ['1.26.0', '1.26.0'],
    ['2024b', '2024b'],
    ['>=3.8', "'>=3.8'"],
    ['true', "'true'"],
    ['null', "'null'"],
    ['', "''"],
    ['0123', "'0123'"],
    ['12', "'12'"],
    ['1e5', "'1e5'"],
    ['python >=3.9,<4', 'python >=3.9,<4'],
    ["colorama ; sys_platform == 'win32'", "colorama ; sys_platform == 'win32'"],
    ['a: b', "'a: b'"],
    ['*', "'*'"],
    ["it's", "it's"],
    ['tab\there', '"tab\\there"'],
    ['https://conda.anaconda.org/conda-forge/noarch/a-1-0.conda', 'https://conda.anaconda.org/conda-forge/noarch/a-1-0.conda'],
  ])('%j is written %s', (value, written) => {
    expect(emitSerdeYaml({ v: value })).toBe(`v: ${written}\n`);
  });

  it('writes sequences under a key without indenting them, and empty collections inline', () => {
    expect(emitSerdeYaml({ a: [{ b: 1, c: ['x'] }, 'y'], d: {}, e: [], f: { g: null } })).toBe(
      'a:\n- b: 1\n  c:\n  - x\n- y\nd: {}\ne: []\nf:\n  g: null\n',
    );
  });

  it('never folds a long line', () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    expect(emitSerdeYaml({ license: long })).toBe(`license: ${long}\n`);
  });
});
