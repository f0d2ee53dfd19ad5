/** Test helpers for vocabulary tests: records built from a dist string, real repodata loading. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageRecord } from '../../vocabulary/record.js';

/** A record from `name-version-build` (build number from the build's last `_N`), overridable. */
export function record(dist: string, overrides: Partial<PackageRecord> = {}): PackageRecord {
  const b = dist.lastIndexOf('-');
  const v = dist.lastIndexOf('-', b - 1);
  const name = dist.slice(0, v);
  const version = dist.slice(v + 1, b);
  const build = dist.slice(b + 1);
  const buildNumber = Number(/(\d+)$/.exec(build)?.[1] ?? 0);
  const subdir = overrides.subdir ?? 'linux-64';
  const channel = overrides.channel ?? 'conda-forge';
  return {
    name,
    version,
    build,
    build_number: buildNumber,
    channel,
    subdir,
    fn: `${dist}.tar.bz2`,
    url: `https://conda.anaconda.org/${channel}/${subdir}/${dist}.tar.bz2`,
    md5: '0123456789abcdef0123456789abcdef',
    sha256: null,
    size: null,
    depends: [],
    constrains: [],
    track_features: [],
    features: null,
    license: null,
    license_family: null,
    noarch: null,
    timestamp: null,
    ...overrides,
  };
}

interface RawRecord {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends?: string[];
  constrains?: string[] | null;
  subdir?: string;
  md5?: string;
  sha256?: string;
  track_features?: string;
  features?: string;
  license?: string;
  license_family?: string;
}

/** Every record of every subdir under a channel snapshot folder, minimally normalised. */
export function loadChannelRecords(channelDir: string, channel: string): PackageRecord[] {
  const out: PackageRecord[] = [];
  for (const subdir of readdirSync(channelDir)) {
    const file = join(channelDir, subdir, 'repodata.json');
    if (!existsSync(file)) continue;
    const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, RawRecord> | undefined>;
    for (const key of ['packages', 'packages.conda']) {
      for (const [fn, r] of Object.entries(data[key] ?? {})) {
        out.push({
          name: r.name,
          version: r.version,
          build: r.build,
          build_number: r.build_number,
          channel,
          subdir: r.subdir ?? subdir,
          fn,
          url: `https://conda.anaconda.org/${channel}/${subdir}/${fn}`,
          md5: r.md5 ?? null,
          sha256: r.sha256 ?? null,
          size: null,
          depends: r.depends ?? [],
          constrains: r.constrains ?? [],
          track_features: (r.track_features ?? '').split(/[\s,]+/).filter(Boolean),
          features: r.features ?? null,
          license: r.license ?? null,
          license_family: r.license_family ?? null,
          noarch: null,
          timestamp: null,
        });
      }
    }
  }
  return out;
}
