/**
 * Commands run in this process (a library caller, the HTTP server's tests, a test run sharing one
 * worker) leave no stop-signal listener behind: each `main` call used to add one per signal and
 * never remove it, so a dozen calls printed `MaxListenersExceededWarning` for SIGINT, SIGTERM and
 * SIGHUP. Ending by the signal while a command runs is test/cli/interrupt.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const counts = (): number[] => SIGNALS.map((name) => process.listenerCount(name));

describe('stop-signal listeners of in-process commands', () => {
  it('are back to their count once each command returns, whatever its status', async () => {
    const before = counts();
    for (let i = 0; i < 4; i += 1) {
      expect((await runCli(['--version'])).code).toBe(0);
      expect((await runCli(['formats'])).code).toBe(0);
      expect((await runCli(['--no-such-flag'])).code).toBe(2);
    }
    expect(counts()).toEqual(before);
  });
});
