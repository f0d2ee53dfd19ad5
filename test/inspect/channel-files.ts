/**
 * The shared snapshots' own files, read straight from repodata.json, so answers can be checked
 * against what the channel publishes rather than against our own parsing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { dependencyName } from '../../src/inspect/index.js';
import { CHANNELS_DIR } from '../helpers/shared.js';

export interface RawRecord {
  name: string;
  version: string;
  build: string;
  depends: string[];
}

/** Raw records of a snapshot channel by `subdir/filename`. */
export function channelFiles(folder: string, subdirs: readonly string[]): Map<string, RawRecord> {
  const out = new Map<string, RawRecord>();
  for (const subdir of subdirs) {
    const data = JSON.parse(readFileSync(join(CHANNELS_DIR, folder, subdir, 'repodata.json'), 'utf8')) as Record<
      string,
      Record<string, RawRecord> | undefined
    >;
    for (const key of ['packages', 'packages.conda'])
      for (const [fn, record] of Object.entries(data[key] ?? {})) out.set(`${subdir}/${fn}`, record);
  }
  return out;
}

/** The channel's record of each selected package (by subdir and the file name its URL ends in). */
export function selectedRecords(
  files: ReadonlyMap<string, RawRecord>,
  packages: readonly { name: string; subdir: string; url: string }[],
): Map<string, RawRecord> {
  const selected = new Map(packages.map((p) => [p.name, files.get(`${p.subdir}/${p.url.split('/').pop()}`)!]));
  expect([...selected.values()].every(Boolean)).toBe(true);
  return selected;
}

/** The edge is a real `depends` entry of the parent's selected record, and it names the child. */
export function expectRealEdge(selected: ReadonlyMap<string, RawRecord>, parent: string, spec: string, child: string): void {
  expect(selected.get(parent)!.depends, `${parent} -> ${spec}`).toContain(spec);
  expect(dependencyName(spec)).toBe(child);
}
