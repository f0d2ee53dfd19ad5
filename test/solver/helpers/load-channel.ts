/**
 * A minimal repodata.json loader for solver tests and benchmarks, kept here so the solver's tests
 * do not move with the repodata layer: it reads `<dir>/<subdir>/repodata.json` and normalises
 * records the way the repodata layer documents (track_features as a list, timestamps in ms,
 * missing lists as empty). The product reads channels through `repodata/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordSource, SolveChannel } from '../../../solver/index.js';
import type { PackageRecord } from '../../../vocabulary/record.js';

export class MapSource implements RecordSource {
  readonly byName = new Map<string, PackageRecord[]>();
  readonly requested = new Set<string>();

  constructor(records: Iterable<PackageRecord>) {
    for (const record of records) {
      const list = this.byName.get(record.name);
      if (list) list.push(record);
      else this.byName.set(record.name, [record]);
    }
  }

  records(name: string): readonly PackageRecord[] {
    this.requested.add(name);
    return this.byName.get(name) ?? [];
  }
}

type Raw = Record<string, unknown>;

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

export function normalise(raw: Raw, fn: string, channel: string, subdir: string, baseUrl: string): PackageRecord {
  const tf = raw.track_features;
  const timestamp = typeof raw.timestamp === 'number' ? (raw.timestamp < 1e11 ? raw.timestamp * 1000 : raw.timestamp) : null;
  return {
    name: String(raw.name),
    version: String(raw.version),
    build: String(raw.build),
    build_number: typeof raw.build_number === 'number' ? raw.build_number : 0,
    channel,
    subdir: typeof raw.subdir === 'string' ? raw.subdir : subdir,
    fn,
    url: `${baseUrl}/${subdir}/${fn}`,
    md5: typeof raw.md5 === 'string' ? raw.md5 : null,
    sha256: typeof raw.sha256 === 'string' ? raw.sha256 : null,
    size: typeof raw.size === 'number' ? raw.size : null,
    depends: list(raw.depends),
    constrains: list(raw.constrains),
    track_features: typeof tf === 'string' ? tf.split(/[\s,]+/).filter(Boolean) : list(tf),
    features: typeof raw.features === 'string' ? raw.features : null,
    license: typeof raw.license === 'string' ? raw.license : null,
    license_family: typeof raw.license_family === 'string' ? raw.license_family : null,
    noarch: typeof raw.noarch === 'string' ? raw.noarch : null,
    timestamp,
  };
}

export function loadSubdir(channelDir: string, subdir: string, channel: string): PackageRecord[] {
  const file = join(channelDir, subdir, 'repodata.json');
  if (!existsSync(file)) return [];
  const document = JSON.parse(readFileSync(file, 'utf8')) as Raw;
  const records: PackageRecord[] = [];
  for (const section of ['packages', 'packages.conda']) {
    const entries = (document[section] ?? {}) as Record<string, Raw>;
    for (const [fn, raw] of Object.entries(entries))
      records.push(normalise(raw, fn, channel, subdir, `https://example.invalid/${channel}`));
  }
  return records;
}

/** One channel for a platform: [platform subdir, noarch]. */
export function loadChannel(channelDir: string, platform: string, channel: string): SolveChannel & { sources: MapSource[] } {
  return {
    name: channel,
    sources: [new MapSource(loadSubdir(channelDir, platform, channel)), new MapSource(loadSubdir(channelDir, 'noarch', channel))],
  };
}
