/**
 * A PyPI distribution in the shape of a conda record, for the views that compare or walk records
 * alike (`diff`, `tree`, `why`): build `pypi`, subdir `pypi`, channel the index, `depends` its
 * Requires-Dist. Never handed to a solver or a conda exporter.
 */
import type { PackageRecord } from '../../vocabulary/record.js';

export interface PypiRecordFields {
  readonly name: string;
  /** null for a local source tree a lock keeps by path (its location stands in). */
  readonly version: string | null;
  readonly url: string;
  readonly filename?: string;
  readonly index?: string | null;
  readonly sha256?: string | null;
  readonly size?: number | null;
  readonly requires_dist?: readonly string[];
}

export function pypiAsRecord(p: PypiRecordFields): PackageRecord {
  return {
    name: p.name,
    version: p.version ?? p.url,
    build: 'pypi',
    build_number: 0,
    channel: p.index ?? '',
    subdir: 'pypi',
    fn: p.filename ?? p.url.split('/').pop()!,
    url: p.url,
    md5: null,
    sha256: p.sha256 ?? null,
    size: p.size ?? null,
    depends: [...(p.requires_dist ?? [])],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
  };
}
