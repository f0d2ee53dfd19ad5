/**
 * `conda-resolve formats`: the exporter registry, grouped as conda's `conda export --help` shows it
 * (`--json` prints the same data as `GET /formats`).
 */
import { parseArgs } from 'node:util';
import { loadRegistry } from '../exporters/index.js';
import { EXIT_OK, EXIT_USAGE, writeError, writeWarning, type CliIO } from './io.js';

export async function formatsCommand(argv: readonly string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { json: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    writeError(io, (error as Error).message);
    return EXIT_USAGE;
  }
  const { registry, warnings } = await loadRegistry({ env: io.env, cwd: io.cwd });
  for (const warning of warnings) writeWarning(io, warning);
  const exporters = registry.list();
  if (values.json) {
    const body = {
      formats: registry.names(),
      exporters: exporters.map((e) => ({
        name: e.name,
        aliases: [...e.aliases],
        description: e.description,
        category: e.category,
        media_type: e.mediaType,
        multiplatform: typeof e.exportMultiplatform === 'function',
        default_filenames: [...e.defaultFilenames],
      })),
    };
    io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines: string[] = [];
  for (const [category, title] of [
    ['lockfile', 'Lockfiles'],
    ['environment', 'Environment specs'],
  ] as const) {
    const group = exporters.filter((e) => e.category === category);
    if (group.length === 0) continue;
    if (lines.length) lines.push('');
    lines.push(`${title}:`);
    for (const e of group) {
      const aliases = e.aliases.length ? ` (aliases: ${e.aliases.join(', ')})` : '';
      const files = e.defaultFilenames.length ? `: ${e.defaultFilenames.join(', ')}` : '';
      lines.push(`  - ${e.name}${aliases}${files}`);
      lines.push(`      ${e.description}`);
    }
  }
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
