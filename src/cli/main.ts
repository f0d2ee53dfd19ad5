/**
 * `conda-resolve [COMMAND] ...`: the command line. The commands are the rows of `COMMANDS`
 * (command-table.ts); a first word that is none of them is a spec, for `resolve`. Standard output
 * carries only the result; messages go to standard error. Exit status: 0 success, 1 a solve or
 * exporter failed, 2 a usage error.
 */
import { EXIT_USAGE, writeError, type CliIO } from './io.js';
import { TOOL_VERSION } from '../version.js';
import { runCommand } from './args.js';
import { COMMANDS, type CommandSpec } from './command-table.js';
import { removeTempFilesAtExit, removeTempFilesOnSignal } from './signal-cleanup.js';
import { USAGE } from './usage.js';

const VERSION_FLAGS = new Set(['--version', '-V']);
const HELP_WORDS = new Set(['--help', '-h', 'help']);

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const named = COMMANDS.find((c) => c.name === argv[0] && c.load !== undefined);
  // Every command but the services (which shut down on their own) may be stopped mid-download;
  // `serve` takes the signal cleanup while it starts (commands/serve.ts).
  removeTempFilesAtExit();
  const stopSignalCleanup = named?.service === true ? undefined : removeTempFilesOnSignal();
  try {
    return await dispatch(argv, named, io);
  } finally {
    // A process that runs several commands (the tests) keeps no listener per finished one.
    stopSignalCleanup?.();
  }
}

async function dispatch(argv: readonly string[], named: CommandSpec | undefined, io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    writeError(io, 'give package specs or an environment file (-f FILE); see conda-resolve --help');
    return EXIT_USAGE;
  }
  if (VERSION_FLAGS.has(first)) {
    io.stdout.write(`conda-resolve ${TOOL_VERSION}\n`);
    return 0;
  }
  if (HELP_WORDS.has(first)) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (named !== undefined) return runCommand(named, first, rest, io);
  return runCommand(COMMANDS.find((c) => c.name === 'resolve')!, 'resolve', argv, io);
}
