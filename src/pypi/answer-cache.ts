/**
 * Mixed conda+PyPI answers in the server's solve cache (in memory, or Redis shared by replicas).
 *
 * The key holds what the request fixes: the conda part's key (specs, options, the identity of each
 * conda index, computed by the store as for its conda entries), the platform, the PyPI root
 * requirements, the indexes, find-links, the index strategy, the pre-release mode, the mapping and
 * the resolution strategy. The PyPI index state cannot be known before fetching, so the entry
 * records it: the state of every project page the solve read (a hash of what each page lists). A
 * lookup fetches those pages again (a revalidation, or nothing while their max-age lasts) and serves
 * the entry only when every one is unchanged; the metadata of a listed file never changes, so it is
 * not fetched. A changed page misses, and the request is solved again.
 *
 * An entry may have been written by another program: it is served only when its shape is right,
 * its conda records are records of the request's channels (as conda entries are checked), and each
 * PyPI record names a file (URL and sha256) that the request's indexes list for that project now.
 */
import { createHash } from 'node:crypto';
import type { MixedSolveOutcome } from '../../solver/pypi/solve.js';
import type { PypiRecord } from '../../vocabulary/pypi-record.js';
import { normalizePypiName } from '../../vocabulary/pypi/name.js';
import type { PypiRequirement } from '../../vocabulary/pypi/requirement.js';
import type { ResolutionStrategy } from '../../vocabulary/pypi-record.js';
import { fromTheseChannels, isOutcome } from '../cluster/solve-job.js';
import type { MixedAnswerStore, PlatformSolveInput } from '../solving/types.js';
import type { PypiDataStore } from './data.js';
import type { PreparedPypi } from './request.js';

const ENTRY_VERSION = 1;

interface Entry {
  readonly v: number;
  /** Normalised project name -> page state when the answer was solved. */
  readonly pages: Readonly<Record<string, string>>;
  readonly outcome: MixedSolveOutcome;
}

export interface AnswerKeyParts {
  readonly platform: string;
  readonly requirements: readonly PypiRequirement[];
  readonly pypi: PreparedPypi;
  readonly resolution: ResolutionStrategy;
  /** A previous lock's PyPI pins: they steer the solve, so an answer without them is another answer. */
  readonly locked?: ReadonlyMap<string, string>;
}

/** The entry's key, or null when the conda part has no identity (then nothing is cached). */
export function mixedAnswerKey(store: MixedAnswerStore, input: PlatformSolveInput, parts: AnswerKeyParts): string | null {
  const conda = store.condaKey(input);
  if (conda === null) return null;
  const { pypi } = parts;
  const canonical = JSON.stringify([
    'mixed',
    ENTRY_VERSION,
    conda,
    parts.platform,
    parts.requirements.map(String),
    pypi.indexUrl,
    pypi.extraIndexUrls,
    pypi.findLinks,
    pypi.indexStrategy,
    pypi.prerelease,
    pypi.mappingOverrides,
    parts.resolution,
    [...(parts.locked ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** The cached answer when its pages are unchanged and it checks out, else null (a miss, counted). */
export async function cachedMixedAnswer(
  store: MixedAnswerStore,
  key: string,
  input: PlatformSolveInput,
  data: PypiDataStore,
  options: { readonly maxProjects: number; readonly signal?: AbortSignal },
): Promise<MixedSolveOutcome | null> {
  const text = await store.get(key);
  const entry = text === null ? null : decodeEntry(text);
  let answer: MixedSolveOutcome | null = null;
  if (entry) {
    const names = Object.keys(entry.pages);
    const now = await Promise.all(names.map((name) => data.pageIdentity(name, options)));
    if (names.every((name, i) => entry.pages[name] === now[i])) answer = checked(entry.outcome, input, data);
  }
  store.counted(answer !== null);
  return answer;
}

/** Keeps an answer with the page state it was solved against. */
export async function rememberMixedAnswer(
  store: MixedAnswerStore,
  key: string,
  outcome: MixedSolveOutcome,
  data: PypiDataStore,
): Promise<void> {
  const entry: Entry = { v: ENTRY_VERSION, pages: data.pageIdentities(), outcome };
  await store.set(key, JSON.stringify(entry));
}

function decodeEntry(text: string): Entry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const e = value as Record<string, unknown>;
  if (e.v !== ENTRY_VERSION || typeof e.pages !== 'object' || e.pages === null || Array.isArray(e.pages)) return null;
  if (!Object.values(e.pages).every((v) => typeof v === 'string')) return null;
  if (typeof e.outcome !== 'object' || e.outcome === null) return null;
  return value as Entry;
}

/** The entry's outcome with its conda records taken from the request's own indexes, or null. */
function checked(outcome: MixedSolveOutcome, input: PlatformSolveInput, data: PypiDataStore): MixedSolveOutcome | null {
  if (outcome.kind === 'unsatisfiable') {
    // The entry was parsed from JSON already: its parts are checked in place, not written and read again.
    const part: unknown = { kind: outcome.kind, message: outcome.message, explanation: outcome.explanation };
    return isOutcome(part) && part.kind === 'unsatisfiable'
      ? { kind: 'unsatisfiable', message: part.message, explanation: part.explanation }
      : null;
  }
  if (outcome.kind !== 'solved' || !Array.isArray(outcome.pypi)) return null;
  const part: unknown = { kind: 'solved', records: outcome.records };
  const conda = isOutcome(part) ? fromTheseChannels(part, input) : null;
  if (conda?.kind !== 'solved') return null;
  const pypi: PypiRecord[] = [];
  for (const record of outcome.pypi as unknown[]) {
    const own = listedRecord(record, data);
    if (!own) return null;
    pypi.push(own);
  }
  return { kind: 'solved', records: [...conda.records], pypi };
}

/** `record` when it names a file the request's indexes list for its project now. */
function listedRecord(record: unknown, data: PypiDataStore): PypiRecord | null {
  if (typeof record !== 'object' || record === null) return null;
  const r = record as Record<string, unknown>;
  if (
    r.manager !== 'pip' ||
    typeof r.name !== 'string' ||
    typeof r.version !== 'string' ||
    typeof r.url !== 'string' ||
    typeof r.sha256 !== 'string'
  )
    return null;
  if (!Array.isArray(r.requires_dist) || !r.requires_dist.every((d) => typeof d === 'string')) return null;
  const files = data.files(normalizePypiName(r.name));
  const file = files?.find((f) => f.url === r.url && f.hashes.sha256 === r.sha256);
  return file ? (record as PypiRecord) : null;
}
