/**
 * `conda-resolve config [--json]`: the effective configuration (what `.condarc` files, pixi's
 * config.toml and `CONDA_*` variables give) and where each value came from, like `conda config
 * --show` with `--show-sources` folded in. Credentials inside values are redacted.
 */
import { redactSecrets } from '../../../vocabulary/channel.js';
import { loadConfig } from '../../config/load.js';
import { SETTING_KEYS } from '../../config/settings.js';
import { exitStatusOf, userMessage } from '../../errors.js';
import { EXIT_OK, writeError, type CliIO } from '../io.js';
import type { CommandArgs } from '../args.js';
import type { LISTING_OPTIONS } from '../command-table.js';

function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), redact(v)]));
  return value;
}

function render(value: unknown, indent: string): string {
  if (Array.isArray(value)) return value.length === 0 ? ' []' : value.map((v) => `\n${indent}  - ${String(v)}`).join('');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? ' {}' : entries.map(([k, v]) => `\n${indent}  ${JSON.stringify(k)}:${render(v, `${indent}  `)}`).join('');
  }
  return ` ${String(value)}`;
}

export const usage =
  'usage: conda-resolve config [--json]\n\nPrint the effective configuration and the file or variable each value came from.\n';

export async function run({ values }: CommandArgs<typeof LISTING_OPTIONS>, io: CliIO): Promise<number> {
  let config;
  try {
    config = loadConfig({ env: io.env });
  } catch (error) {
    writeError(io, userMessage(error));
    return exitStatusOf(error);
  }
  const keys = SETTING_KEYS.filter((k) => config.get(k) !== undefined);
  if (values.json) {
    const settings = Object.fromEntries(keys.map((k) => [k, { value: redact(config.get(k)), sources: config.sourceOf(k) }]));
    io.stdout.write(`${JSON.stringify({ files: config.files, settings }, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines = [`# configuration files read: ${config.files.length ? config.files.join(', ') : 'none'}`];
  for (const key of keys) lines.push(`${key}:${render(redact(config.get(key)), '')}  # from ${config.sourceOf(key).join(', ')}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}
