/**
 * `conda-resolve diff OLD NEW [--json] [-e NAME] [-p PLATFORM]...`: what changed between two inputs
 * that carry exact records (pixi.lock, conda-lock.yml, @EXPLICIT, the native JSON result), per
 * platform. Exit 0 whatever the difference (as `git diff` without `--exit-code`); 2 for bad usage.
 */
import type { CommandArgs } from '../args.js';
import type { DIFF_OPTIONS } from '../command-table.js';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exitStatusOf, InputFileError, userMessage } from '../../errors.js';
import { diffEnvironments, diffJson, onlyPlatforms, renderDiff, type ExactEnvironments } from '../../lock/diff.js';
import { renderDiffMarkdown } from '../../lock/diff-markdown.js';
import { readExactRecords } from '../../lock/exact-records.js';
import { EXIT_OK, EXIT_USAGE, writeError, writeReadable, type CliIO } from '../io.js';

export const DIFF_USAGE = `usage: conda-resolve diff OLD NEW [--json | --format markdown] [-e NAME] [-p PLATFORM]...

Show what changed between two environments with exact packages, per platform: packages added,
removed, upgraded, downgraded, rebuilt (same version, another build) and moved (same build from
another channel). OLD and NEW are pixi.lock, conda-lock.yml, @EXPLICIT files or conda-resolve's
JSON result, in any mix.

  -e, --environment NAME   the pixi.lock environment to compare (default: default)
  -p, --platform PLATFORM  compare only these platforms; repeatable
      --json               print the changes as JSON
      --format FORMAT      table (default), json, or markdown: per platform, the top-level
                           packages apart from the ones that came with them, in tables (long
                           ones folded in <details>), for a pull request or a job summary
      --requested NAME     markdown: a package the request asked for (repeatable); without it,
                           the packages nothing else depends on stand for them
  -h, --help               show this help
`;

export const usage = DIFF_USAGE;

export async function run({ values, positionals }: CommandArgs<typeof DIFF_OPTIONS>, io: CliIO): Promise<number> {
  if (positionals.length !== 2) {
    writeError(io, `diff takes two files, OLD and NEW (got ${positionals.length}); see conda-resolve diff --help`);
    return EXIT_USAGE;
  }
  const format = values.json ? 'json' : (values.format ?? 'table');
  if (!['table', 'json', 'markdown'].includes(format) || (values.json && values.format !== undefined && values.format !== 'json')) {
    writeError(io, `--format must be table, json or markdown${values.json ? ' (and agree with --json)' : ''}, not "${values.format}"`);
    return EXIT_USAGE;
  }
  try {
    const [before, after] = await Promise.all(positionals.map((path) => readExact(path, io.cwd, values.environment)));
    const diff = onlyPlatforms(diffEnvironments(before!, after!), values.platform);
    if (format === 'markdown')
      io.stdout.write(renderDiffMarkdown(diff, before!, after!, values.requested?.length ? { requested: new Set(values.requested) } : {}));
    else if (format === 'json') io.stdout.write(`${JSON.stringify(diffJson(diff), null, 2)}\n`);
    else writeReadable(io, renderDiff(diff));
    return EXIT_OK;
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
}

async function readExact(path: string, cwd: string, environment: string | undefined): Promise<ExactEnvironments> {
  let content: string;
  try {
    // Only a regular file: opening a FIFO nobody writes to waits forever (and a device never ends).
    const info = await stat(resolve(cwd, path));
    if (!info.isFile() && !info.isDirectory()) {
      throw new InputFileError(
        'CR_ERR_INPUT_FILE_UNREADABLE',
        path,
        `Cannot read file "${path}": it is ${info.isFIFO() ? 'a FIFO (named pipe)' : info.isSocket() ? 'a socket' : 'a device'}, not a regular file; diff reads lock files and @EXPLICIT files`,
      );
    }
    content = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFileError(
      'CR_ERR_INPUT_FILE_UNREADABLE',
      path,
      `Cannot read file "${path}": ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable')}`,
    );
  }
  return readExactRecords(path, content, { environment });
}
