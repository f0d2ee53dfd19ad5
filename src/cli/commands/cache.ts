/**
 * `conda-resolve cache clean [--dry-run] [--cache-dir DIR] [--json]`: remove the repodata cache
 * (downloaded repodata, its indexes and the shards), like `pixi clean cache --repodata` or
 * `conda clean --index-cache`. `--dry-run` says what would go and removes nothing.
 */
import { defaultCacheDir } from '../../../repodata/cache.js';
import { exitStatusOf, userMessage } from '../../errors.js';
import type { CommandArgs } from '../args.js';
import { cacheUsage, removeCache, type CacheUsage } from '../cache-usage.js';
import type { CACHE_CLEAN_OPTIONS } from '../command-table.js';
import { EXIT_OK, writeError, type CliIO } from '../io.js';
import { formatBytes } from '../resolve/run-report.js';

const USAGE = `usage: conda-resolve cache clean [--dry-run] [--cache-dir DIR] [--json]

Remove the repodata cache: downloaded repodata.json files, their indexes and CEP 16 shards
(the repodata/, shards/ and local/ folders of the cache directory, local/ holding the indexes of
local channels, and pypi/ when present). Only files the cache wrote go: a folder counts as the
cache's when it holds the CACHEDIR.TAG the cache wrote there, and in it only files named as the
cache names them; links below the cache directory are never followed. Nothing else is touched.

      --cache-dir DIR   the cache directory (default: CONDA_RESOLVE_CACHE_DIR, else the user
                        cache directory; see conda-resolve info)
      --dry-run         list what would be removed and remove nothing
      --json            print the result as JSON
  -h, --help            show this help
`;

const SKIPPED = {
  symlink: 'a link (never followed)',
  'not-a-directory': 'not a folder',
  unmarked:
    'it holds no CACHEDIR.TAG written by conda-resolve, so it is not known to be the cache (an older cache is marked by the next resolve that writes to it)',
} as const;

export const usage = USAGE;

export async function run({ values }: CommandArgs<typeof CACHE_CLEAN_OPTIONS>, io: CliIO): Promise<number> {
  const dir = values['cache-dir'] ?? defaultCacheDir(io.env);
  const dryRun = values['dry-run'] === true;
  let usage: CacheUsage;
  let removed = { files: 0, bytes: 0 };
  try {
    usage = await cacheUsage(dir);
    if (!dryRun) removed = await removeCache(usage);
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
  // The real run reports what it removed; the dry run what the same plan would remove.
  const count = dryRun ? { files: usage.files, bytes: usage.bytes } : removed;
  if (values.json) {
    const parts = usage.parts.map((p) => ({
      name: p.name,
      path: p.path,
      files: p.files,
      bytes: p.bytes,
      left_alone: p.skipped ?? (p.others > 0 ? `${p.others} other entries` : null),
    }));
    io.stdout.write(
      `${JSON.stringify({ cache_dir: dir, link_target: usage.linkTarget, dry_run: dryRun, removed: !dryRun && removed.files > 0, files: count.files, bytes: count.bytes, parts }, null, 2)}\n`,
    );
    return EXIT_OK;
  }
  const where = usage.linkTarget ? ` (a link to ${usage.linkTarget})` : '';
  const lines = [`Cache directory: ${dir}${where}${usage.exists ? '' : ' (does not exist)'}`];
  for (const p of usage.parts) {
    const head = `  ${`${p.name}/`.padEnd(10)} `;
    if (p.skipped) lines.push(`${head}left alone: ${SKIPPED[p.skipped]}`);
    else
      lines.push(
        `${head}${String(p.files).padStart(6)} ${p.files === 1 ? 'file ' : 'files'}  ${formatBytes(p.bytes).padStart(10)}${p.others > 0 ? `  (${p.others} other ${p.others === 1 ? 'entry' : 'entries'} left alone: not written by the cache)` : ''}`,
      );
  }
  const amount = `${count.files} ${count.files === 1 ? 'file' : 'files'} (${formatBytes(count.bytes)})`;
  if (usage.files === 0) lines.push('The repodata cache is empty: nothing to remove.');
  else if (dryRun) lines.push(`Would remove ${amount}; nothing was removed (--dry-run).`);
  else lines.push(`Removed ${amount}.`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
