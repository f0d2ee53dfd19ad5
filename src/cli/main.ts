/**
 * `conda-resolve [resolve] ...`, `formats`, `config`, `info`, `cache clean`, `completion`, `serve`: the command line
 * (docs/command-line.md). Standard output carries only the result; messages go to standard error.
 * Exit status: 0 success, 1 a solve or exporter failed, 2 a usage error.
 */
import { EXIT_USAGE, writeError, type CliIO } from './io.js';
import { TOOL_VERSION } from '../version.js';
import { removeTempFilesAtExit, removeTempFilesOnSignal } from './signal-cleanup.js';
import { USAGE } from './usage.js';

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  // Every command but the services (which shut down on their own) may be stopped mid-download;
  // `serve` takes the signal cleanup while it starts (serve-command.ts). The listeners go when the
  // command returns: a caller running many commands in one process would otherwise pile them up.
  removeTempFilesAtExit();
  const stopSignalCleanup = argv[0] !== 'serve' && argv[0] !== 'worker' ? removeTempFilesOnSignal() : undefined;
  try {
    return await dispatch(argv, io);
  } finally {
    stopSignalCleanup?.();
  }
}

async function dispatch(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  switch (first) {
    case '--version':
    case '-V':
      io.stdout.write(`conda-resolve ${TOOL_VERSION}\n`);
      return 0;
    case '--help':
    case '-h':
    case 'help':
      io.stdout.write(USAGE);
      return 0;
    case 'formats': {
      const { formatsCommand } = await import('./formats-command.js');
      return formatsCommand(rest, io);
    }
    case 'config': {
      const { configCommand } = await import('./config-command.js');
      return configCommand(rest, io);
    }
    case 'info': {
      const { infoCommand } = await import('./info-command.js');
      return infoCommand(rest, io);
    }
    case 'cache': {
      const { cacheCommand } = await import('./cache-command.js');
      return cacheCommand(rest, io);
    }
    case 'completion': {
      const { completionCommand } = await import('./completion-command.js');
      return completionCommand(rest, io);
    }
    case 'serve': {
      const { serveCommand } = await import('./serve-command.js');
      return serveCommand(rest, io);
    }
    case 'diff': {
      const { diffCommand } = await import('./diff-command.js');
      return diffCommand(rest, io);
    }
    case 'audit': {
      const { auditCommand } = await import('./audit-command.js');
      return auditCommand(rest, io);
    }
    case 'tree':
    case 'why':
    case 'why-not': {
      const { inspectCommand } = await import('./inspect-command.js');
      return inspectCommand(first, rest, io);
    }
    case 'worker': {
      const { workerCommand } = await import('./worker-command.js');
      return workerCommand(rest, io);
    }
    case 'resolve': {
      const { resolveCommand } = await import('./resolve-command.js');
      return resolveCommand(rest, io);
    }
    case undefined:
      writeError(io, 'give package specs or an environment file (-f FILE); see conda-resolve --help');
      return EXIT_USAGE;
    default: {
      const { resolveCommand } = await import('./resolve-command.js');
      return resolveCommand(argv, io);
    }
  }
}
