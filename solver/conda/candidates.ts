/**
 * Gathers one package name's records from the request's channels and decides which may be selected,
 * following conda and rattler (the rules are on `gatherCandidates`). Excluded records keep their
 * reason, which explanations show.
 */
import type { PackageRecord } from '../../vocabulary/record.js';
import type { ChannelPriority, RecordSource } from './types.js';

export interface CandidateRecord {
  readonly record: PackageRecord;
  /** Index of the record's channel in the request (0 = highest priority); -1 for virtual packages. */
  readonly channelIndex: number;
}

export interface GatheredCandidates {
  readonly selectable: CandidateRecord[];
  readonly excluded: { readonly candidate: CandidateRecord; readonly reason: string }[];
}

export interface GatherOptions {
  readonly channels: readonly { readonly name: string; readonly sources: readonly RecordSource[] }[];
  readonly virtualPackages: ReadonlyMap<string, readonly PackageRecord[]>;
  readonly channelPriority: ChannelPriority;
  readonly excludeNewer: number | undefined;
  /** Channel named by a root spec for this package name, if any. */
  readonly requestedChannel: (name: string) => string | undefined;
  /** Whether a record belongs to the channel a spec names. */
  readonly inChannel: (candidate: CandidateRecord, channel: string) => boolean;
}

/**
 * The records of `name` and which of them may be selected:
 *
 * - a name given as a virtual package comes only from the virtual packages;
 * - the same package as `.conda` and `.tar.bz2` in one subdir is one candidate, the `.conda`;
 * - a root spec that names a channel (`conda-forge::numpy`) excludes that name's records from
 *   every other channel;
 * - strict channel priority: the name comes only from the highest-priority channel that has it
 *   (after the rule above, so a channel-specific spec can reach a lower-priority channel);
 * - `excludeNewer`: records with a later timestamp are excluded (records without one are kept).
 */
export function gatherCandidates(name: string, options: GatherOptions): GatheredCandidates {
  const virtual = options.virtualPackages.get(name);
  if (virtual) return { selectable: virtual.map((record) => ({ record, channelIndex: -1 })), excluded: [] };

  const all: CandidateRecord[] = [];
  for (let channelIndex = 0; channelIndex < options.channels.length; channelIndex++) {
    for (const source of options.channels[channelIndex].sources) {
      const records = source.records(name);
      // Same package as .conda and .tar.bz2 in one subdir: keep the .conda. Only a source that
      // has both kinds of file for this name can hold such a pair.
      let conda = false;
      let bz2 = false;
      for (let i = 0; i < records.length && !(conda && bz2); i++) {
        if (records[i].fn.endsWith('.conda')) conda = true;
        else bz2 = true;
      }
      if (!(conda && bz2)) {
        for (let i = 0; i < records.length; i++) all.push({ record: records[i], channelIndex });
        continue;
      }
      const byStem = new Map<string, number>();
      for (let i = 0; i < records.length; i++) {
        const record = records[i];
        const stem = fileStem(record.fn);
        const seen = byStem.get(stem);
        if (seen === undefined) {
          byStem.set(stem, all.length);
          all.push({ record, channelIndex });
        } else if (preferArchive(record.fn, all[seen].record.fn)) {
          all[seen] = { record, channelIndex };
        }
      }
    }
  }

  const selectable: CandidateRecord[] = [];
  const excluded: GatheredCandidates['excluded'] = [];
  const wantedChannel = options.requestedChannel(name);
  const inWanted: CandidateRecord[] = [];
  for (const candidate of all) {
    if (wantedChannel !== undefined && !options.inChannel(candidate, wantedChannel)) {
      excluded.push({ candidate, reason: `is not in the requested channel ${wantedChannel}` });
    } else {
      inWanted.push(candidate);
    }
  }
  let firstChannel = -1;
  for (const candidate of inWanted) {
    if (firstChannel < 0 || candidate.channelIndex < firstChannel) firstChannel = candidate.channelIndex;
  }
  for (const candidate of inWanted) {
    if (options.channelPriority === 'strict' && candidate.channelIndex !== firstChannel) {
      const winner = options.channels[firstChannel].name;
      excluded.push({
        candidate,
        reason: `comes from ${options.channels[candidate.channelIndex].name}, but strict channel priority takes ${name} only from ${winner}`,
      });
      continue;
    }
    const timestamp = candidate.record.timestamp;
    if (options.excludeNewer !== undefined && timestamp !== null && timestamp > options.excludeNewer) {
      excluded.push({ candidate, reason: `was uploaded after ${new Date(options.excludeNewer).toISOString()} (exclude-newer)` });
      continue;
    }
    selectable.push(candidate);
  }
  return { selectable, excluded };
}

function fileStem(fn: string): string {
  if (fn.endsWith('.conda')) return fn.slice(0, -6);
  if (fn.endsWith('.tar.bz2')) return fn.slice(0, -8);
  return fn;
}

/** True when `fn` should replace `current` (a .conda replaces a .tar.bz2 of the same package). */
function preferArchive(fn: string, current: string): boolean {
  return fn.endsWith('.conda') && !current.endsWith('.conda');
}
