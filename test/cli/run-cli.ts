/**
 * Two ways to run the command line. `runCli` calls `main(argv, io)` in this process with in-memory
 * standard output and error, an environment object and a working directory: what nearly every CLI
 * test needs, without a Node start-up per case. `spawnCli` runs the built executable
 * (`node dist/src/cli/bin.cjs`, built by `npm test` before vitest starts) as a user would, for the
 * few tests about the executable itself: exit statuses, the shebang, which stream gets what, and
 * processes sharing one cache.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { PROJECT_ROOT } from '../helpers/shared.js';

export const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'bin.cjs');
export const DEMO = join(PROJECT_ROOT, 'fixtures', 'channels', 'demo');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The repodata cache; default a fresh temporary directory. */
  cacheDir?: string;
}

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does)`);
}

export function tempDir(prefix = 'cr-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `env` without the variables set to undefined (a test's way of removing one). */
export function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) defined[key] = value;
  return defined;
}

/** The environment a run sees: this process's, a cache directory of its own, then the test's. */
function environment(options: CliOptions): Record<string, string> {
  return definedOnly({ ...process.env, CONDA_RESOLVE_CACHE_DIR: options.cacheDir ?? tempDir('cr-cache-'), ...options.env });
}

/** A stream that keeps what is written to it, as text. */
export class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** `conda-resolve ARGS` in this process: the exit status `main` returns and what it wrote. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const stdout = new TextSink();
  const stderr = new TextSink();
  const code = await main(args, { stdout, stderr, env: environment(options), cwd: options.cwd ?? PROJECT_ROOT });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `conda-resolve ARGS` as a child process: the built `bin.cjs` under this Node, or `command` found on PATH. */
export function spawnCli(args: readonly string[], options: CliOptions & { command?: string } = {}): Promise<CliResult> {
  requireBuild();
  const env = environment(options);
  const cwd = options.cwd ?? PROJECT_ROOT;
  return new Promise((resolve, reject) => {
    const child = options.command ? spawn(options.command, [...args], { cwd, env }) : spawn(process.execPath, [CLI, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
