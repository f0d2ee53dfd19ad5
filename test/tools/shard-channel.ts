/**
 * Writes the sharded (CEP 16) layout of a channel folder, so tests and benchmarks can serve the
 * shared snapshots (or a generated channel) sharded, as `.zst`, or both.
 *
 *   npx tsx test/tools/shard-channel.ts --source DIR --out DIR [--subdir S]... [--zst] [--json]
 *       [--no-shards] [--hash compressed|decompressed] [--level N]
 *
 * `DIR` is one channel (`DIR/<subdir>/repodata.json`). Per subdir it writes, under `OUT/<subdir>/`:
 * - `repodata_shards.msgpack.zst`: zstd msgpack `{version: 1, info: {base_url, shards_base_url:
 *   "./shards/", subdir, created_at}, shards: {name: <32 raw sha256 bytes>}}`;
 * - `shards/<sha256>.msgpack.zst`: one zstd msgpack `{packages, "packages.conda", removed}` per
 *   package name, records as in repodata.json except `md5`/`sha256`, which become raw bytes;
 * - with `--zst`, `repodata.json.zst` (the JSON, byte for byte, compressed); with `--json`, a copy
 *   of `repodata.json`.
 *
 * This is what rattler-index writes: the shard's hash covers its compressed bytes (`--hash
 * decompressed` hashes the msgpack instead, as conda-index does), `base_url` is the monolithic
 * file's `info.base_url` or empty (the subdir itself), and shards live in `shards/` beside the index.
 * Records keep their document order (`packages` before `packages.conda`), so a sharded subdir gives
 * the same records in the same order as the monolithic file. The output is a pure function of the
 * input and the options (`created_at` is the source file's mtime unless given).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { encode } from '@msgpack/msgpack';
import { zstdCompress } from '../../repodata/zstd.js';

export interface ShardChannelOptions {
  /** A channel folder: `<source>/<subdir>/repodata.json`. */
  readonly source: string;
  /** Where to write the layout (may equal `source` only when that folder is writable). */
  readonly out: string;
  /** Subdirs to write; default every folder of `source` holding a repodata.json. */
  readonly subdirs?: readonly string[];
  /** Write the shard index and shards; default true. */
  readonly shards?: boolean;
  /** Write `repodata.json.zst`; default false. */
  readonly zst?: boolean;
  /** Copy `repodata.json`; default false. */
  readonly json?: boolean;
  /** What a shard's hash covers; default `compressed` (rattler-index). */
  readonly hash?: 'compressed' | 'decompressed';
  /** zstd level; default 3. */
  readonly level?: number;
  /** `info.created_at`; default the source file's mtime. */
  readonly createdAt?: string;
}

export interface ShardedSubdirSummary {
  readonly subdir: string;
  readonly names: number;
  readonly records: number;
  /** Sum of the compressed shard sizes. */
  readonly shardBytes: number;
  /** Size of the compressed shard index. */
  readonly indexBytes: number;
}

type RawRecord = Record<string, unknown>;

interface Shard {
  packages: Record<string, RawRecord>;
  'packages.conda': Record<string, RawRecord>;
  removed: string[];
}

const HEX = /^[0-9a-fA-F]*$/;

/** The subdirs of a channel folder: the folders holding a repodata.json. */
export function channelSubdirs(source: string): string[] {
  return readdirSync(source, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(source, entry.name, 'repodata.json')))
    .map((entry) => entry.name)
    .sort();
}

/** `md5`/`sha256` as CEP 16 stores them: raw bytes (left alone when not hex). */
function binaryDigests(record: RawRecord): RawRecord {
  const out: RawRecord = { ...record };
  for (const key of ['md5', 'sha256'] as const) {
    const value = record[key];
    if (typeof value === 'string' && value.length % 2 === 0 && HEX.test(value)) out[key] = new Uint8Array(Buffer.from(value, 'hex'));
  }
  return out;
}

/** `numpy-1.26.4-py39h1234567_0.conda` -> `numpy` (name, version and build are split at the last two dashes). */
function nameOfFilename(fn: string): string {
  const stem = fn.replace(/\.(conda|tar\.bz2)$/, '');
  const parts = stem.split('-');
  return parts.length >= 3 ? parts.slice(0, -2).join('-') : stem;
}

function objectOr(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

async function shardSubdir(options: ShardChannelOptions, subdir: string): Promise<ShardedSubdirSummary> {
  const sourceFile = join(options.source, subdir, 'repodata.json');
  const outDir = join(options.out, subdir);
  mkdirSync(outDir, { recursive: true });
  const level = options.level ?? 3;
  const text = readFileSync(sourceFile);
  if (options.json) copyFileSync(sourceFile, join(outDir, 'repodata.json'));
  if (options.zst) writeFileSync(join(outDir, 'repodata.json.zst'), await zstdCompress(text, level));
  if (options.shards === false) return { subdir, names: 0, records: 0, shardBytes: 0, indexBytes: 0 };

  const document = JSON.parse(text.toString('utf8')) as Record<string, unknown>;
  const info = objectOr(document.info) ?? {};
  const metadata = objectOr(document.metadata) ?? {};
  const shards = new Map<string, Shard>();
  const shardOf = (name: string): Shard => {
    let shard = shards.get(name);
    if (!shard) {
      shard = { packages: {}, 'packages.conda': {}, removed: [] };
      shards.set(name, shard);
    }
    return shard;
  };
  let records = 0;
  for (const section of ['packages', 'packages.conda'] as const) {
    for (const [fn, value] of Object.entries(objectOr(document[section]) ?? {})) {
      const record = objectOr(value);
      if (!record || typeof record.name !== 'string') throw new Error(`${sourceFile}: record ${fn} has no name`);
      shardOf(record.name)[section][fn] = binaryDigests(record);
      records++;
    }
  }
  if (Array.isArray(document.removed)) {
    for (const fn of document.removed) if (typeof fn === 'string') shardOf(nameOfFilename(fn)).removed.push(fn);
  }

  const shardsDir = join(outDir, 'shards');
  mkdirSync(shardsDir, { recursive: true });
  const hashes: Record<string, Uint8Array> = {};
  let shardBytes = 0;
  for (const name of [...shards.keys()].sort()) {
    const raw = encode(shards.get(name));
    const compressed = await zstdCompress(raw, level);
    const digest = createHash('sha256')
      .update(options.hash === 'decompressed' ? raw : compressed)
      .digest();
    hashes[name] = new Uint8Array(digest);
    writeFileSync(join(shardsDir, `${digest.toString('hex')}.msgpack.zst`), compressed);
    shardBytes += compressed.length;
  }
  const baseUrl = typeof info.base_url === 'string' ? info.base_url : '';
  const index = {
    version: 1,
    info: {
      base_url: baseUrl,
      shards_base_url: './shards/',
      subdir: typeof info.subdir === 'string' ? info.subdir : typeof metadata.subdir === 'string' ? metadata.subdir : subdir,
      created_at: options.createdAt ?? statSync(sourceFile).mtime.toISOString(),
    },
    shards: hashes,
  };
  const indexBytes = await zstdCompress(encode(index), level);
  writeFileSync(join(outDir, 'repodata_shards.msgpack.zst'), indexBytes);
  return { subdir, names: shards.size, records, shardBytes, indexBytes: indexBytes.length };
}

/** Write the layout of every requested subdir; returns what was written per subdir. */
export async function shardChannel(options: ShardChannelOptions): Promise<ShardedSubdirSummary[]> {
  const subdirs = options.subdirs ?? channelSubdirs(options.source);
  const out: ShardedSubdirSummary[] = [];
  for (const subdir of subdirs) out.push(await shardSubdir(options, subdir));
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      source: { type: 'string' },
      out: { type: 'string' },
      subdir: { type: 'string', multiple: true },
      zst: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'no-shards': { type: 'boolean', default: false },
      hash: { type: 'string', default: 'compressed' },
      level: { type: 'string', default: '3' },
    },
  });
  if (!values.source || !values.out) {
    console.error(
      'usage: shard-channel --source DIR --out DIR [--subdir S]... [--zst] [--json] [--no-shards] [--hash compressed|decompressed] [--level N]',
    );
    process.exitCode = 2;
    return;
  }
  if (values.hash !== 'compressed' && values.hash !== 'decompressed')
    throw new Error(`--hash must be compressed or decompressed, not ${values.hash}`);
  const started = performance.now();
  const summaries = await shardChannel({
    source: values.source,
    out: values.out,
    subdirs: values.subdir,
    zst: values.zst,
    json: values.json,
    shards: !values['no-shards'],
    hash: values.hash,
    level: Number(values.level),
  });
  for (const s of summaries) {
    console.log(
      `${s.subdir}: ${s.names} shards, ${s.records} records, shards ${(s.shardBytes / 1e6).toFixed(1)} MB, index ${(s.indexBytes / 1e3).toFixed(0)} kB`,
    );
  }
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
