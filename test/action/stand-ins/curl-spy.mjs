// Put first on PATH as `curl` by the action tests: records the exact argv (one JSON line per call
// in CURL_SPY_LOG), then runs the real curl (CURL_SPY_REAL) with the same arguments and exit status,
// so a test can check both the command line the action builds and what really happened.
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import process from 'node:process';

const argv = process.argv.slice(2);
const log = process.env.CURL_SPY_LOG;
const real = process.env.CURL_SPY_REAL;
if (!log || !real) {
  process.stderr.write('curl spy: CURL_SPY_LOG and CURL_SPY_REAL must be set\n');
  process.exit(70);
}
appendFileSync(log, `${JSON.stringify({ argv })}\n`);
const result = spawnSync(real, argv, { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`curl spy: cannot run ${real}: ${result.error.message}\n`);
  process.exit(70);
}
process.exit(result.status ?? 1);
