/**
 * Ctrl-C (or SIGTERM, SIGHUP) during a command that may download: remove the temporary files of
 * the downloads in flight (`repodata/temp-files.ts`), then end as the signal would have (status
 * 128 + its number). Nothing committed to the cache is touched: only files this process was still
 * writing. `serve` and `worker` shut down on their own and do not use this.
 */
import process from 'node:process';
import { removeTempFiles } from '../../repodata/temp-files.js';

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

export function removeTempFilesOnSignal(): void {
  if (installed) return;
  installed = true;
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const name of SIGNALS) process.removeListener(name, onSignal);
    removeTempFiles();
    // With no listener left the signal takes its default action: the process ends by it.
    process.kill(process.pid, signal);
  };
  for (const name of SIGNALS) process.on(name, onSignal);
}
