/**
 * `parseArgs` for every command, with the message a user can act on: an unknown flag names the
 * closest known one ("did you mean --json?"), and conda's own flags we have no use for are named
 * as such instead of looking like typos.
 */
import { closest, distance } from 'fastest-levenshtein';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseArgsOptions, type OptionTable } from './command-table.js';

type Parsed<T extends OptionTable> = ReturnType<typeof parseArgs<{ args: string[]; options: ReturnType<typeof parseArgsOptions<T>>; allowPositionals: true; strict: true }>>;

export type ParseOutcome<T extends OptionTable> = { ok: true; values: Parsed<T>['values']; positionals: string[] } | { ok: false; message: string };

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
  const config = { args: [...argv], options: parseArgsOptions(table), allowPositionals: options.positionals !== false, strict: true } as const;
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
