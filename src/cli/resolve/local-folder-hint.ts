/**
 * `-c some/folder` is a channel name on the channel alias, as conda reads it, even when a folder of
 * that name is right here: a local channel needs `./some/folder`, an absolute path or a file://
 * URL. When the name also names a folder here that holds a channel (a subdir folder such as
 * `noarch/` or `linux-64/`), the user most likely meant the folder: say so before solving.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Channel } from '../../../vocabulary/channel.js';
import { KNOWN_SUBDIRS } from '../../../vocabulary/platform.js';

function looksLikeChannelFolder(path: string): boolean {
  try {
    if (!statSync(path).isDirectory()) return false;
  } catch {
    return false;
  }
  return KNOWN_SUBDIRS.some(
    (subdir) => existsSync(join(path, subdir, 'repodata.json')) || existsSync(join(path, subdir, 'repodata_shards.msgpack.zst')),
  );
}

/** One warning per `-c` name that is a channel folder here too; `channels` are the request's, parsed. */
export function localFolderHints(texts: readonly string[], channels: readonly Channel[], cwd: string): string[] {
  const hints: string[] = [];
  for (const raw of texts) {
    const text = raw.trim().replace(/\/+$/, '');
    // Only names: URLs, absolute and ./ paths are read as written.
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) || /^[./\\~]/.test(text) || /^[A-Za-z]:[\\/]/.test(text)) continue;
    if (!looksLikeChannelFolder(resolve(cwd, text))) continue;
    const channel = channels.find((c) => c.kind !== 'file' && c.name === text);
    const meant = channel ? ` the channel ${channel.baseUrl}` : ' a channel name';
    hints.push(`-c ${text} means${meant} (a name on the channel alias), not the folder ${text} here: did you mean ./${text}?`);
  }
  return hints;
}
