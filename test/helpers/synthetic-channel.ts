/**
 * A made-up channel of a chosen size, written to a folder: `app` depends on a chain of libraries,
 * each published in many versions, so that the repodata is megabytes while one solve stays small.
 * Tests serve it with real servers (python's http.server, raw sockets) without `../shared`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SyntheticChannel {
  readonly dir: string;
  /** Bytes of `linux-64/repodata.json`. */
  readonly linuxBytes: number;
  /** A spec whose solve pulls in the chain. */
  readonly spec: string;
}

function record(name: string, version: string, build: string, depends: string[], subdir: string): [string, Record<string, unknown>] {
  const file = `${name}-${version}-${build}.conda`;
  const digest = createHash('sha256').update(file).digest('hex');
  return [
    file,
    {
      build,
      build_number: 0,
      depends,
      license: 'BSD-3-Clause',
      md5: digest.slice(0, 32),
      name,
      sha256: digest,
      size: 1000 + file.length,
      subdir,
      timestamp: 1700000000000,
      version,
    },
  ];
}

/** Writes `dir/linux-64/repodata.json` of about `approxBytes` and a small `noarch`. */
export function writeSyntheticChannel(dir: string, approxBytes: number): SyntheticChannel {
  const packages: Record<string, Record<string, unknown>> = {};
  const chain = 12;
  // About 420 bytes per record once written.
  const perLibrary = Math.max(2, Math.ceil(approxBytes / 420 / chain));
  for (let lib = 0; lib < chain; lib++) {
    for (let v = 0; v < perLibrary; v++) {
      const version = `${1 + Math.floor(v / 100)}.${v % 100}.0`;
      const depends = lib + 1 < chain ? [`lib${lib + 1} >=1.0`] : ['tzdata'];
      const [file, body] = record(`lib${lib}`, version, `h${String(v).padStart(6, '0')}_0`, depends, 'linux-64');
      packages[file] = body;
    }
  }
  const [appFile, app] = record('app', '2.0.0', 'h0_0', ['lib0 >=1.5'], 'linux-64');
  packages[appFile] = app;
  const linux = JSON.stringify({ info: { subdir: 'linux-64' }, packages: {}, 'packages.conda': packages }, null, 1);
  mkdirSync(join(dir, 'linux-64'), { recursive: true });
  writeFileSync(join(dir, 'linux-64', 'repodata.json'), linux);
  const [tzFile, tz] = record('tzdata', '2024a', 'h0_0', [], 'noarch');
  mkdirSync(join(dir, 'noarch'), { recursive: true });
  writeFileSync(
    join(dir, 'noarch', 'repodata.json'),
    JSON.stringify({ info: { subdir: 'noarch' }, packages: {}, 'packages.conda': { [tzFile]: { ...tz, noarch: 'generic' } } }),
  );
  return { dir, linuxBytes: Buffer.byteLength(linux), spec: 'app' };
}
