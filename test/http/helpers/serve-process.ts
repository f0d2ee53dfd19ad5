/**
 * `conda-resolve serve` as a real process (the built CLI, or `src/` through tsx), so that signal
 * handling and exit codes are the real ones. `url` settles once the start-up log line says where
 * the server listens; `stderr` collects the JSON log lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from '../../cli/run-cli.js';
import type { ChannelServer } from '../../helpers/channel-server.js';
import { PROJECT_ROOT } from '../../helpers/shared.js';

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly stderr: string[];
  readonly exit: Promise<number | null>;
}

/** Holds `channels`' answers until `release()`, so resolves stay in flight. */
export function holdChannel(channels: ChannelServer): { release: () => void; held: () => number } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = 0;
  channels.intercept = async () => {
    held++;
    await released;
    return false;
  };
  return {
    release: () => {
      channels.intercept = undefined;
      release();
    },
    held: () => held,
  };
}

export function startServe(args: readonly string[], options: { fromSource?: boolean } = {}): ServeProcess {
  const entry = options.fromSource ? ['--import', 'tsx', `${PROJECT_ROOT}/src/cli/bin.ts`] : [CLI];
  const child = spawn(process.execPath, [...entry, 'serve', ...args], {
    cwd: PROJECT_ROOT,
    // Info level: the start-up line is how the URL is learnt.
    env: { ...process.env, CONDA_RESOLVE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr: string[] = [];
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
      }
    });
    child.once('exit', () => reject(new Error(`serve exited early:\n${stderr.join('\n')}`)));
  });
  // Observed here: a test that never awaits `url` (the server failed another way) is not an unhandled rejection.
  url.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, url, stderr, exit };
}
