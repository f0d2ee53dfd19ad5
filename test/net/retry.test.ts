/**
 * Retries: a channel that answers 503 twice and then serves is solved, with each retry visible in
 * `-v` output; the policy's waits (exponential with jitter, Retry-After first, cut short by the
 * time limit) checked with an injected clock, so no test sleeps.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkPolicy, type NetworkResponse } from '../../repodata/net/network.js';
import { abortableSleep, backoffMs, parseRetryAfter } from '../../repodata/net/retry.js';
import { RepodataFetchError } from '../../repodata/fetch-errors.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { DEMO, runCli, tempDir } from '../cli/run-cli.js';

let server: ChannelServer;
beforeAll(async () => {
  server = await startChannelServer({ root: join(DEMO, '..') });
});
afterAll(() => server.close());

const cleanEnv = {
  HOME: tempDir('cr-home-'),
  CONDARC: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  CONDA_REMOTE_BACKOFF_FACTOR: '0',
};

describe('a channel that fails twice with 503', () => {
  it('is solved on the third try, and -v shows the URLs tried and retried', async () => {
    let failures = 0;
    server.intercept = (req, res) => {
      if (req.url === '/demo/linux-64/repodata.json' && failures < 2) {
        failures++;
        res.writeHead(503).end();
        return true;
      }
      return false;
    };
    try {
      const { code, stdout, stderr } = await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', '-q', '-v', 'python=3.9'], {
        env: cleanEnv,
      });
      expect(code).toBe(0);
      expect(JSON.parse(stdout)[0].error).toBeNull();
      const url = `${server.url}/demo/linux-64/repodata.json`;
      expect(stderr).toContain(`conda-resolve: GET ${url}\n`);
      expect(stderr).toContain(`conda-resolve: ${url} answered HTTP 503; retrying in 0.0 s\n`);
      expect(stderr).toContain(`conda-resolve: GET ${url} (retry 1 of 3)\n`);
      expect(stderr).toContain(`conda-resolve: GET ${url} (retry 2 of 3)\n`);
      expect(failures).toBe(2);
    } finally {
      server.intercept = undefined;
    }
  });

  it('fails with the status once remote_max_retries are used up', async () => {
    server.intercept = (req, res) => {
      if (req.url === '/demo/noarch/repodata.json') {
        res.writeHead(503).end();
        return true;
      }
      return false;
    };
    try {
      const { code, stderr } = await runCli(['-c', `${server.url}/demo`, '-p', 'linux-64', '-q', '-v', 'python=3.9'], {
        env: { ...cleanEnv, CONDA_REMOTE_MAX_RETRIES: '1' },
      });
      expect(code).toBe(1);
      expect(stderr).toContain('(retry 1 of 1)');
      expect(stderr).not.toContain('(retry 2');
      expect(stderr).toContain('HTTP 503 Service Unavailable');
    } finally {
      server.intercept = undefined;
    }
  });
});

describe('a download cut off midway', () => {
  it('is asked for again from the start, and the cache holds only the whole answer', async () => {
    const { readFileSync } = await import('node:fs');
    const full = readFileSync(join(DEMO, 'linux-64', 'repodata.json'));
    let cuts = 0;
    server.intercept = (req, res) => {
      if (req.url === '/demo/linux-64/repodata.json' && cuts === 0) {
        cuts++;
        res.writeHead(200, { 'content-length': String(full.length), 'content-type': 'application/json' });
        res.write(full.subarray(0, Math.floor(full.length / 2)), () => res.socket?.destroy());
        return true;
      }
      return false;
    };
    const cacheDir = tempDir('cr-cache-');
    try {
      const args = ['-c', `${server.url}/demo`, '-p', 'linux-64', '-q', '-v', 'python=3.9'];
      const first = await runCli(args, { env: cleanEnv, cacheDir });
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/repodata\.json was cut off \(the connection closed after \d+ of \d+ bytes/);
      expect(cuts).toBe(1);
      // Offline from that cache: the committed file is the whole document, so it solves the same.
      const offline = await runCli([...args, '--offline'], { env: cleanEnv, cacheDir });
      expect(offline.code).toBe(0);
      expect(JSON.parse(offline.stdout)).toEqual(JSON.parse(first.stdout));
    } finally {
      server.intercept = undefined;
    }
  });
});

function answer(status: number, retryAfter: string | null = null): NetworkResponse {
  return { status, retryAfter, body: { dump: async () => undefined } };
}

describe('the retry policy', () => {
  it('waits factor * 2^attempt with jitter between half and all of it, and honours Retry-After', async () => {
    const waits: number[] = [];
    const policy = new NetworkPolicy({
      maxRetries: 3,
      backoffFactor: 0.5,
      random: () => 1,
      sleep: async (ms) => void waits.push(ms),
      now: () => 0,
    });
    const answers = [answer(503), answer(429, '7'), answer(502), answer(200)];
    const response = await policy.get('https://x.example/a/linux-64/repodata.json', undefined, async () => answers.shift()!);
    expect(response.status).toBe(200);
    expect(waits).toEqual([500, 7000, 2000]);
    expect(backoffMs(1, 1, () => 0)).toBe(1000);
    expect(backoffMs(1, 1, () => 1)).toBe(2000);
  });

  it('retries a failed connection but not a 404, nor an error with a status', async () => {
    let calls = 0;
    const policy = new NetworkPolicy({ maxRetries: 2, sleep: async () => undefined });
    const response = await policy.get('https://x.example/c', undefined, async () => {
      calls++;
      if (calls === 1) throw new RepodataFetchError('c', 'linux-64', 'the connection was reset');
      return answer(404);
    });
    expect(response.status).toBe(404);
    expect(calls).toBe(2);
  });

  it('does not wait for a Retry-After beyond two minutes: the answer is final', async () => {
    const policy = new NetworkPolicy({ sleep: async () => expect.unreachable('no wait') });
    expect((await policy.get('https://x.example/c', undefined, async () => answer(503, '3600'))).status).toBe(503);
  });

  it('stops waiting when the time limit aborts the request', async () => {
    const controller = new AbortController();
    const waiting = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('time limit'));
    await expect(waiting).rejects.toThrow('time limit');
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });
});
