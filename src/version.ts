/** The tool's own version, read once from package.json (used in `created-by` lines and `/version`). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  // src/version.ts and dist/src/version.js both sit two levels below the package root... or one.
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'conda-resolve' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
}

export const TOOL_NAME = 'conda-resolve';
export const TOOL_VERSION: string = readVersion();
