/**
 * A conda-lock.yml of conda-lock's own pangeo example locks the virtual package `__osx` with a
 * `file:///var/folders/...` URL (conda-lock/example/pangeo/conda-lock.yml, two of its entries
 * below as published). An explicit file made from it must not list `__osx`: `conda create --file`
 * fails on a URL that names no package.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../cli/run-cli.js';

const LOCK = `metadata:
  channels:
  - url: conda-forge
    used_env_vars: []
  platforms:
  - osx-64
  sources:
  - environment.yml
package:
- category: main
  dependencies: {}
  hash:
    md5: be8f747c37e4d7e346c133e641966750
    sha256: 175fabb59835e3ed7e7222cb3604d44f21e8b749349b9795691693b4e0d1abc2
  manager: conda
  name: giflib
  optional: false
  platform: osx-64
  url: https://conda.anaconda.org/conda-forge/osx-64/giflib-5.2.1-hbcb3906_2.tar.bz2
  version: 5.2.1
- dependencies: {}
  hash:
    md5: ''
    sha256: null
  manager: conda
  name: __osx
  platform: osx-64
  url: file:///var/folders/wp/0dbcjg8n2y95z6_3_5khb9kr0000gn/T/tmpwlkinwe4/osx-64/__osx-11.0-0.tar.bz2
  version: '11.0'
version: 1
`;

describe('a conda-lock.yml that locks __osx, exported as an explicit file', () => {
  it('lists the packages and leaves the virtual package out', async () => {
    const dir = tempDir('cr-wild-virtual-');
    writeFileSync(join(dir, 'conda-lock.yml'), LOCK);
    const out = await runCli(['-q', '--offline', '-f', 'conda-lock.yml', '-p', 'osx-64', '--format', 'explicit'], { cwd: dir });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n').slice(4)).toEqual([
      '@EXPLICIT',
      'https://conda.anaconda.org/conda-forge/osx-64/giflib-5.2.1-hbcb3906_2.tar.bz2',
      '',
    ]);
  });
});
