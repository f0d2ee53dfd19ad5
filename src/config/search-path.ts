/**
 * Where conda looks for `.condarc` files, in its order (conda/base/constants.py SEARCH_PATH): the
 * system files, `$CONDA_ROOT`, `$XDG_CONFIG_HOME/conda`, `~/.config/conda`, `~/.conda`,
 * `~/.condarc`, `$CONDA_PREFIX`, then `$CONDARC`. Each folder entry is a `condarc.d/` whose
 * `*.yml`/`*.yaml` files are read in name order. Later entries take precedence over earlier ones.
 * Entries whose variable is unset are left out, as conda leaves them unexpanded (and so absent).
 */
import { join } from 'node:path';

export interface SearchPathEntry {
  readonly path: string;
  /** A `condarc.d/` folder rather than a file. */
  readonly folder: boolean;
}

export type Env = Readonly<Record<string, string | undefined>>;

function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The candidate locations, lowest precedence first, duplicates removed. */
export function condarcSearchPath(env: Env, home: string | undefined, platform: NodeJS.Platform = process.platform): SearchPathEntry[] {
  const entries: SearchPathEntry[] = [];
  const triple = (dir: string | undefined): void => {
    if (dir === undefined) return;
    entries.push(
      { path: join(dir, '.condarc'), folder: false },
      { path: join(dir, 'condarc'), folder: false },
      { path: join(dir, 'condarc.d'), folder: true },
    );
  };
  if (platform === 'win32') {
    triple('C:/ProgramData/conda');
  } else {
    triple('/etc/conda');
    triple('/var/lib/conda');
  }
  triple(set(env, 'CONDA_ROOT'));
  const xdg = set(env, 'XDG_CONFIG_HOME');
  triple(xdg === undefined ? undefined : join(xdg, 'conda'));
  if (home !== undefined) {
    triple(join(home, '.config', 'conda'));
    triple(join(home, '.conda'));
    entries.push({ path: join(home, '.condarc'), folder: false });
  }
  triple(set(env, 'CONDA_PREFIX'));
  const condarc = set(env, 'CONDARC');
  if (condarc !== undefined) entries.push({ path: condarc, folder: false });
  const seen = new Set<string>();
  return entries.filter((e) => (seen.has(e.path) ? false : (seen.add(e.path), true)));
}

/** The home directory as the process was given it (tests set HOME). */
export function homeOf(env: Env): string | undefined {
  return set(env, 'HOME') ?? set(env, 'USERPROFILE');
}
