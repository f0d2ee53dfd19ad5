/**
 * pixi's global configuration files, read for their `mirrors` table only, in pixi's order (lowest
 * precedence first): `/etc/pixi/config.toml`, `~/.config/pixi/config.toml`,
 * `$XDG_CONFIG_HOME/pixi/config.toml`, `~/.pixi/config.toml`, `$PIXI_HOME/config.toml`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ConfigFileError } from './errors.js';
import type { ConfigLayer } from './merge.js';
import type { Env } from './search-path.js';
import { checkSetting } from './settings.js';

export function pixiConfigPaths(env: Env, home: string | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const paths: string[] = [platform === 'win32' ? 'C:/ProgramData/pixi/config.toml' : '/etc/pixi/config.toml'];
  if (home !== undefined) paths.push(join(home, '.config', 'pixi', 'config.toml'));
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg) paths.push(join(xdg, 'pixi', 'config.toml'));
  if (home !== undefined) paths.push(join(home, '.pixi', 'config.toml'));
  const pixiHome = env.PIXI_HOME?.trim();
  if (pixiHome) paths.push(join(pixiHome, 'config.toml'));
  return [...new Set(paths)];
}

/** The `mirrors` of one pixi config file, or null when the file does not exist or has none. */
export function readPixiMirrors(path: string): ConfigLayer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (cause) {
    throw new ConfigFileError(path, `Cannot read pixi configuration "${path}": not valid TOML`, { cause });
  }
  if (doc.mirrors === undefined) return null;
  const checked = checkSetting('mirrors', doc.mirrors);
  if (!checked.ok) throw new ConfigFileError(path, `Cannot use "mirrors" in "${path}": ${checked.reason}`);
  return { source: path, values: { mirrors: checked.value } };
}
