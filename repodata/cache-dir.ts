/**
 * Where the cache directory is by default. Its own module, with only Node's path and os, so the
 * CLI's launcher can find its code cache there without loading the repodata cache (cache.ts).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * `$XDG_CACHE_HOME/conda-resolve` or `~/.cache/conda-resolve` on Linux and other Unixes,
 * `~/Library/Caches/conda-resolve` on macOS, `%LOCALAPPDATA%\conda-resolve\Cache` on Windows.
 * `CONDA_RESOLVE_CACHE_DIR` overrides all of them.
 */
export function defaultCacheDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.CONDA_RESOLVE_CACHE_DIR) return env.CONDA_RESOLVE_CACHE_DIR;
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA || join(home, 'AppData', 'Local');
    return join(base, 'conda-resolve', 'Cache');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'conda-resolve');
  const xdg = env.XDG_CACHE_HOME;
  // XDG says a relative value is invalid and must be ignored.
  return xdg && xdg.startsWith('/') ? join(xdg, 'conda-resolve') : join(home, '.cache', 'conda-resolve');
}
