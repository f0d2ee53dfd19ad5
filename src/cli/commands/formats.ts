/**
 * `conda-resolve formats`: the formats document (`GET /formats` serves the same one), listed by
 * category as conda's `conda export --help` shows its exporters, or with `--json` as indented JSON.
 */
import { formatsDocument, loadRegistry, pluginLoadedLine, type FormatsDocument } from '../../exporters/index.js';
import { EXIT_OK, writeNote, writeWarning, type CliIO } from '../io.js';
import type { CommandArgs } from '../args.js';
import type { LISTING_OPTIONS } from '../command-table.js';

const CATEGORY_TITLES = [
  ['lockfile', 'Lockfiles'],
  ['environment', 'Environment specs'],
] as const;

export const usage =
  'usage: conda-resolve formats [--json]\n\nList the exporters (--format names), their aliases and default file names.\n';

export async function run({ values }: CommandArgs<typeof LISTING_OPTIONS>, io: CliIO): Promise<number> {
  const { registry, warnings, plugins } = await loadRegistry({ env: io.env, cwd: io.cwd });
  for (const warning of warnings) writeWarning(io, warning);
  for (const plugin of plugins) writeNote(io, pluginLoadedLine(plugin));
  const document = formatsDocument(registry);
  io.stdout.write(values.json ? `${JSON.stringify(document, null, 2)}\n` : listing(document));
  return EXIT_OK;
}

/** Each category's exporters: name, aliases and default filenames on one line, the description below. */
function listing(document: FormatsDocument): string {
  const lines: string[] = [];
  for (const [category, title] of CATEGORY_TITLES) {
    const group = document.exporters.filter((e) => e.category === category);
    if (group.length === 0) continue;
    if (lines.length) lines.push('');
    lines.push(`${title}:`);
    for (const e of group) {
      const aliases = e.aliases.length ? ` (aliases: ${e.aliases.join(', ')})` : '';
      const files = e.default_filenames.length ? `: ${e.default_filenames.join(', ')}` : '';
      lines.push(`  - ${e.name}${aliases}${files}`);
      lines.push(`      ${e.description}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
