/**
 * pixi's `mirrors` table: a channel URL prefix -> the URLs that serve the same files, tried in
 * order (the original is tried only when it is listed too). The longest matching prefix wins.
 * Only the request URL changes: records, caches and lock files keep the canonical channel URL.
 */
import { removeCredentials } from '../../vocabulary/channel.js';

export type MirrorTable = Readonly<Record<string, readonly string[]>>;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The URLs to try for `url`, in order: its mirrors, or just `url` when no prefix matches. */
export function mirrorUrls(url: string, table: MirrorTable | undefined): string[] {
  if (table === undefined) return [url];
  const plain = removeCredentials(url);
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const prefix = trimSlash(key);
    if ((plain === prefix || plain.startsWith(`${prefix}/`)) && (best === undefined || prefix.length > trimSlash(best).length)) best = key;
  }
  if (best === undefined || table[best]!.length === 0) return [url];
  const rest = plain.slice(trimSlash(best).length);
  // The original URL (with its credentials) when it is listed as its own mirror.
  return table[best]!.map((m) => (trimSlash(m) === trimSlash(best) ? url : `${trimSlash(m)}${rest}`));
}
