/**
 * The opening every command shares: `parseArgs` with the command's option table, a usage error a
 * user can act on (an unknown flag names the closest known one: "did you mean --json?"), and
 * `--help`. The command's module then gets the parsed values.
 */
import { closest, distance } from 'fastest-levenshtein';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandSpec, OptionTable } from './command-table.js';
import { EXIT_OK, EXIT_USAGE, writeError, type CliIO } from './io.js';

/** The table without the `help` texts, as `node:util` `parseArgs` takes it. */
export function parseArgsOptions<T extends OptionTable>(table: T): { [K in keyof T]: Omit<T[K], 'help' | 'value'> } {
  return Object.fromEntries(Object.entries(table).map(([name, { help: _help, value: _value, ...spec }]) => [name, spec])) as {
    [K in keyof T]: Omit<T[K], 'help' | 'value'>;
  };
}

type Parsed<T extends OptionTable> = ReturnType<
  typeof parseArgs<{ args: string[]; options: ReturnType<typeof parseArgsOptions<T>>; allowPositionals: true; strict: true }>
>;

/** What a command's `run` receives. */
export interface CommandArgs<T extends OptionTable> {
  readonly values: Parsed<T>['values'];
  readonly positionals: string[];
}

export type ParseOutcome<T extends OptionTable> = ({ ok: true } & CommandArgs<T>) | { ok: false; message: string };

/** Run `spec`'s command on `argv` (what follows the command's name). */
export async function runCommand(spec: CommandSpec, name: string, argv: readonly string[], io: CliIO): Promise<number> {
  let rest = argv;
  if (spec.action !== undefined) {
    const [action, ...after] = argv;
    if (action !== spec.action && !(action === '--help' || action === '-h' || action === 'help')) {
      const what = action === undefined ? 'give an action' : `unknown ${name} action "${action}"`;
      writeError(
        io,
        `${what}: the ${name} command has "${spec.action}" (conda-resolve ${name} ${spec.action}); see conda-resolve ${name} --help`,
      );
      return EXIT_USAGE;
    }
    rest = action === spec.action ? after : ['--help'];
  }
  const parsed = parseCommandArgs(rest, spec.options, { command: name, positionals: spec.positionals });
  if (!parsed.ok) {
    writeError(io, parsed.message);
    return EXIT_USAGE;
  }
  const module = await spec.load!();
  if (parsed.values.help === true) {
    io.stdout.write(module.usage);
    return EXIT_OK;
  }
  return module.run(parsed, io, name);
}

/** The spellings a user may type: `--name` for every option, `-x` for the short ones. */
function spellings(table: OptionTable): string[] {
  const names: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    names.push(`--${name}`);
    if (spec.short) names.push(`-${spec.short}`);
  }
  return names;
}

/** The known flag nearest to `given`, when it is near enough to be what was meant. */
export function suggestFlag(given: string, table: OptionTable): string | undefined {
  const flag = given.split('=')[0]!;
  const candidates = spellings(table).filter((s) => s.startsWith('--') === flag.startsWith('--'));
  if (candidates.length === 0) return undefined;
  // A shortened flag (--dry for --dry-run) names the one flag it begins.
  const extended = candidates.filter((c) => c.startsWith(flag));
  if (extended.length === 1) return extended[0];
  const best = closest(flag, candidates);
  // Two edits for short names, about a third of the name for longer ones.
  const allowed = Math.max(2, Math.floor(flag.replace(/^-+/, '').length / 3));
  return distance(flag, best) <= allowed ? best : undefined;
}

export function parseCommandArgs<T extends OptionTable>(
  argv: readonly string[],
  table: T,
  options: { command: string; positionals?: boolean },
): ParseOutcome<T> {
  const config = {
    args: [...argv],
    options: parseArgsOptions(table),
    allowPositionals: options.positionals !== false,
    strict: true,
  } as const;
  try {
    const { values, positionals } = parseArgs(config as ParseArgsConfig & typeof config);
    return { ok: true, values: values as Parsed<T>['values'], positionals };
  } catch (error) {
    return { ok: false, message: explain(error as Error & { code?: string }, table, options.command) };
  }
}

function explain(error: Error & { code?: string }, table: OptionTable, command: string): string {
  const help = command === 'resolve' ? 'conda-resolve --help' : `conda-resolve ${command} --help`;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'([^']+)'/.exec(error.message)?.[1] ?? '';
    const suggestion = suggestFlag(given, table);
    const hint = suggestion ? ` (did you mean ${suggestion}?)` : '';
    return `Unknown option '${given}'${hint}; see ${help}`;
  }
  // parseArgs' advice about '--' fits positionals, which are specs here: drop it.
  return `${error.message.replace(/\. To specify a positional argument.*$/s, '')}; see ${help}`;
}
