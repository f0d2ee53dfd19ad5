/**
 * Ctrl-C during a cold download: the CLI ends as the signal says (status 130 for SIGINT, 143 for
 * SIGTERM) and leaves no temp file in the cache folder. It used to leave the partial download (up
 * to hundreds of megabytes at conda-forge scale) until a later run's cleanup, an hour on. The same
 * for `serve` stopped while its --prewarm downloads (once it listens, it shuts down gracefully:
 * test/http/shutdown.test.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultServer, type FaultServer } from '../helpers/fault-channels.js';
import { CLI, requireBuild, tempDir } from './run-cli.js';

let server: FaultServer;

beforeAll(async () => {
  requireBuild();
  server = await startFaultServer(tempDir('cr-interrupt-'));
});
afterAll(() => server.close());

/** Temp files under the cache's repodata folder. */
function tempFiles(cacheDir: string): string[] {
  const dir = join(cacheDir, 'repodata');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.tmp')) : [];
}

// `trickle` sends its repodata.json a byte a second (linux-64 and noarch alike): the downloads
// are in flight until stopped.
const COMMANDS = {
  resolve: () => ['-c', `${server.base}/trickle`, '-p', 'linux-64', 'python', '--timeout', '60'],
  'serve --prewarm': () => [
    'serve',
    '--port',
    '0',
    '--prewarm',
    `${server.base}/trickle/linux-64`,
    '--allow-channel',
    `${server.base}/trickle`,
  ],
};

describe.each([
  ['resolve', 'SIGINT', 130],
  ['resolve', 'SIGTERM', 143],
  ['serve --prewarm', 'SIGTERM', 143],
] as const)('%s stopped by %s during a download', (command, signal, status) => {
  it(`ends the process by the signal (status ${status}) and removes the downloads' temp files`, async () => {
    const cacheDir = tempDir('cr-cache-');
    const child = spawn(process.execPath, [CLI, ...COMMANDS[command]()], {
      env: { ...process.env, CONDA_RESOLVE_CACHE_DIR: cacheDir },
      stdio: 'ignore',
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const deadline = Date.now() + 20_000;
    while (tempFiles(cacheDir).length < 2 && Date.now() < deadline) await sleep(50);
    expect(tempFiles(cacheDir), 'both downloads started their temp files').toHaveLength(2);

    child.kill(signal);
    const exit = await ended;
    // Killed by the signal itself, as a shell reports it: 128 + its number.
    expect(exit).toEqual({ code: null, signal });
    expect(tempFiles(cacheDir)).toEqual([]);
  });
});
