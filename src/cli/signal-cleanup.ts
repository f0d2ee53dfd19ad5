/**
 * Temporary files of downloads in flight (`repodata/temp-files.ts`) never outlive the process:
 * - Ctrl-C (or SIGTERM, SIGHUP) during a command removes them, then the process ends as the signal
 *   would have ended it (status 128 + its number); nothing committed to the cache is touched;
 * - any still there when the process exits are removed then.
 * `serve` and `worker` shut down gracefully on a signal once they run, so `serve` takes the signal
 * cleanup only while it starts (its --prewarm downloads), and `worker` not at all.
 */
import process from 'node:process';
import { removeTempFiles } from '../../repodata/temp-files.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let atExit = false;

/** Remove what is left when the process exits (once per process). */
export function removeTempFilesAtExit(): void {
  if (atExit) return;
  atExit = true;
  process.once('exit', () => removeTempFiles());
}

/** Until the returned function is called: on a stop signal, remove the temp files and end by the signal. */
export function removeTempFilesOnSignal(): () => void {
  const stop = (): void => {
    for (const name of SIGNALS) process.removeListener(name, onSignal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    stop();
    removeTempFiles();
    // With no listener of ours left the signal takes its default action: the process ends by it.
    process.kill(process.pid, signal);
  };
  for (const name of SIGNALS) process.on(name, onSignal);
  return stop;
}
