/**
 * Runs the built CLI as a user would: a child process of `node dist/src/cli/bin.js` (built by
 * `npm test` before vitest starts), with its own cache directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/shared.js';

export const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.js');
export const DEMO = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

export function tempDir(prefix = 'cr-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined>; cacheDir?: string; command?: string } = {}): Promise<CliResult> {
  requireBuild();
  const cacheDir = options.cacheDir ?? tempDir('cr-cache-');
  const env: Record<string, string | undefined> = { ...process.env, CONDA_RESOLVE_CACHE_DIR: cacheDir, ...options.env };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return new Promise((resolve, reject) => {
    const child = options.command
      ? spawn(options.command, [...args], { cwd: options.cwd ?? PROJECT_ROOT, env: env as NodeJS.ProcessEnv })
      : spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? PROJECT_ROOT, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
