/**
 * `conda-resolve cache clean [--dry-run] [--cache-dir DIR] [--json]`: remove the repodata cache
 * (downloaded repodata, its indexes and the shards), like `pixi clean cache --repodata` or
 * `conda clean --index-cache`. `--dry-run` says what would go and removes nothing.
 */
import { defaultCacheDir } from '../../repodata/cache.js';
import { exitStatusOf, userMessage } from '../errors.js';
import { parseCommandArgs } from './args.js';
import { cacheUsage, removeCache, type CacheUsage } from './cache-usage.js';
import { CACHE_CLEAN_OPTIONS } from './command-table.js';
import { EXIT_OK, EXIT_USAGE, writeError, type CliIO } from './io.js';
import { formatBytes } from './run-report.js';

const USAGE = `usage: conda-resolve cache clean [--dry-run] [--cache-dir DIR] [--json]

Remove the repodata cache: downloaded repodata.json files, their indexes and CEP 16 shards
(the repodata/, shards/ and local/ folders of the cache directory, local/ holding the indexes of
local channels; nothing else in it is touched).

      --cache-dir DIR   the cache directory (default: CONDA_RESOLVE_CACHE_DIR, else the user
                        cache directory; see conda-resolve info)
      --dry-run         list what would be removed and remove nothing
      --json            print the result as JSON
  -h, --help            show this help
`;

export async function cacheCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const [action, ...rest] = argv;
  if (action === '--help' || action === '-h' || action === 'help') {
    io.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (action !== 'clean') {
    writeError(io, `${action === undefined ? 'give an action' : `unknown cache action "${action}"`}: the cache command has "clean" (conda-resolve cache clean [--dry-run]); see conda-resolve cache --help`);
    return EXIT_USAGE;
  }
  const parsed = parseCommandArgs(rest, CACHE_CLEAN_OPTIONS, { command: 'cache', positionals: false });
  if (!parsed.ok) {
    writeError(io, parsed.message);
    return EXIT_USAGE;
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return EXIT_OK;
  }
  const dir = values['cache-dir'] ?? defaultCacheDir(io.env);
  const dryRun = values['dry-run'] === true;
  let usage: CacheUsage;
  try {
    usage = await cacheUsage(dir);
    if (!dryRun) await removeCache(usage);
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
  if (values.json) {
    const parts = usage.parts.map((p) => ({ name: p.name, path: p.path, files: p.files, bytes: p.bytes }));
    io.stdout.write(`${JSON.stringify({ cache_dir: dir, dry_run: dryRun, removed: !dryRun && usage.files > 0, files: usage.files, bytes: usage.bytes, parts }, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines = [`Cache directory: ${dir}${usage.exists ? '' : ' (does not exist)'}`];
  for (const p of usage.parts) lines.push(`  ${`${p.name}/`.padEnd(10)} ${String(p.files).padStart(6)} ${p.files === 1 ? 'file ' : 'files'}  ${formatBytes(p.bytes).padStart(10)}`);
  const amount = `${usage.files} ${usage.files === 1 ? 'file' : 'files'} (${formatBytes(usage.bytes)})`;
  if (usage.files === 0) lines.push('The repodata cache is empty: nothing to remove.');
  else if (dryRun) lines.push(`Would remove ${amount}; nothing was removed (--dry-run).`);
  else lines.push(`Removed ${amount}.`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
