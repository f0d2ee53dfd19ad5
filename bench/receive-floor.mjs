/**
 * The floor of a cold HTTP row in bench/scale.ts: the least any Node process does to have the
 * documents at all. It requests each subdir's document at once, through the same HTTP client
 * (undici's Agent, a dispatch handler that receives the body in its data callback, the cheapest
 * way undici offers) and, for `.json.zst`, the same decoder (zstd-napi's `DCtx` into one reused
 * block), then throws the bytes away: no probes, no scan, no cache file, no hash, no solve.
 *
 *   node bench/receive-floor.mjs BASE_URL json|zst SUBDIR...
 *
 * Prints one JSON line: `{ "bytes": decoded bytes, "cpuS": user + system CPU seconds of the
 * process }`. The caller times the whole process.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';

const [base, form, ...subdirs] = process.argv.slice(2);
if (!base || (form !== 'json' && form !== 'zst') || subdirs.length === 0) {
  process.stderr.write('usage: node bench/receive-floor.mjs BASE_URL json|zst SUBDIR...\n');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const Agent = require('undici/lib/dispatcher/agent.js');
const zstd = form === 'zst' ? require('zstd-napi/binding.js') : null;
const agent = new Agent();
const BLOCK = 1 << 20;

/** Receive (and decode) one document; resolves to its decoded length. */
function receive(url) {
  return new Promise((resolve, reject) => {
    const dctx = zstd ? new zstd.DCtx() : null;
    const block = Buffer.allocUnsafeSlow(BLOCK);
    let bytes = 0;
    let status = 0;
    agent.dispatch(
      { origin: url.origin, path: url.pathname, method: 'GET' },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          if (status !== 200) return;
          if (dctx === null) {
            bytes += chunk.length;
            return;
          }
          let rest = chunk;
          for (;;) {
            const [, produced, consumed] = dctx.decompressStream(block, rest);
            bytes += produced;
            rest = rest.subarray(consumed);
            if (rest.length === 0 && produced < BLOCK) break;
          }
        },
        onResponseEnd() {
          if (status === 200) resolve(bytes);
          else reject(new Error(`${url.href}: HTTP ${status}`));
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

const file = form === 'zst' ? 'repodata.json.zst' : 'repodata.json';
const sizes = await Promise.all(subdirs.map((subdir) => receive(new URL(`${base.replace(/\/$/, '')}/${subdir}/${file}`)))).catch((error) => {
  process.stderr.write(`receive-floor: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
await agent.close();
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ bytes: sizes.reduce((a, b) => a + b, 0), cpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
