/**
 * `conda-resolve completion bash|zsh|fish`: a completion script for the shell, written from the
 * command table (command-table.ts), so it offers exactly the commands and flags the parser knows.
 * Values complete too: platforms, format names and aliases (plugins included, as installed when
 * the script is made), channel priorities, shells, file names for -f/-o/--condarc and folders for
 * --cache-dir. Install as pixi and rattler document theirs, e.g.
 *   bash: eval "$(conda-resolve completion bash)"   (in ~/.bashrc)
 *   zsh:  conda-resolve completion zsh > "${fpath[1]}/_conda-resolve"
 *   fish: conda-resolve completion fish > ~/.config/fish/completions/conda-resolve.fish
 */
import { TARGET_SUBDIRS } from '../../../vocabulary/platform.js';
import { loadRegistry, pluginLoadedLine } from '../../exporters/index.js';
import type { CommandArgs } from '../args.js';
import { COMMANDS, COMPLETION_OPTIONS, type CommandSpec, type OptionSpec, type ValueKind } from '../command-table.js';
import { EXIT_OK, EXIT_USAGE, writeError, writeNote, writeWarning, type CliIO } from '../io.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const USAGE = `usage: conda-resolve completion bash|zsh|fish

Print a shell completion script for conda-resolve: commands, flags, platforms, format names and
file names for -f/-o. To use it:
  bash  add  eval "$(conda-resolve completion bash)"  to ~/.bashrc
  zsh   conda-resolve completion zsh > "\${fpath[1]}/_conda-resolve"   (then restart zsh)
  fish  conda-resolve completion fish > ~/.config/fish/completions/conda-resolve.fish
`;

/** The words a value of each kind completes to (file and folder kinds are the shell's own). */
export interface ValueWords {
  readonly platform: readonly string[];
  readonly format: readonly string[];
  readonly priority: readonly string[];
  readonly shell: readonly string[];
}

export const usage = USAGE;

export async function run(parsed: CommandArgs<typeof COMPLETION_OPTIONS>, io: CliIO): Promise<number> {
  const [shell, ...extra] = parsed.positionals;
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell) || extra.length > 0) {
    const what = shell === undefined ? 'name a shell' : extra.length > 0 ? 'give one shell' : `unknown shell "${shell}"`;
    writeError(io, `${what}: conda-resolve completion ${SHELLS.join('|')}`);
    return EXIT_USAGE;
  }
  const { registry, warnings, plugins } = await loadRegistry({ env: io.env, cwd: io.cwd });
  for (const warning of warnings) writeWarning(io, warning);
  for (const plugin of plugins) writeNote(io, pluginLoadedLine(plugin));
  const words: ValueWords = {
    platform: TARGET_SUBDIRS,
    format: registry.allNames(),
    priority: ['strict', 'flexible', 'disabled'],
    shell: SHELLS,
  };
  io.stdout.write(completionScript(shell as Shell, words));
  return EXIT_OK;
}

export function completionScript(shell: Shell, words: ValueWords): string {
  switch (shell) {
    case 'bash':
      return bashScript(words);
    case 'zsh':
      return zshScript(words);
    case 'fish':
      return fishScript(words);
  }
}

const options = (command: CommandSpec): Array<[string, OptionSpec]> => Object.entries(command.options);
const flagsOf = (command: CommandSpec): string[] =>
  options(command).flatMap(([name, spec]) => [`--${name}`, ...(spec.short ? [`-${spec.short}`] : [])]);
const wordsFor = (kind: ValueKind | undefined, words: ValueWords): readonly string[] | undefined =>
  kind === 'platform' || kind === 'format' || kind === 'priority' || kind === 'shell' ? words[kind] : undefined;
const commandNames = COMMANDS.map((c) => c.name);

function bashScript(words: ValueWords): string {
  const perCommand = COMMANDS.map((command) => {
    const valueCases: string[] = [];
    const byKind = new Map<string, string[]>();
    for (const [name, spec] of options(command)) {
      if (spec.type !== 'string') continue;
      const key = spec.value ?? 'text';
      byKind.set(key, [...(byKind.get(key) ?? []), `--${name}`, ...(spec.short ? [`-${spec.short}`] : [])]);
    }
    for (const [kind, flags] of byKind) {
      const list = wordsFor(kind as ValueKind, words);
      const action =
        kind === 'file'
          ? 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))'
          : kind === 'dir'
            ? 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))'
            : list
              ? `COMPREPLY=($(compgen -W "${list.join(' ')}" -- "$cur"))`
              : 'COMPREPLY=()';
      valueCases.push(`        ${flags.join('|')}) ${action}; return ;;`);
    }
    const positional = command.words ? `COMPREPLY=($(compgen -W "${command.words.join(' ')}" -- "$cur"))` : 'COMPREPLY=()';
    return [
      `    ${command.name})`,
      '      case "$prev" in',
      ...valueCases,
      '      esac',
      '      if [[ "$cur" == -* ]]; then',
      `        COMPREPLY=($(compgen -W "${flagsOf(command).join(' ')}" -- "$cur"))`,
      '      else',
      `        ${positional}`,
      '      fi',
      '      ;;',
    ].join('\n');
  });
  return `# bash completion for conda-resolve (written by: conda-resolve completion bash)
_conda_resolve() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" command=resolve
  # The command is the first word when it is one of ours; anything else is a resolve.
  if [[ \${COMP_CWORD} -gt 1 ]]; then
    case "\${COMP_WORDS[1]}" in
      ${commandNames.join('|')}) command="\${COMP_WORDS[1]}" ;;
    esac
  elif [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "${commandNames.join(' ')}" -- "$cur"))
    return
  fi
  case "$command" in
${perCommand.join('\n')}
  esac
}
complete -F _conda_resolve conda-resolve
`;
}

/** Text inside a zsh _arguments help bracket: no brackets, colons or quotes. */
const zshText = (text: string): string => text.replace(/[[\]:'\\]/g, ' ');

function zshScript(words: ValueWords): string {
  const specs = (command: CommandSpec): string[] =>
    options(command).map(([name, spec]) => {
      const names = spec.short ? `{-${spec.short},--${name}}` : `--${name}`;
      const repeat = spec.multiple ? `'*'` : '';
      const help = `'[${zshText(spec.help)}]`;
      if (spec.type === 'boolean') return `${repeat}${names}${help}'`;
      const list = wordsFor(spec.value, words);
      const action = spec.value === 'file' ? '_files' : spec.value === 'dir' ? '_files -/' : list ? `(${list.join(' ')})` : ' ';
      return `${repeat}${names}${help}:${spec.value ?? 'value'}:${action}'`;
    });
  const cases = COMMANDS.filter((c) => c.name !== 'resolve').map((command) => {
    const positional = command.words ? ` '1:${command.name === 'completion' ? 'shell' : 'action'}:(${command.words.join(' ')})'` : '';
    return `    ${command.name})\n      shift words; (( CURRENT-- ))\n      _arguments -s${positional} \\\n        ${specs(command).join(' \\\n        ')}\n      ;;`;
  });
  const described = COMMANDS.map((c) => `'${c.name}:${zshText(c.help)}'`).join(' ');
  return `#compdef conda-resolve
# zsh completion for conda-resolve (written by: conda-resolve completion zsh)
_conda_resolve() {
  local -a commands
  commands=(${described})
  if (( CURRENT == 2 )) && [[ "\${words[2]}" != -* ]]; then
    _describe -t commands 'conda-resolve command' commands
    return
  fi
  case "\${words[2]}" in
${cases.join('\n')}
    *)
      [[ "\${words[2]}" == resolve ]] && { shift words; (( CURRENT-- )); }
      _arguments -s '*:package spec: ' \\
        ${specs(COMMANDS.find((c) => c.name === 'resolve')!).join(' \\\n        ')}
      ;;
  esac
}
compdef _conda_resolve conda-resolve
`;
}

/** Text inside fish single quotes. */
const fishText = (text: string): string => text.replace(/[\\']/g, (c) => `\\${c}`);

function fishScript(words: ValueWords): string {
  const others = commandNames.filter((n) => n !== 'resolve');
  const lines = [
    '# fish completion for conda-resolve (written by: conda-resolve completion fish)',
    'complete -c conda-resolve -f',
    ...COMMANDS.map((c) => `complete -c conda-resolve -n __fish_use_subcommand -a ${c.name} -d '${fishText(c.help)}'`),
  ];
  for (const command of COMMANDS) {
    // resolve's flags apply with or without the word "resolve".
    const when =
      command.name === 'resolve'
        ? `'not __fish_seen_subcommand_from ${others.join(' ')}'`
        : `'__fish_seen_subcommand_from ${command.name}'`;
    if (command.words) lines.push(`complete -c conda-resolve -n ${when} -a '${command.words.join(' ')}'`);
    for (const [name, spec] of options(command)) {
      const parts = [`complete -c conda-resolve -n ${when}`, `-l ${name}`];
      if (spec.short) parts.push(`-s ${spec.short}`);
      if (spec.type === 'string') {
        const list = wordsFor(spec.value, words);
        if (spec.value === 'file') parts.push('-r -F');
        else if (spec.value === 'dir') parts.push(`-r -a '(__fish_complete_directories)'`);
        else if (list) parts.push(`-r -a '${list.join(' ')}'`);
        else parts.push('-r');
      }
      parts.push(`-d '${fishText(spec.help)}'`);
      lines.push(parts.join(' '));
    }
  }
  return `${lines.join('\n')}\n`;
}
