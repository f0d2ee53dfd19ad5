/**
 * pixi.lock v4 and v5 locate a PyPI package by `url:` or, for a local one, by `path:`
 * (rattler_lock's `UrlOrPath`, flattened into the entry). prefix-dev/pixi's pypi-extras lock
 * (fixtures/locks/wild/pixi-pypi-extras.v4.pixi.lock) has two: `path: has-extras` and
 * `path: use-with-extras`, referenced by the environment as `- pypi: has-extras`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLockFile } from '../../../src/locks/lock-file.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

describe('a pixi.lock v4 PyPI package located by path', () => {
  it('reads as a PyPI record at that path, beside the wheels', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'fixtures', 'locks', 'wild', 'pixi-pypi-extras.v4.pixi.lock'), 'utf8');
    const pypi = readLockFile('pixi.lock', text).environments.get('default')!.pypi.get('win-64')!;
    expect(pypi.map((p) => [p.name, p.version, p.url])).toEqual([
      [
        'decorator',
        '5.1.1',
        'https://files.pythonhosted.org/packages/d5/50/83c593b07763e1161326b3b8c6686f0f4b0f24d5526546bee538c89837d6/decorator-5.1.1-py3-none-any.whl',
      ],
      ['has-extras', '0.1.0', 'has-extras'],
      [
        'pinject',
        '0.14.1',
        'https://files.pythonhosted.org/packages/fd/67/9025a31cbadca4d88880a6856b9b3052e970981d49dc9fa3f9ee46793022/pinject-0.14.1-py3-none-any.whl',
      ],
      [
        'six',
        '1.16.0',
        'https://files.pythonhosted.org/packages/d9/5a/e7c31adbe875f2abbb91bd84cf2dc52d792b5a01506781dbcf25c91daf11/six-1.16.0-py2.py3-none-any.whl',
      ],
      ['use-with-extras', '0.1.0', 'use-with-extras'],
    ]);
    expect(pypi.find((p) => p.name === 'has-extras')!.requires_dist).toEqual(["pinject ; extra == 'pinject'"]);
  });
});
