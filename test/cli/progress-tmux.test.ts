/**
 * The progress display as a person sees it (issue 17, scope 5): the built CLI runs in a real
 * terminal (tmux), against the demo channel served on 127.0.0.1 with linux-64's repodata held
 * half-sent, and the screen is read with `tmux capture-pane`: per-subdir lines with bytes, speed
 * and elapsed time, per-platform lines, then after the run only the one-line summary; after Ctrl-C
 * nothing of the display is left. Skipped when tmux is not installed (CI has it: .ci/run).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/shared.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CLI, requireBuild, tempDir } from './run-cli.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const sessions: string[] = [];

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

/** Starts `command` in a detached 120x24 terminal; the pane stays after it ends and prints EXIT=<status>. */
function startTerminal(command: string): string {
  const name = `cr-progress-${process.pid}-${sessions.length}`;
  sessions.push(name);
  // A trap (not an ignore, which the CLI would inherit) keeps the shell alive through Ctrl-C.
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '24', `trap : INT; ${command}; echo EXIT=$?; sleep 300`);
  return name;
}

const screen = (name: string): string => tmux('capture-pane', '-p', '-t', name);
const quote = (s: string): string => `'${s.replaceAll("'", `'"'"'`)}'`;

describe.skipIf(!hasTmux)('progress in a terminal (tmux)', () => {
  let server: ChannelServer;
  let body: Buffer;
  /** Responses to linux-64's repodata.json held after their first half, until released. */
  const held: Array<() => void> = [];

  beforeAll(async () => {
    requireBuild();
    server = await startChannelServer({ root: join(PROJECT_ROOT, 'fixtures', 'channels') });
    body = await readFile(join(PROJECT_ROOT, 'fixtures', 'channels', 'demo', 'linux-64', 'repodata.json'));
    server.intercept = (req, res: ServerResponse) => {
      if (!req.url?.endsWith('/demo/linux-64/repodata.json')) return false;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      const half = Math.floor(body.length / 2);
      res.write(body.subarray(0, half));
      held.push(() => res.end(body.subarray(half)));
      return true;
    };
  });

  afterAll(async () => {
    for (const name of sessions) spawnSync('tmux', ['kill-session', '-t', name]);
    for (const release of held.splice(0)) release();
    await server?.close();
  });

  function cliCommand(args: string[]): string {
    const env = `CONDA_RESOLVE_CACHE_DIR=${quote(tempDir('cr-cache-'))} HOME=${quote(tempDir('cr-home-'))} CI= `;
    return `cd ${quote(tempDir())} && env ${env}${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}`;
  }

  it('shows each subdir and platform while working, then only the summary', async () => {
    const name = startTerminal(
      cliCommand(['-c', `${server.url}/demo`, '-p', 'linux-64', '-p', 'osx-arm64', 'python=3.12', '-o', 'pixi.lock']),
    );
    // While linux-64's repodata is half-sent: its line shows a bar, bytes of the total, a speed
    // and the time so far; the other subdirs are done; linux-64 waits for its repodata.
    await expect.poll(() => screen(name), { timeout: 20_000 }).toMatch(/✔ osx-arm64 +solved in \d+ ms/);
    const during = screen(name);
    expect(during).toMatch(
      /⠀?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] http:\/\/127\.0\.0\.1:\d+\/demo\/linux-64 +\[█+░+\] [\d.]+ KiB\/[\d.]+ KiB +[\d.]+ [KM]iB\/s +[\d.]+ m?s/,
    );
    expect(during).toMatch(/✔ http:\/\/127\.0\.0\.1:\d+\/demo\/osx-arm64 +[\d.]+ KiB in [\d.]+ m?s \([\d.]+ [KM]iB\/s\)/);
    expect(during).toMatch(/✔ http:\/\/127\.0\.0\.1:\d+\/demo\/noarch +[\d.]+ KiB in /);
    expect(during).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] linux-64 +loading repodata [\d.]+ m?s/);

    held.shift()!();
    await expect.poll(() => screen(name), { timeout: 20_000 }).toContain('EXIT=0');
    const after = screen(name)
      .trimEnd()
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(after).toEqual([
      expect.stringMatching(
        /^✔ Solved linux-64 \(\d+ packages\), osx-arm64 \(\d+ packages\) in [\d.]+ m?s; wrote pixi\.lock \([\d.]+ KiB of rattler-lock-v6\)$/,
      ),
      'EXIT=0',
    ]);
  });

  it('clears the display on Ctrl-C and exits 130', async () => {
    const name = startTerminal(cliCommand(['-c', `${server.url}/demo`, '-p', 'linux-64', 'python=3.12']));
    await expect.poll(() => screen(name), { timeout: 20_000 }).toMatch(/\/demo\/linux-64 +\[█+░+\]/);
    tmux('send-keys', '-t', name, 'C-c');
    await expect.poll(() => screen(name), { timeout: 20_000 }).toContain('EXIT=130');
    const after = screen(name);
    expect(after).not.toContain('demo/linux-64');
    expect(after).not.toContain('loading repodata');
    held.shift()?.();
  });

  it('shows nothing but the result when stderr is not a terminal, without -v', async () => {
    const out = tempDir();
    const name = startTerminal(
      `${cliCommand(['-c', `${server.url}/demo`, '-p', 'osx-arm64', 'python=3.12'])} 2>${quote(join(out, 'err'))} >/dev/null`,
    );
    await expect.poll(() => screen(name), { timeout: 20_000 }).toContain('EXIT=0');
    expect(await readFile(join(out, 'err'), 'utf8')).toBe('');
  });
});
