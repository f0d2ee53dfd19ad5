/**
 * The floor of a cold HTTP row in bench/scale.ts: the least any Node process does to have the
 * documents at all. It requests each subdir's document at once, through the same HTTP client
 * (undici's Agent, a dispatch handler that receives the body in its data callback, the cheapest
 * way undici offers) and, for `.json.zst`, the same decoder as the CLI (dist's
 * `createZstdDecoder`: zstd-napi where it loads, else the WebAssembly build, reusing its output
 * blocks), then throws the bytes away: no probes, no scan, no cache file, no hash, no solve.
 *
 *   node bench/receive-floor.mjs BASE_URL json|zst SUBDIR...
 *
 * Prints one JSON line: `{ "bytes": decoded bytes, "cpuS": user + system CPU seconds of the
 * process }`. The caller times the whole process.
 */
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';
import { createZstdDecoder } from '../dist/repodata/zstd.js';

const [base, form, ...subdirs] = process.argv.slice(2);
if (!base || (form !== 'json' && form !== 'zst') || subdirs.length === 0) {
  process.stderr.write('usage: node bench/receive-floor.mjs BASE_URL json|zst SUBDIR...\n');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const { Agent } = require('undici');
const agent = new Agent();

/** Receive (and decode) one document; resolves to its decoded length. */
async function receive(url) {
  let bytes = 0;
  const decoder =
    form === 'zst'
      ? await createZstdDecoder(
          (out) => {
            bytes += out.length;
          },
          { reuseOutput: true },
        )
      : null;
  return new Promise((resolve, reject) => {
    let status = 0;
    let failed = false;
    const fail = (error) => {
      failed = true;
      decoder?.dispose();
      reject(error);
    };
    agent.dispatch(
      { origin: url.origin, path: url.pathname, method: 'GET' },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          if (status !== 200 || failed) return;
          if (decoder === null) bytes += chunk.length;
          else {
            try {
              decoder.push(chunk);
            } catch (error) {
              fail(error);
            }
          }
        },
        onResponseEnd() {
          if (failed) return;
          if (status !== 200) return fail(new Error(`${url.href}: HTTP ${status}`));
          try {
            decoder?.end();
            resolve(bytes);
          } catch (error) {
            fail(error);
          }
        },
        onResponseError(_controller, error) {
          if (!failed) fail(error);
        },
      },
    );
  });
}

const file = form === 'zst' ? 'repodata.json.zst' : 'repodata.json';
const sizes = await Promise.all(subdirs.map((subdir) => receive(new URL(`${base.replace(/\/$/, '')}/${subdir}/${file}`)))).catch(
  (error) => {
    process.stderr.write(`receive-floor: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
await agent.close();
const cpu = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ bytes: sizes.reduce((a, b) => a + b, 0), cpuS: (cpu.user + cpu.system) / 1e6 })}\n`);
