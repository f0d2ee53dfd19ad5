/**
 * Independent checks of a solved environment against the channel files themselves (not against
 * our own output): each package is looked up by file name in `<channel>/<subdir>/repodata.json`,
 * and its dependencies and constraints, as the channel publishes them, are checked against the rest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import type { PackageRecord } from '../../vocabulary/record.js';

interface RawEntry {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends?: string[];
  constrains?: string[] | null;
  timestamp?: number;
}

export interface ChannelFiles {
  /** `subdir/fn` -> the record as the channel publishes it. */
  readonly byFile: ReadonlyMap<string, PackageRecord>;
  readonly all: readonly PackageRecord[];
}

export function loadChannelFiles(channelDir: string, subdirs: readonly string[]): ChannelFiles {
  const byFile = new Map<string, PackageRecord>();
  for (const subdir of subdirs) {
    const doc = JSON.parse(readFileSync(join(channelDir, subdir, 'repodata.json'), 'utf8')) as Record<
      string,
      Record<string, RawEntry> | undefined
    >;
    for (const key of ['packages', 'packages.conda']) {
      for (const [fn, raw] of Object.entries(doc[key] ?? {})) {
        byFile.set(`${subdir}/${fn}`, {
          name: raw.name,
          version: raw.version,
          build: raw.build,
          build_number: raw.build_number,
          channel: 'test',
          subdir,
          fn,
          url: `${subdir}/${fn}`,
          md5: null,
          sha256: null,
          size: null,
          depends: raw.depends ?? [],
          constrains: raw.constrains ?? [],
          track_features: [],
          features: null,
          license: null,
          license_family: null,
          noarch: null,
          timestamp: raw.timestamp ?? null,
        });
      }
    }
  }
  return { byFile, all: [...byFile.values()] };
}

/** The channel's record of a package URL (`.../<subdir>/<fn>`); throws when the channel has none. */
export function channelRecord(files: ChannelFiles, url: string): PackageRecord {
  const parts = url.split('/');
  const key = `${parts.at(-2)}/${parts.at(-1)}`;
  const record = files.byFile.get(key);
  if (!record) throw new Error(`the channel files have no ${key}`);
  return record;
}

/** What is wrong with an environment: unmet dependencies, violated constraints, duplicate names. */
export function environmentProblems(records: readonly PackageRecord[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, PackageRecord>();
  for (const record of records) {
    if (byName.has(record.name)) problems.push(`${record.name} appears twice`);
    byName.set(record.name, record);
  }
  for (const record of records) {
    for (const dep of record.depends) {
      const spec = parseMatchSpec(dep);
      if (spec.name.startsWith('__')) continue;
      const target = byName.get(spec.name);
      if (!target || !spec.matches(target))
        problems.push(`${record.name} ${record.version} needs "${dep}": ${target ? `has ${target.version} ${target.build}` : 'missing'}`);
    }
    for (const constraint of record.constrains) {
      const spec = parseMatchSpec(constraint);
      const target = byName.get(spec.name);
      if (target && !spec.matches(target))
        problems.push(`${record.name} ${record.version} constrains "${constraint}": has ${target.version}`);
    }
  }
  return problems;
}

/** Whether any record of the environment depends on `name`. */
export function isRequired(records: readonly PackageRecord[], name: string): boolean {
  return records.some((r) => r.depends.some((d) => parseMatchSpec(d).name === name));
}
