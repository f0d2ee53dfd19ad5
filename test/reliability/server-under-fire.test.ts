/**
 * The server as a platform team runs it, on a bad day: 1,000 concurrent requests, some valid, some
 * malformed, some for a channel that never answers, one that trickles a byte a second and two that
 * serve decompression bombs; SIGTERM arrives while they are being answered. Every request that
 * reached the server gets a status the OpenAPI document lists (never a reset connection), `/health`
 * answers within a second throughout, the server's memory stays under 600 MB, and it exits 0.
 *
 * Not a timed test: the limits are the promises (a second for /health, 600 MB), far from
 * what the machine's load decides.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../cli/run-cli.js';
import { FAULT_CHANNELS, mixedLoad, send, startFaultServer, type FaultServer } from '../helpers/fault-channels.js';
import { startServe } from '../http/helpers/serve-process.js';
import { tempDir } from '../repodata/store-helpers.js';

/** Statuses `/resolve` documents (src/http/openapi.ts). */
const DOCUMENTED = new Set([200, 400, 413, 415, 429, 500, 503, 504]);

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

describe('conda-resolve serve under 1,000 mixed concurrent requests and SIGTERM', () => {
  const work = tempDir('fire');
  let faults: FaultServer;

  beforeAll(async () => {
    requireBuild();
    faults = await startFaultServer(work.path);
  });
  afterAll(async () => {
    await faults?.close();
    work.remove();
  });

  it('answers every request with a documented status, keeps /health quick and memory bounded, exits 0', async () => {
    const channels = FAULT_CHANNELS.map((name) => `${faults.base}/${name}`);
    const args = ['--port', '0', ...channels.flatMap((c) => ['--allow-channel', c]), '--default-channel', channels[0]!];
    args.push('--rate-limit', '0', '--timeout', '6', '--workers', '2', '--max-queue', '1000', '--max-repodata-size', '256MiB');
    args.push('--cache-dir', join(work.path, 'cache'));
    const serve = startServe(args);
    const url = await serve.url;
    const child = serve.child;
    const exited = serve.exit;

    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(child.pid!))), 50);
    // /health every 100 ms until SIGTERM: the slowest answer, and any answer but 200.
    let slowestHealth = 0;
    const healthFailures: (number | string)[] = [];
    let stopHealth = false;
    const health = (async () => {
      while (!stopHealth) {
        const started = performance.now();
        const status = await send(url, '/health');
        if (stopHealth) break;
        if (status !== 200) healthFailures.push(status);
        slowestHealth = Math.max(slowestHealth, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const kinds = mixedLoad(faults.base);
    let answered = 0;
    const outcomes = Array.from({ length: 1000 }, (_, i) => {
      const kind = kinds[i % kinds.length]!;
      return kind.run(url).then((result) => {
        answered++;
        return { kind, result };
      });
    });
    // SIGTERM in the middle: once a good part of the requests has been answered.
    while (answered < 400) await new Promise((resolve) => setTimeout(resolve, 20));
    stopHealth = true;
    child.kill('SIGTERM');
    const results = await Promise.all(outcomes);
    await health;
    const code = await exited;
    clearInterval(sampler);

    const tally = new Map<string, number>();
    for (const { kind, result } of results) tally.set(`${kind.kind} ${result}`, (tally.get(`${kind.kind} ${result}`) ?? 0) + 1);
    const summary = [...tally].map(([k, n]) => `${k}: ${n}`).join('\n');
    const undocumented = results.filter(({ result }) => typeof result !== 'number' || !DOCUMENTED.has(result));
    expect(undocumented, summary).toEqual([]);
    // Each kind gets its own answer, or the 503 of a request that arrived during shutdown.
    const unexpected = results.filter(({ kind, result }) => result !== 503 && !kind.expect.includes(result as number));
    expect(unexpected.map(({ kind, result }) => `${kind.kind} ${result}`), summary).toEqual([]);
    expect(healthFailures).toEqual([]);
    expect(slowestHealth).toBeLessThan(1000);
    expect(peakRss).toBeLessThan(600);
    expect(code).toBe(0);
  }, 120_000);
});
