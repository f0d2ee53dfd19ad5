/**
 * `conda-resolve serve` as a real process (the built CLI), so that signal
 * handling and exit codes are the real ones. `url` settles once the start-up log line says where
 * the server listens; `stderr` collects the JSON log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, definedOnly } from '../../cli/run-cli.js';
import type { ChannelServer } from '../../helpers/channel-server.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly stderr: string[];
  readonly exit: Promise<number | null>;
  /** Settles with the first log line (already written or still to come) that contains `text`. */
  logLine(text: string): Promise<string>;
}

/**
 * Holds `channels`' answers until `release()`, so resolves stay in flight; `arrived` settles when
 * the channel has received its first request (the resolve is then in flight).
 */
export function holdChannel(channels: ChannelServer): { release: () => void; arrived: Promise<void> } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  channels.intercept = async () => {
    arrive();
    await released;
    return false;
  };
  return {
    release: () => {
      channels.intercept = undefined;
      release();
    },
    arrived,
  };
}

export function startServe(
  args: readonly string[],
  options: { logLevel?: 'info' | 'debug'; bin?: string; env?: Record<string, string | undefined> } = {},
): ServeProcess {
  // Info level at least: the start-up line is how the URL is learnt.
  const env = definedOnly({ ...process.env, ...options.env, CONDA_RESOLVE_LOG_LEVEL: options.logLevel ?? 'info' });
  const child = spawn(process.execPath, [options.bin ?? CLI, 'serve', ...args], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
  const waiting: Array<{ text: string; resolve: (line: string) => void }> = [];
  let buffered = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        stderr.push(line);
        const match = /"url":"(http:\/\/[^"]+)"/.exec(line);
        if (match && line.includes('listening on')) resolve(match[1]!);
        for (const wait of waiting.filter((w) => line.includes(w.text))) {
          waiting.splice(waiting.indexOf(wait), 1);
          wait.resolve(line);
        }
      }
    });
    child.once('exit', () => reject(new Error(`serve exited early:\n${stderr.join('\n')}`)));
  });
  // Observed here: a test that never awaits `url` (the server failed another way) is not an unhandled rejection.
  url.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logLine = (text: string): Promise<string> => {
    const seen = stderr.find((line) => line.includes(text));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => waiting.push({ text, resolve }));
  };
  return { child, url, stderr, exit, logLine };
}
