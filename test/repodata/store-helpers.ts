/**
 * Shared pieces of the repodata fetching tests: temp cache dirs, a snapshot of a cache dir (to
 * prove a failure left it as it was), layouts of the shared snapshots (plain JSON only, zstd only,
 * sharded), and records made comparable across channels served from different URLs.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SubdirIndex } from '../../repodata/types.js';
import type { PackageRecord } from '../../vocabulary/record.js';

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `cr-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every file under `dir` with the sha256 of its content, sorted: equal snapshots mean an untouched cache. */
export function snapshotDir(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string, rel: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(at);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(at, name);
      const relPath = rel ? `${rel}/${name}` : name;
      if (statSync(path).isDirectory()) walk(path, relPath);
      else out.push(`${relPath} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Answer 404 for paths matching `hide`, so a folder with json + zst serves only one layout. */
export function hidePaths(hide: RegExp): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (!hide.test(path)) return false;
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return true;
  };
}

/** A record with its channel-specific parts (channel name, URL prefix) made relative. */
export function portable(record: PackageRecord, channelBase: string): PackageRecord {
  return {
    ...record,
    channel: '<channel>',
    url: record.url.startsWith(channelBase) ? `<base>${record.url.slice(channelBase.length)}` : record.url,
  };
}

/** name -> portable records, for every name of an index (which must have them all loaded). */
export function allRecords(index: SubdirIndex): Map<string, PackageRecord[]> {
  const out = new Map<string, PackageRecord[]>();
  for (const name of [...index.names()].sort())
    out.set(
      name,
      index.records(name).map((r) => portable(r, index.channel.baseUrl)),
    );
  return out;
}

export interface Deferred<T = void> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

/**
 * A promise that a test server (or the code under test) fires, so a test waits for the event it
 * needs (a request arrived, a second one joined) instead of sleeping and hoping.
 */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * Lets an index's scheduled record-cache save run: it is an immediate, queued before this one,
 * and writes synchronously. (A 5 ms timer raced it: on a loaded machine the loop can reach its
 * timers 5 ms late, and then they run before that iteration's immediates.)
 */
export function recordCacheSaved(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
