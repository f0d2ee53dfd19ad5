/** Hand-written conda records for solver tests: `rec('numpy', '1.26.4', { depends: ['python >=3.9'] })`. */
import type { PackageRecord } from '../../../vocabulary/record.js';

export interface RecordOptions {
  build?: string;
  build_number?: number;
  depends?: string[];
  constrains?: string[];
  track_features?: string[];
  timestamp?: number | null;
  channel?: string;
  subdir?: string;
  ext?: '.conda' | '.tar.bz2';
}

export function rec(name: string, version: string, options: RecordOptions = {}): PackageRecord {
  const build = options.build ?? `h0_${options.build_number ?? 0}`;
  const subdir = options.subdir ?? 'linux-64';
  const channel = options.channel ?? 'conda-forge';
  const fn = `${name}-${version}-${build}${options.ext ?? '.conda'}`;
  return {
    name,
    version,
    build,
    build_number: options.build_number ?? 0,
    channel,
    subdir,
    fn,
    url: `https://conda.anaconda.org/${channel}/${subdir}/${fn}`,
    md5: null,
    sha256: null,
    size: null,
    depends: options.depends ?? [],
    constrains: options.constrains ?? [],
    track_features: options.track_features ?? [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: options.timestamp === undefined ? 1_700_000_000_000 : options.timestamp,
  };
}

export function virtual(name: string, version: string, build = '0'): PackageRecord {
  return { ...rec(name, version, { build, channel: '@', timestamp: null }), url: `virtual://linux-64/${name}-${version}-${build}.conda` };
}
