/**
 * A local conda channel (a folder of repodata.json files) with CPython interpreters and a few
 * packages, for mixed conda/PyPI solves: `python` 3.10 to 3.12 with their `python_abi`, and what the
 * caller adds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ChannelPackage {
  readonly name: string;
  readonly version: string;
  readonly build?: string;
  readonly depends?: readonly string[];
  readonly noarch?: 'python';
}

export const PYTHON_VERSIONS = ['3.10.14', '3.11.9', '3.12.7'];

export function writePythonChannel(dir: string, subdirs: readonly string[], extra: readonly ChannelPackage[] = []): string {
  for (const subdir of [...subdirs, 'noarch']) {
    const packages: Record<string, unknown> = {};
    const add = (p: ChannelPackage, inNoarch: boolean): void => {
      if ((p.noarch === 'python') !== inNoarch) return;
      const build = p.build ?? 'h0_0';
      packages[`${p.name}-${p.version}-${build}.tar.bz2`] = {
        name: p.name,
        version: p.version,
        build,
        build_number: 0,
        depends: p.depends ?? [],
        subdir,
        ...(p.noarch ? { noarch: p.noarch } : {}),
        md5: '0'.repeat(32),
        sha256: '1'.repeat(64),
        size: 1,
        timestamp: 1_700_000_000_000,
      };
    };
    if (subdir !== 'noarch') {
      for (const version of PYTHON_VERSIONS) {
        const minor = version.split('.').slice(0, 2).join('.');
        const cp = `cp${minor.replace('.', '')}`;
        add({ name: 'python', version, build: `h0_0_cpython`, depends: [`python_abi ${minor}.* *_${cp}`] }, false);
        add({ name: 'python_abi', version: minor, build: `5_${cp}` }, false);
      }
    }
    for (const p of extra) add(p, subdir === 'noarch');
    mkdirSync(join(dir, subdir), { recursive: true });
    writeFileSync(join(dir, subdir, 'repodata.json'), JSON.stringify({ info: { subdir }, packages, 'packages.conda': {} }));
  }
  return dir;
}
