/** A conda-forge noarch python record as a lock holds it, for the audit tests. */
import type { PackageRecord } from '../../vocabulary/record.js';

export function pythonRecord(name: string, version: string, subdir = 'noarch', channel = 'conda-forge'): PackageRecord {
  const fn = `${name}-${version}-pyhd8ed1ab_0.conda`;
  return {
    name,
    version,
    build: 'pyhd8ed1ab_0',
    build_number: 0,
    channel,
    subdir,
    fn,
    url: `https://conda.anaconda.org/${channel}/${subdir}/${fn}`,
    md5: null,
    sha256: null,
    size: null,
    depends: [],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: 'python',
    timestamp: null,
  };
}
