/**
 * The load side of bench/reliability.ts, in its own process so that its work never shows in the
 * server's event-loop figures. Prints the fault server's base URL, reads the resolve server's URL
 * from standard input, sends `N` concurrent mixed requests (and /health every 100 ms), sends
 * SIGTERM to its parent once 400 are answered, and prints one JSON line with the counts.
 *
 *   (spawned by bench/reliability.ts) tsx bench/reliability-load.ts N [KIND,...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mixedLoad, send, startFaultServer } from '../test/helpers/fault-channels.js';

const requests = Number(process.argv[2] ?? 1000);
const work = mkdtempSync(join(tmpdir(), 'cr-bench-faults-'));
const faults = await startFaultServer(work);
process.stdout.write(`${faults.base}\n`);
const input = createInterface({ input: process.stdin });
const url = await new Promise<string>((resolve) => input.once('line', resolve));
input.close();

const started = performance.now();
let slowestHealthMs = 0;
let stopHealth = false;
const health = (async () => {
  while (!stopHealth) {
    const t = performance.now();
    await send(url, '/health');
    if (!stopHealth) slowestHealthMs = Math.max(slowestHealthMs, performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
})();

// An optional second argument keeps only the kinds named (comma-separated), to see one at a time.
const only = process.argv[3]?.split(',');
const kinds = mixedLoad(faults.base).filter((k) => !only || only.includes(k.kind));
let answered = 0;

const tally: Record<string, number> = {};
const all = Array.from({ length: requests }, (_, i) => {
  const kind = kinds[i % kinds.length]!;
  return kind.run(url).then((result) => {
    answered++;
    const key = `${kind.kind} ${result}`;
    tally[key] = (tally[key] ?? 0) + 1;
    return result;
  });
});
while (answered < Math.min(400, requests)) await new Promise((resolve) => setTimeout(resolve, 20));
stopHealth = true;
const sigtermAfterMs = performance.now() - started;
process.kill(process.ppid, 'SIGTERM');
const results = await Promise.all(all);
await health;
const totalMs = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ tally, answered: results.filter((r) => typeof r === 'number').length, reset: results.filter((r) => typeof r !== 'number').length, slowestHealthMs, sigtermAfterMs, totalMs, kinds: kinds.length })}\n`,
);
await faults.close();
rmSync(work, { recursive: true, force: true });
