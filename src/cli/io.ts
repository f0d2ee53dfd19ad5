import { terminalSafe } from '../../vocabulary/control-characters.js';

/** The streams and process facts a command uses, injected so tests can run commands in-process. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** Exit statuses (docs/command-line.md lists them). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

// Messages quote repodata and files (names, builds, depends): control characters in them are
// escaped, so a channel cannot drive the terminal (window title, clear screen).
export function writeError(io: CliIO, message: string): void {
  io.stderr.write(`conda-resolve: error: ${terminalSafe(message)}\n`);
}

export function writeWarning(io: CliIO, message: string): void {
  io.stderr.write(`conda-resolve: warning: ${terminalSafe(message)}\n`);
}

/** A fact about the run on stderr (`conda-resolve: ...`), such as a plugin loaded. */
export function writeNote(io: CliIO, message: string): void {
  io.stderr.write(`conda-resolve: ${terminalSafe(message)}\n`);
}

/** Text meant to be read (a tree, a table), with control characters escaped; not exporter output. */
export function writeReadable(io: CliIO, text: string): void {
  io.stdout.write(terminalSafe(text));
}
