/**
 * A channel whose solve is hard on purpose: the pigeonhole problem (n + 1 pigeons, n holes) in
 * conda terms. Package `pigeonI` version `J` sits in hole J and needs `holeJ ==I`; a package has
 * only one version installed, so a hole holds one pigeon. Asking for every pigeon is unsatisfiable,
 * and resolution-based (CDCL) solvers need time exponential in n to prove it: a long solve whose
 * length the test chooses, with no sleeping anywhere.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writePigeonChannel(dir: string, holes: number): { specs: string[] } {
  const packages: Record<string, Record<string, unknown>> = {};
  const add = (name: string, version: string, depends: string[]) => {
    const fn = `${name}-${version}-0.conda`;
    packages[fn] = {
      build: '0',
      build_number: 0,
      depends,
      license: 'MIT',
      md5: createHash('md5').update(fn).digest('hex'),
      name,
      sha256: createHash('sha256').update(fn).digest('hex'),
      size: 1000,
      subdir: 'linux-64',
      timestamp: 1_700_000_000_000,
      version,
    };
  };
  const pigeons = holes + 1;
  for (let p = 1; p <= pigeons; p++) {
    for (let h = 1; h <= holes; h++) add(`pigeon${p}`, String(h), [`hole${h} ==${p}`]);
  }
  for (let h = 1; h <= holes; h++) {
    for (let p = 1; p <= pigeons; p++) add(`hole${h}`, String(p), []);
  }
  for (const [subdir, body] of [
    ['linux-64', packages],
    ['noarch', {}],
  ] as const) {
    mkdirSync(join(dir, subdir), { recursive: true });
    writeFileSync(
      join(dir, subdir, 'repodata.json'),
      JSON.stringify({ info: { subdir }, packages: {}, 'packages.conda': body, repodata_version: 1 }),
    );
  }
  return { specs: Array.from({ length: pigeons }, (_, i) => `pigeon${i + 1}`) };
}
