/**
 * conda's and pixi's flags on a resolve, and what each means here:
 * - `--json`: native JSON on standard output (already the default); with `-o FILE` the file gets
 *   native JSON too, whatever its name; it cannot be combined with `--format`.
 * - `--dry-run`: we never install anything, so a resolve is always "dry"; with `-o FILE` the file is
 *   not written (the summary says what would have been).
 * - `-n NAME`: conda's environment name; nothing is created, so it only names the environment in
 *   the summary line.
 * - `--no-progress`: the same as `-q`.
 * - `-v`/`-vv`: how much is logged (see run-report.ts).
 * And a word that is one of our commands is never read as a package spec.
 */
import { COMMAND_NAMES } from '../command-table.js';

export interface HabitFlags {
  readonly json?: boolean | undefined;
  readonly format?: string | undefined;
  readonly verbose?: readonly boolean[] | undefined;
  readonly diff?: boolean | undefined;
}

/** A usage error's message, or undefined when the flags and specs make sense together. */
export function checkResolveArgs(values: HabitFlags, positionals: readonly string[]): string | undefined {
  if (values.json && values.format !== undefined && !values.diff) {
    return `--json asks for native JSON and --format for "${values.format}": give one of them`;
  }
  const command = positionals.find((word) => COMMAND_NAMES.has(word));
  if (command !== undefined) {
    return (
      `"${command}" is a conda-resolve command, not a package spec: a command goes first ` +
      `("conda-resolve ${command} ..."); to solve a package of that name, write it as a spec such as "${command} *"`
    );
  }
  return undefined;
}

export function verbosity(values: HabitFlags): number {
  return values.verbose?.length ?? 0;
}
